/**
 * What the touch stores key touches and address sightings by, the same on both runtimes (the
 * DynamoDB table on AWS, the embedded store on one machine), so that a lookup finds the same
 * touches whichever store answers it: an advertising id without its case, a touch's place in
 * its device's window (its time, then its click id: unique, so touches of the same millisecond
 * are all kept), an install's sighting by the clock hour, and when each expires.
 */
import { createHash } from "node:crypto";
import { HOUR_MS } from "../domain/time.ts";
import type { Touch } from "../ports/touches.ts";
import { TOUCH_LIMITS } from "./touch-request.ts";

/** An IDFA is upper case from the device and often lower case from a network: one key for both. */
export const maidMatchKey = (maid: string): string => maid.toLowerCase();

/** A touch's place among its device's (or address's) touches: newest first is this, descending. */
export const touchSortKey = (touch: Pick<Touch, "touchTime" | "clickId">): string =>
  `${touch.touchTime}#${touch.clickId}`;

/**
 * The last sort key of a window ending at `to`: '~' sorts after '#' and every id character, so
 * every touch of the window's last millisecond is within it.
 */
export const windowEndKey = (to: Date): string => `${to.toISOString()}~`;

/**
 * How long a touch is kept past the longest click window: a click near the window's edge stays
 * for an install whose first open is inside it but whose report, retry or sweep comes later.
 */
export const TOUCH_GRACE_SECONDS = 2 * 86_400;

/** When a touch expires (Unix seconds): the longest click window after its time, and the grace. */
export const touchExpirySeconds = (touchTime: string): number =>
  Math.ceil(Date.parse(touchTime) / 1000) +
  TOUCH_LIMITS.maxTouchAgeDays * 86_400 +
  TOUCH_GRACE_SECONDS;

/**
 * How long a sighting is kept after its hour: the day matching reads before a first open, and
 * a day more for an install reported or matched late (a retried job, the sweep).
 */
export const SIGHTING_LIFE_SECONDS = 2 * 86_400;

/** The clock hour a sighting (or a window's start) falls in, as ISO 8601. */
export const sightingHour = (ms: number): string =>
  new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString();

/** When a sighting of that hour expires (Unix seconds). */
export const sightingExpirySeconds = (hour: string): number =>
  Math.floor(Date.parse(hour) / 1000) + SIGHTING_LIFE_SECONDS;

/**
 * A device as a click's claim names it: a hash of its IDFV or advertising id (case aside), which
 * tells devices apart and no more.
 */
export const deviceTag = (appId: string, deviceId: string): string =>
  createHash("sha256")
    .update(`${appId}#device#${deviceId.toLowerCase()}`)
    .digest("base64url")
    .slice(0, 16);

/** An install as its sightings name it: a hash of its id, which tells installs apart and no more. */
export const installTag = (appId: string, serviceId: string): string =>
  createHash("sha256").update(`${appId}#${serviceId}`).digest("base64url").slice(0, 16);

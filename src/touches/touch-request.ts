/**
 * The body of `POST /v1/touches`: clicks and impressions an ad network reports server to
 * server, 1 to 1,000 a request. The envelope is checked as a whole (a bad one is a 422); then
 * each touch on its own, and a bad touch is rejected alone, as events are. Unknown keys are
 * ignored and null is the same as absent.
 */
import * as z from "zod";
import { costFields, refineCostFields } from "../costs/touch-cost.ts";
import { ATTRIBUTION_LIMITS } from "../domain/attribution.ts";
import { DAY_MS, HOUR_MS } from "../domain/time.ts";
import { TOUCH_TYPES } from "../domain/touch.ts";
import {
  dateTime,
  deviceId,
  deviceIdOrNull,
  shortText,
  text,
  withoutProtoKey,
} from "../ingest/fields.ts";
import { LINK_LIMITS } from "../links/link-limits.ts";
import { formatIssues, type Parsed } from "../validation/issues.ts";
import { withoutControlCharacters } from "../validation/text.ts";
import { deeplinkIdField } from "./ids.ts";
import { normalizeIp } from "./ip.ts";

export const TOUCH_LIMITS = {
  maxTouchesPerRequest: 1_000,
  maxUserAgentLength: 1_000,
  maxNetworkClickIdLength: 200,
  /** The longest window an app may set: an older touch can never be matched. */
  maxTouchAgeDays: ATTRIBUTION_LIMITS.clickWindowDays.max,
  maxFutureSkewHours: 24,
} as const;

/**
 * A name or id the network gives: refused with a control character, as a link's are, since the
 * export, the reports and the postbacks carry it.
 */
const field = () => withoutControlCharacters(shortText(LINK_LIMITS.maxFieldLength)).nullish();

const touchFields = z.object(
  {
    touch_type: z.enum(TOUCH_TYPES, { error: "must be click or impression" }).meta({
      description: "A click (a tap on the ad) or an impression (the ad was seen).",
      example: "click",
    }),
    touch_time: dateTime().meta({
      description: `When the touch happened; at most ${TOUCH_LIMITS.maxTouchAgeDays} days old.`,
      example: "2026-11-20T18:00:00Z",
    }),
    media_source: withoutControlCharacters(
      text()
        .min(1, { error: "is required" })
        .max(LINK_LIMITS.maxFieldLength, {
          error: `must be at most ${LINK_LIMITS.maxFieldLength} characters`,
        }),
    ).meta({ description: "The ad network reporting the touch.", example: "facebook_ads" }),
    campaign_id: field(),
    campaign_name: field(),
    adset_id: field(),
    adset_name: field(),
    ad_id: field(),
    ad_name: field(),
    ip: text()
      .refine((ip) => normalizeIp(ip) !== null, { error: "must be an IPv4 or IPv6 address" })
      .nullish()
      .meta({
        description: "The device's IP address as the network saw it.",
        example: "81.2.69.142",
      }),
    user_agent: withoutControlCharacters(shortText(TOUCH_LIMITS.maxUserAgentLength))
      .nullish()
      .meta({ description: "The device's browser or app user agent, as the network saw it." }),
    maid: deviceId().nullish().meta({
      description:
        "The device's advertising id (GAID, or IDFA where consented); all zeros is absent.",
      example: "38400000-8cf0-11bd-b23e-10b96e40000d",
    }),
    click_id: withoutControlCharacters(
      shortText(TOUCH_LIMITS.maxNetworkClickIdLength).min(1, { error: "must not be empty" }),
    )
      .nullish()
      .meta({
        description:
          "The network's own id of the touch. A touch with one is taken once: a repeat with the " +
          "same media_source and click_id answers the click_id given the first time.",
        example: "fb.1.1700000000.abc",
      }),
    deeplink_id: deeplinkIdField()
      .nullish()
      .meta({ description: "The app's link the ad pointed to, if any.", example: "Kx3v9QpZ2aQ" }),
    params: withoutProtoKey(
      z
        .record(z.string(), shortText(LINK_LIMITS.maxParamValueLength), {
          error: "must be a map of strings",
        })
        .refine((params) => Object.keys(params).length <= LINK_LIMITS.maxParams, {
          error: `must have at most ${LINK_LIMITS.maxParams} keys`,
        }),
    )
      .nullish()
      .meta({ description: "Custom string parameters of the touch.", example: { sub1: "abc" } }),
    // What the touch cost; a touch that names none takes its link's.
    ...costFields("the touch"),
  },
  { error: "must be a JSON object" },
);

/** A touch: its fields, the three cost fields together or none. */
export const touchSchema = touchFields.superRefine(refineCostFields());

export type TouchRequest = z.output<typeof touchSchema>;

export const touchesEnvelopeSchema = z.object(
  {
    touches: z
      .array(z.unknown(), { error: "must be a list of touches" })
      .min(1, { error: `must be a list of 1 to ${TOUCH_LIMITS.maxTouchesPerRequest} touches` })
      .max(TOUCH_LIMITS.maxTouchesPerRequest, {
        error: `must be a list of 1 to ${TOUCH_LIMITS.maxTouchesPerRequest} touches`,
      }),
  },
  { error: "must be a JSON object" },
);

/** The `POST /v1/touches` body, for documentation: the handler checks touch by touch. */
export const touchesRequestSchema = z
  .object({ touches: z.array(touchSchema).min(1).max(TOUCH_LIMITS.maxTouchesPerRequest) })
  .meta({ id: "TouchesRequest" });

export const parseTouchesEnvelope = (body: unknown): Parsed<readonly unknown[]> => {
  const parsed = touchesEnvelopeSchema.safeParse(body);
  return parsed.success
    ? { ok: true, value: parsed.data.touches }
    : { ok: false, detail: formatIssues(parsed.error.issues, "body") };
};

/** A touch checked against its rules and the clock, with its values normalized. */
export const parseTouch = (raw: unknown, now: Date): Parsed<TouchRequest> => {
  const parsed = touchSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, detail: formatIssues(parsed.error.issues, "touch") };
  const time = Date.parse(parsed.data.touch_time);
  if (time > now.getTime() + TOUCH_LIMITS.maxFutureSkewHours * HOUR_MS) {
    return {
      ok: false,
      detail: `touch_time: must be at most ${TOUCH_LIMITS.maxFutureSkewHours} hours ahead of the server's clock`,
    };
  }
  if (time < now.getTime() - TOUCH_LIMITS.maxTouchAgeDays * DAY_MS) {
    return {
      ok: false,
      detail: `touch_time: must be at most ${TOUCH_LIMITS.maxTouchAgeDays} days old: no install can be matched to it`,
    };
  }
  return {
    ok: true,
    value: {
      ...parsed.data,
      touch_time: new Date(time).toISOString(),
      maid: deviceIdOrNull(parsed.data.maid),
      ip: normalizeIp(parsed.data.ip),
    },
  };
};

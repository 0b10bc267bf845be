/**
 * One demo install: who the user is (country, phone, identifiers, whether they ever sign in,
 * how engaged and how likely to pay), where it connects from, and what caused it: an ad a
 * network reports server to server, a tap on one of the app's links, or nothing (organic).
 * The cause is only the demo's ground truth: the service's matcher finds the attribution
 * from the touches and the install alone.
 */

import { HOUR_MS, MINUTE_MS } from "../domain/time.ts";
import { type MediaSource, pickTouch, type Touch } from "./campaigns.ts";
import type { DemoApp } from "./demo-app.ts";
import { browserUserAgent, type Device, devicesOf, namingAgent } from "./devices.ts";
import type { Market } from "./markets.ts";
import type { Random } from "./prng.ts";

/** Share of installs with no paid touch: 35–45 % is typical of an app that buys ads. */
const ORGANIC_SHARE = 0.4;
/** Share of users who sign in at some point, so carry a customer user id from then on. */
export const IDENTIFIED_SHARE = 0.6;
/** iOS users who granted App Tracking Transparency, so have an IDFA. */
const IOS_ATT_CONSENT = 0.22;
/** Android users who did not opt out of the advertising id. */
const ANDROID_GAID_AVAILABLE = 0.9;
const IOS_REINSTALL_SHARE = 0.08;
/** Installs on mobile data, behind their carrier's NAT, rather than on a home network. */
const MOBILE_DATA_SHARE = 0.2;
/** Paid touches with an advertising id at hand that the network reports without it. */
const TOUCH_WITHOUT_MAID_SHARE = 0.2;
const IMPRESSION_SHARE = 0.15;

export type AttStatus = "authorized" | "denied" | "not_determined";

/** An ad touch as a network reports it: when, on which device and address, with which id. */
export interface NetworkTouch {
  readonly touchType: "click" | "impression";
  readonly touch: Touch;
  readonly time: number;
  readonly ip: string;
  /** The browser's or app's user agent as the network saw it. */
  readonly userAgent: string;
  readonly maid: string | null;
}

/**
 * What caused the install: a network's touch (matched by advertising id when it carries the
 * install's, else by IP and device at best), a tap on the app's link just before (its click
 * id reaches the install through the Play referrer), or nothing.
 */
export type Cause =
  | { readonly kind: "organic" }
  | { readonly kind: "network"; readonly touch: NetworkTouch }
  | { readonly kind: "tap"; readonly touch: Touch; readonly userAgent: string };

export interface InstallProfile {
  readonly serviceId: string;
  readonly market: Market;
  readonly firstOpen: number;
  readonly device: Device;
  /** Where the install's requests come from. */
  readonly ip: string;
  /** On mobile data, behind its carrier's NAT (else at home). */
  readonly mobileData: boolean;
  readonly idfv: string | null;
  readonly maid: string | null;
  /** iOS only: the App Tracking Transparency answer. */
  readonly attStatus: AttStatus | null;
  readonly reinstall: boolean;
  readonly cause: Cause;
  /** Null for users who never sign in. */
  readonly customerUserId: string | null;
  /** Scales the chance to come back on later days (retention). */
  readonly engagement: number;
  /** Payers buy most of what they put in the cart; others rarely. */
  readonly payer: boolean;
}

export interface InstallContext {
  readonly app: DemoApp;
  readonly sources: readonly MediaSource[];
  readonly random: Random;
  readonly addresses: {
    home(country: string): string;
    carrier(country: string): string;
  };
  /** IDFVs of the app's earlier installs, which a reinstall on the same phone brings back. */
  readonly seenIdfvs: readonly string[];
}

/** How long before the first open the causing touch was, by how it will be found. */
const touchLead = (random: Random, kind: "click" | "impression" | "ip"): number =>
  kind === "ip"
    ? // Most open the app minutes after the tap (the store page, the download); a quarter come
      // back to it hours later, when a tap from the same address is no evidence any more.
      random.chance(0.75)
      ? Math.min(45 * MINUTE_MS, random.exponential(4 * MINUTE_MS))
      : random.between(0.5, 5.5) * HOUR_MS
    : kind === "impression"
      ? random.between(0.1, 20) * HOUR_MS // within the 24-hour view window
      : Math.min(6 * 24 * HOUR_MS, random.exponential(5 * HOUR_MS)); // the 7-day click window

const paidCause = (
  ctx: InstallContext,
  install: { firstOpen: number; ip: string; maid: string | null; country: string; device: Device },
  live: boolean,
): Cause => {
  const { random, sources, addresses } = ctx;
  const touch = pickTouch(random, sources);
  const userAgent = browserUserAgent(install.device, random);
  if (live) return { kind: "tap", touch, userAgent };
  const withMaid = install.maid !== null && !random.chance(TOUCH_WITHOUT_MAID_SHARE);
  if (withMaid) {
    const touchType = random.chance(IMPRESSION_SHARE) ? "impression" : "click";
    // Seen on the ad at home or somewhere else: the advertising id is what links the two.
    const ip = random.chance(0.6) ? install.ip : addresses.home(install.country);
    const time = install.firstOpen - touchLead(random, touchType);
    return {
      kind: "network",
      touch: { touchType, touch, time, ip, userAgent, maid: install.maid },
    };
  }
  // No advertising id on the touch: only the address and the phone link it to the install.
  const time = install.firstOpen - touchLead(random, "ip");
  return {
    kind: "network",
    touch: { touchType: "click", touch, time, ip: install.ip, userAgent, maid: null },
  };
};

/**
 * A click at home minutes before the first open, reported without an advertising id, by an
 * agent that says all it can of the phone: what a demo shows the matcher finding by address
 * and phone alone.
 */
const addressCause = (
  ctx: InstallContext,
  install: { firstOpen: number; ip: string; device: Device },
): Cause => ({
  kind: "network",
  touch: {
    touchType: "click",
    touch: pickTouch(ctx.random, ctx.sources),
    time: install.firstOpen - ctx.random.between(1, 10) * MINUTE_MS,
    ip: install.ip,
    userAgent: namingAgent(install.device),
    maid: null,
  },
});

/**
 * A new install in `market`, first opened at `firstOpen`. `live` installs happen now, after a tap on one of the app's links (Android:
 * the Play referrer brings the tap's click id back), so their cause is always that tap.
 */
export const createInstall = (
  ctx: InstallContext,
  opens: { readonly market: Market; readonly firstOpen: number },
  options: {
    forceIdentified?: boolean;
    live?: boolean;
    /** Caused by a click at home that only its address and phone tell (`addressCause`). */
    byAddress?: boolean;
  } = {},
): InstallProfile => {
  const { app, random, addresses } = ctx;
  const { market, firstOpen } = opens;
  const ios = app.platform === "ios";
  const device = random.pick(devicesOf(app.platform));
  const attStatus: AttStatus | null = ios
    ? random.chance(IOS_ATT_CONSENT)
      ? "authorized"
      : random.chance(0.7)
        ? "denied"
        : "not_determined"
    : null;
  const consent = ios ? attStatus === "authorized" : random.chance(ANDROID_GAID_AVAILABLE);
  const reinstall = ios && ctx.seenIdfvs.length > 0 && random.chance(IOS_REINSTALL_SHARE);
  const idfv = ios ? (reinstall ? random.pick(ctx.seenIdfvs) : random.uuid().toUpperCase()) : null;
  // Apple's identifiers print upper case, Android's advertising id lower case.
  const maid = consent ? (ios ? random.uuid().toUpperCase() : random.uuid()) : null;
  const mobileData = !options.byAddress && random.chance(MOBILE_DATA_SHARE);
  const ip = mobileData ? addresses.carrier(market.country) : addresses.home(market.country);
  const organic = !options.live && !options.byAddress && random.chance(ORGANIC_SHARE);
  const cause: Cause = organic
    ? { kind: "organic" }
    : options.byAddress
      ? addressCause(ctx, { firstOpen, ip, device })
      : paidCause(
          ctx,
          { firstOpen, ip, maid, country: market.country, device },
          options.live ?? false,
        );

  const identified = options.forceIdentified || random.chance(IDENTIFIED_SHARE);
  // Churners, casual and core players: most installs are gone after a day or two.
  const engagement =
    random.weighted([
      [0.3, 45],
      [0.8, 35],
      [1.4, 20],
    ] as const) * (organic ? 0.5 : 0.42);
  return {
    serviceId: random.uuid(),
    market,
    firstOpen,
    device,
    ip,
    mobileData,
    idfv,
    maid,
    attStatus,
    reinstall,
    cause,
    customerUserId: identified ? `user_${random.hex(12)}` : null,
    engagement,
    payer: random.chance(0.08),
  };
};

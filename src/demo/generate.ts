/**
 * Deterministic, realistic demo traffic for an app: installs spread over the `days` before
 * `end` with a daily rhythm, each with its device, address, cause and the events its SDK
 * sends; the touches the app's ad networks report, including the many that lead to no
 * install; and a few installs happening now, after a tap on one of the app's links. What the
 * service makes of it (which touch wins, with what confidence) is left to the service: the
 * demo only sends what devices and networks would.
 */
import type { CostRequestRow } from "../costs/cost-rows.ts";
import type { EventType } from "../domain/event-types.ts";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../domain/time.ts";
import type { FxRates } from "../fx/ecb-rates.ts";
import type { Addresses } from "./addresses.ts";
import { type MediaSource, mediaSourcesFor, pickTouch, type Touch } from "./campaigns.ts";
import { demoCosts } from "./costs.ts";
import type { DemoApp } from "./demo-app.ts";
import { browserUserAgent, type Device, devicesOf } from "./devices.ts";
import { createInstall, type InstallProfile, type NetworkTouch } from "./install.ts";
import { MARKETS, type Market, marketWeights, PRICE_TIERS } from "./markets.ts";
import { createRandom, hashString, type Random } from "./prng.ts";
import { sampleTime } from "./rhythm.ts";
import { planEvents } from "./sessions.ts";

export type { DemoApp } from "./demo-app.ts";

/** The longest history: events older than 30 days are refused, and a touch may lead by 7. */
export const MAX_DEMO_DAYS = 21;

export interface DemoOptions {
  /** Length of the window before `end` over which installs are spread. */
  readonly days: number;
  /** Installs per app. */
  readonly installs: number;
  readonly end: Date;
  readonly seed?: number;
  /**
   * The service's rates: a store currency it cannot convert on every day of the window (its
   * rates may end before the window, offline) is priced in USD instead, so every purchase
   * counts as revenue.
   */
  readonly fx: Pick<FxRates, "currencies" | "toUsd">;
  readonly addresses: Addresses;
}

/** An event as the SDK sends it in `POST /v1/events`. */
export interface SdkEvent {
  readonly event_id: string;
  readonly event_type: EventType;
  readonly event_name?: string;
  readonly parameters?: Readonly<Record<string, unknown>>;
  readonly event_time: string;
  readonly service_id: string;
  readonly customer_user_id?: string;
}

/** A session as the SDK reports it in `POST /v1/sessions`. */
export interface SdkSession {
  readonly session_id: string;
  readonly service_id: string;
  readonly started_at: string;
}

export interface DemoInstall {
  readonly profile: InstallProfile;
  /** In sending order: time order, with an SDK's occasional retry of an event sent before. */
  readonly events: readonly SdkEvent[];
  /** In time order: the app's launches and returns to the foreground. */
  readonly sessions: readonly SdkSession[];
}

/** A tap on one of the app's links by a browser. */
export interface LinkTap {
  readonly touch: Touch;
  readonly ip: string;
  readonly userAgent: string;
}

export interface AppTraffic {
  readonly app: DemoApp;
  /** Past installs in first-open order. */
  readonly installs: readonly DemoInstall[];
  /** Installs happening now, each after a tap on one of the app's links (Android only). */
  readonly live: readonly DemoInstall[];
  /** Touches that lead to no install: other users behind a carrier's NAT, other homes. */
  readonly strays: readonly NetworkTouch[];
  /** Taps on the app's links that lead to no install. */
  readonly strayTaps: readonly LinkTap[];
  /** Chats' crawlers fetching the app's links for a preview: no taps, and no clicks. */
  readonly previews: readonly LinkTap[];
  /** What the past paid installs cost, as the networks report it. */
  readonly costs: readonly CostRequestRow[];
}

/** Share of events an SDK delivers twice (a retry after a lost answer). */
export const DUPLICATE_SHARE = 0.005;
/** Installs open at least this long before `end`, so their first session is in the lake. */
const INSTALL_MARGIN_MS = 10 * MINUTE_MS;
/** An event that signs the user in; the customer user id applies from it on. */
const AUTH_TYPES: ReadonlySet<EventType> = new Set(["LOGIN", "SIGN_UP", "REGISTER"]);
/** Installs happening now, per past install (Android only; at least one). */
const LIVE_SHARE = 0.03;
/** Other users' clicks through a carrier's NAT in the hours before an install behind it. */
const CARRIER_NEIGHBOURS = { min: 6, max: 12 } as const;
/** Clicks from homes that lead nowhere, per install. */
const HOME_STRAY_SHARE = 0.3;
/** Organic installs at home where a household member tapped an ad on another phone. */
const HOUSEHOLD_TAP_SHARE = 0.1;
const PREVIEW_AGENTS = [
  "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
  "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
];

const iso = (time: number): string => new Date(time).toISOString();

/** The SDK events of one install, with its sign-in and the occasional retry, and its sessions. */
const sdkEvents = (
  random: Random,
  profile: InstallProfile,
  options: { end: number; currency: string; tour: boolean },
): { events: SdkEvent[]; sessions: SdkSession[] } => {
  const events: SdkEvent[] = [];
  const retries: SdkEvent[] = [];
  const sessions: SdkSession[] = [];
  let customerUserId: string | null = null;
  for (const event of planEvents(random, profile, options)) {
    // Made of the install's own id, so that the traffic of a seed stays the same.
    if (event.sessionStart) {
      sessions.push({
        session_id: `${profile.serviceId}.${sessions.length}`,
        service_id: profile.serviceId,
        started_at: iso(event.time),
      });
    }
    if (profile.customerUserId !== null && AUTH_TYPES.has(event.type))
      customerUserId = profile.customerUserId;
    // The SDK reports the install itself (POST /v1/installs); the service makes its event.
    if (event.type === "INSTALL") continue;
    const body: SdkEvent = {
      event_id: random.uuid(),
      event_type: event.type,
      event_time: iso(event.time),
      service_id: profile.serviceId,
      ...(event.customName === null ? {} : { event_name: event.customName }),
      ...(event.revenue
        ? { parameters: { revenue: event.revenue.amount, currency: event.revenue.currency } }
        : {}),
      ...(customerUserId === null ? {} : { customer_user_id: customerUserId }),
    };
    events.push(body);
    if (random.chance(DUPLICATE_SHARE)) retries.push(body);
  }
  return { events: [...events, ...retries], sessions };
};

/** A touch from someone else's phone: a click that leads to no install. */
const strayTouch = (
  random: Random,
  sources: readonly MediaSource[],
  devices: readonly Device[],
  at: { time: number; ip: string; withMaid: boolean },
): NetworkTouch => ({
  touchType: "click",
  touch: pickTouch(random, sources),
  time: at.time,
  ip: at.ip,
  userAgent: browserUserAgent(random.pick(devices), random),
  maid: at.withMaid ? random.uuid() : null,
});

function appTraffic(app: DemoApp, options: DemoOptions, start: number, end: number): AppTraffic {
  // Seeded per app, so an app's traffic does not depend on which other apps are generated.
  const random = createRandom(hashString(`${options.seed ?? 1}/${app.appId}`));
  const days = Array.from({ length: options.days + 1 }, (_, back) =>
    new Date(end - back * DAY_MS).toISOString().slice(0, 10),
  );
  const known = new Set(
    options.fx.currencies.filter((currency) =>
      days.every((day) => options.fx.toUsd(1, currency, day) !== null),
    ),
  );
  const currencyOf = new Map(
    MARKETS.map((m) => [m, known.has(m.currency) && PRICE_TIERS[m.currency] ? m.currency : "USD"]),
  );
  const sources = mediaSourcesFor(app);
  const seenIdfvs: string[] = [];
  const ctx = { app, sources, random, addresses: options.addresses, seenIdfvs };
  const strays: NetworkTouch[] = [];
  const devices = devicesOf(app.platform);

  // First opens first, so installs come in time order and a reinstall follows its original.
  const latestOpen = Math.max(start, end - INSTALL_MARGIN_MS);
  const opens = Array.from({ length: options.installs }, (_, i) => {
    const market = random.weighted(marketWeights(app.platform));
    // The first install of each app is scripted through every event type, so even a tiny
    // demo shows them all; it opens early in the window so its whole first session fits.
    const until = i === 0 ? start + Math.min((end - start) / 2, 12 * HOUR_MS) : latestOpen;
    return {
      tour: i === 0,
      // And one of them is found by its address and phone alone, so that every demo shows it.
      byAddress: i === 1,
      market,
      firstOpen: sampleTime(random, start, until, market.utcOffsetMinutes) ?? start,
    };
  }).sort((a, b) => a.firstOpen - b.firstOpen);

  const installs = opens.map(({ tour, byAddress, ...open }): DemoInstall => {
    const profile = createInstall(ctx, open, { forceIdentified: tour, byAddress });
    if (profile.idfv) seenIdfvs.push(profile.idfv);
    const currency = currencyOf.get(profile.market) ?? "USD";
    const { events, sessions } = sdkEvents(random, profile, { end, currency, tour });
    const onCarrier = profile.mobileData;
    if (onCarrier || (!byAddress && random.chance(HOUSEHOLD_TAP_SHARE))) {
      // Behind a carrier's NAT, many other phones tapped ads from the same address; at home,
      // now and then a household member did, on a phone of their own.
      const count = onCarrier ? random.int(CARRIER_NEIGHBOURS.min, CARRIER_NEIGHBOURS.max) : 1;
      for (let i = 0; i < count; i++) {
        const time = profile.firstOpen - random.between(0.1, 5.5) * HOUR_MS;
        strays.push(
          strayTouch(random, sources, devices, { time, ip: profile.ip, withMaid: false }),
        );
      }
    }
    return { profile, events, sessions };
  });

  for (let i = 0; i < options.installs * HOME_STRAY_SHARE; i++) {
    const market = random.weighted(marketWeights(app.platform));
    strays.push(
      strayTouch(random, sources, devices, {
        time: random.between(start, end),
        ip: options.addresses.home(market.country),
        withMaid: random.chance(0.5),
      }),
    );
  }

  const liveCount =
    app.platform === "android" ? Math.max(1, Math.round(options.installs * LIVE_SHARE)) : 0;
  const live = Array.from({ length: liveCount }, (): DemoInstall => {
    const market = random.weighted(marketWeights(app.platform));
    const profile = createInstall(ctx, { market, firstOpen: end }, { live: true });
    // Its first open, and so its session, is when the demo sends it (src/demo/drive.ts).
    return { profile, events: [], sessions: [] };
  });

  const strayTaps: LinkTap[] = Array.from(
    { length: Math.max(1, Math.round(options.installs * 0.02)) },
    () => {
      const market: Market = random.weighted(marketWeights(app.platform));
      return {
        touch: pickTouch(random, sources),
        ip: options.addresses.home(market.country),
        userAgent: browserUserAgent(random.pick(devices), random),
      };
    },
  );
  const previews: LinkTap[] = PREVIEW_AGENTS.map((userAgent) => ({
    touch: pickTouch(random, sources),
    ip: options.addresses.home("US"),
    userAgent,
  }));
  return {
    app,
    installs,
    live,
    strays,
    strayTaps,
    previews,
    costs: demoCosts(installs, known.has("EUR")),
  };
}

export const generateDemo = (apps: readonly DemoApp[], options: DemoOptions): AppTraffic[] => {
  const end = options.end.getTime();
  if (!Number.isFinite(end)) throw new RangeError("demo: end must be a valid date");
  if (!(Number.isFinite(options.days) && options.days > 0 && options.days <= MAX_DEMO_DAYS))
    throw new RangeError(`demo: days must be > 0 and at most ${MAX_DEMO_DAYS}`);
  if (!(Number.isInteger(options.installs) && options.installs >= 1)) {
    throw new RangeError("demo: installs must be a whole number >= 1");
  }
  const start = end - options.days * DAY_MS;
  return apps.map((app) => appTraffic(app, options, start, end));
};

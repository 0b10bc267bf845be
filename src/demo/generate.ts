/**
 * Deterministic, realistic demo data for the lake: for each app, `installs` installs spread
 * over the `days` before `end`, each with its attribution rows and its events, as the ingestion
 * path would put them on the streams. A generator, so callers batch records as they come and
 * millions of events never sit in memory at once.
 */
import { type EventType, exportEventName } from "../domain/event-types.ts";
import type { FxRates } from "../fx/ecb-rates.ts";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE, type LakeRecord, nullColumns } from "../lake/tables.ts";
import { type MediaSource, mediaSourcesFor } from "./campaigns.ts";
import type { DemoApp } from "./demo-app.ts";
import { createInstall, type InstallProfile } from "./install.ts";
import { MARKETS, type Market, PRICE_TIERS } from "./markets.ts";
import { createRandom, hashString, type Random } from "./prng.ts";
import { DAY_MS, HOUR_MS, MINUTE_MS, sampleTime } from "./rhythm.ts";
import { planEvents } from "./sessions.ts";

export type { DemoApp } from "./demo-app.ts";

export interface DemoOptions {
  readonly apps: readonly DemoApp[];
  /** Length of the window before `end` over which installs are spread. */
  readonly days: number;
  /** Installs per app. */
  readonly installs: number;
  readonly end: Date;
  readonly seed?: number;
  readonly fx: FxRates;
}

export interface DemoRecord {
  readonly table: "events" | "attributions";
  readonly record: LakeRecord;
}

/** Share of events delivered twice (SDK retries), which the export must de-duplicate. */
export const DUPLICATE_SHARE = 0.005;
/** Installs open at least this long before `end`, so their first session is in the lake. */
const INSTALL_MARGIN_MS = 10 * MINUTE_MS;
/** An event that signs the user in; the customer user id applies from it on. */
const AUTH_TYPES: ReadonlySet<EventType> = new Set(["LOGIN", "SIGN_UP", "REGISTER"]);

const EVENT_NULLS = nullColumns(EVENTS_TABLE);
const ATTRIBUTION_NULLS = nullColumns(ATTRIBUTIONS_TABLE);

const iso = (time: number): string => new Date(time).toISOString();

/** SDK to stream: mostly sub-second, sometimes a slow network, now and then an offline queue. */
const deliveryDelay = (random: Random): number => {
  const roll = random.next();
  if (roll < 0.85) return Math.floor(random.between(80, 1_500));
  if (roll < 0.98) return Math.floor(random.between(1_500, 30_000));
  return Math.floor(random.between(MINUTE_MS, 20 * MINUTE_MS));
};

interface AppContext {
  readonly app: DemoApp;
  readonly random: Random;
  readonly sources: readonly MediaSource[];
  readonly fx: FxRates;
  readonly end: number;
  /** The store currency per country, restricted to currencies the FX table can convert. */
  readonly currencyOf: ReadonlyMap<Market, string>;
}

function* installRecords(
  ctx: AppContext,
  profile: InstallProfile,
  tour: boolean,
): Generator<DemoRecord> {
  const { app, random, fx, end } = ctx;
  const [firstVersion, ...laterVersions] = profile.attributions;
  const attribution = (version: (typeof profile.attributions)[number]): DemoRecord => ({
    table: "attributions",
    record: {
      ...ATTRIBUTION_NULLS,
      app_id: app.appId,
      service_id: profile.serviceId,
      attributed_at: iso(version.attributedAt),
      ...version.fields,
    },
  });
  if (firstVersion) yield attribution(firstVersion);

  const currency = ctx.currencyOf.get(profile.market) ?? "USD";
  const base = {
    ...EVENT_NULLS,
    app_id: app.appId,
    service_id: profile.serviceId,
    country: profile.market.country,
    os: app.platform,
    app_name: app.appName,
    idfv: profile.idfv,
    maid: profile.maid,
  };
  let customerUserId: string | null = null;
  for (const event of planEvents(random, profile, { end, currency, tour })) {
    if (profile.customerUserId !== null && AUTH_TYPES.has(event.type))
      customerUserId = profile.customerUserId;
    // The attribution worker emits the install event once it has matched the install.
    const receivedAt =
      event.type === "INSTALL" && firstVersion
        ? firstVersion.attributedAt + Math.floor(random.between(50, 500))
        : event.time + deliveryDelay(random);
    const eventTime = iso(event.time);
    const { revenue } = event;
    const record: LakeRecord = {
      ...base,
      event_id: random.uuid(),
      event_time: eventTime,
      event_name: exportEventName(event.type, event.customName),
      customer_user_id: customerUserId,
      revenue: revenue?.amount ?? null,
      currency: revenue?.currency ?? null,
      // The demo window usually lies after the shipped ECB table ends, so it deliberately
      // carries the newest known rate forward without limit; the service itself does not.
      revenue_usd: revenue
        ? fx.toUsd(revenue.amount, revenue.currency, eventTime.slice(0, 10), {
            maxCarryDays: Number.POSITIVE_INFINITY,
          })
        : null,
      received_at: iso(receivedAt),
    };
    // What has not arrived by `end` is not in the lake yet.
    if (receivedAt > end) continue;
    yield { table: "events", record };
    if (random.chance(DUPLICATE_SHARE)) {
      const retriedAt = receivedAt + Math.floor(random.between(2_000, 15 * MINUTE_MS));
      if (retriedAt <= end)
        yield { table: "events", record: { ...record, received_at: iso(retriedAt) } };
    }
  }
  for (const version of laterVersions) yield attribution(version);
}

function* appRecords(
  app: DemoApp,
  options: DemoOptions,
  start: number,
  end: number,
): Generator<DemoRecord> {
  // Seeded per app, so an app's data does not depend on which other apps are generated.
  const random = createRandom(hashString(`${options.seed ?? 1}/${app.appId}`));
  const known = new Set(options.fx.currencies);
  const currencyOf = new Map(
    MARKETS.map((m) => [m, known.has(m.currency) && PRICE_TIERS[m.currency] ? m.currency : "USD"]),
  );
  const ctx: AppContext = {
    app,
    random,
    sources: mediaSourcesFor(app),
    fx: options.fx,
    end,
    currencyOf,
  };
  const latestOpen = Math.max(start, end - INSTALL_MARGIN_MS);
  for (let i = 0; i < options.installs; i++) {
    // The first install of each app is scripted through every event type, so even a tiny demo
    // shows them all; it opens early in the window so its whole first session fits.
    const tour = i === 0;
    const until = tour ? start + Math.min((end - start) / 2, 12 * HOUR_MS) : latestOpen;
    const profile = createInstall(
      { app, sources: ctx.sources, random, end },
      (market) => sampleTime(random, start, until, market.utcOffsetMinutes) ?? start,
      { forceIdentified: tour },
    );
    yield* installRecords(ctx, profile, tour);
  }
}

export function* generateDemo(options: DemoOptions): Generator<DemoRecord> {
  const end = options.end.getTime();
  if (!Number.isFinite(end)) throw new RangeError("demo: end must be a valid date");
  if (!(Number.isFinite(options.days) && options.days > 0))
    throw new RangeError("demo: days must be > 0");
  if (!(Number.isInteger(options.installs) && options.installs >= 0)) {
    throw new RangeError("demo: installs must be a whole number >= 0");
  }
  const start = end - options.days * DAY_MS;
  for (const app of options.apps) yield* appRecords(app, options, start, end);
}

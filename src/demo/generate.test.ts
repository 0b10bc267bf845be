import { beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES, exportEventName } from "../domain/event-types.ts";
import { type FxRates, loadEcbRates, parseEcbRates } from "../fx/ecb-rates.ts";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE, type LakeRecord } from "../lake/tables.ts";
import { type DemoApp, type DemoRecord, generateDemo } from "./generate.ts";
import { MARKETS } from "./markets.ts";

const APPS: readonly DemoApp[] = [
  { appId: "com.example.game", appName: "Example Game", platform: "android" },
  { appId: "com.example.shop", appName: "Example Shop", platform: "ios" },
];
const END = new Date("2026-11-07T13:45:12.345Z");
const DAYS = 14;
const INSTALLS = 2_000;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const AUTH_NAMES = new Set(
  (["LOGIN", "SIGN_UP", "REGISTER"] as const).map((type) => exportEventName(type)),
);
const REVENUE_NAMES = new Set(["service_purchase", "service_subscribe", "service_start_trial"]);
const STANDARD_NAMES = new Map(
  EVENT_TYPES.filter((t) => t !== "CUSTOM").map((t) => [exportEventName(t), t] as const),
);

let fx: FxRates;
let events: LakeRecord[];
let attributions: LakeRecord[];

const str = (value: unknown): string => {
  if (typeof value !== "string") throw new TypeError(`expected a string, got ${String(value)}`);
  return value;
};
const time = (value: unknown): number => Date.parse(str(value));
const take = (iterable: Iterable<DemoRecord>, n: number): DemoRecord[] => {
  const out: DemoRecord[] = [];
  for (const item of iterable) {
    if (out.length >= n) break;
    out.push(item);
  }
  return out;
};
const groupBy = <T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
};
/** Each event once (the first delivery), in time order. */
const unique = (records: readonly LakeRecord[]): LakeRecord[] => {
  const seen = new Set<unknown>();
  return records
    .filter((r) => !seen.has(r.event_id) && seen.add(r.event_id))
    .sort((a, b) => time(a.event_time) - time(b.event_time));
};
const ofApp = (records: readonly LakeRecord[], appId: string) =>
  records.filter((r) => r.app_id === appId);
/** First attribution version of each install. */
const firstVersions = (records: readonly LakeRecord[]): LakeRecord[] =>
  [...groupBy(records, (r) => str(r.service_id)).values()].flatMap((versions) =>
    [...versions].sort((a, b) => time(a.attributed_at) - time(b.attributed_at)).slice(0, 1),
  );

beforeAll(async () => {
  fx = await loadEcbRates();
  events = [];
  attributions = [];
  const started = performance.now();
  for (const { table, record } of generateDemo({
    apps: APPS,
    days: DAYS,
    installs: INSTALLS,
    end: END,
    seed: 42,
    fx,
  })) {
    (table === "events" ? events : attributions).push(record);
  }
  const ms = Math.round(performance.now() - started);
  console.log(
    `demo: ${APPS.length} apps x ${INSTALLS} installs x ${DAYS} days -> ${events.length} events and ${attributions.length} attributions (${events.length + attributions.length} records) in ${ms} ms`,
  );
});

describe("generateDemo", () => {
  it("is deterministic for a seed and differs across seeds", () => {
    const run = (seed: number) =>
      take(generateDemo({ apps: APPS, days: 7, installs: 50, end: END, seed, fx }), 300);
    expect(run(7)).toEqual(run(7));
    const ids = (records: DemoRecord[]) =>
      records.map((r) => r.record.event_id ?? r.record.service_id);
    expect(ids(run(8))).not.toEqual(ids(run(7)));
  });

  it("gives every record exactly its table's columns plus app_id", () => {
    const expected = (columns: readonly { name: string }[]) =>
      [...columns.map((c) => c.name), "app_id"].sort();
    const keys = (records: readonly LakeRecord[]) =>
      new Set(records.map((r) => JSON.stringify(Object.keys(r).sort())));
    expect(keys(events)).toEqual(new Set([JSON.stringify(expected(EVENTS_TABLE.columns))]));
    expect(keys(attributions)).toEqual(
      new Set([JSON.stringify(expected(ATTRIBUTIONS_TABLE.columns))]),
    );
  });

  it("writes timestamps as ISO 8601 UTC with milliseconds, received shortly after the event", () => {
    const bad = events.filter((r) => {
      const delay = time(r.received_at) - time(r.event_time);
      return (
        !ISO_MS.test(str(r.event_time)) ||
        !ISO_MS.test(str(r.received_at)) ||
        !(delay > 0 && delay < 40 * 60_000)
      );
    });
    expect(bad).toEqual([]);
    expect(attributions.filter((r) => !ISO_MS.test(str(r.attributed_at)))).toEqual([]);
  });

  it("keeps every event within [end - days, end] and nothing received after end", () => {
    const start = END.getTime() - DAYS * 86_400_000;
    const end = END.getTime();
    const outside = events.filter(
      (r) => time(r.event_time) < start || time(r.event_time) > end || time(r.received_at) > end,
    );
    expect(outside).toEqual([]);
    expect(attributions.filter((r) => time(r.attributed_at) > end)).toEqual([]);
    // Installs reach back to the start of the window, and events up to its end.
    const times = events.map((r) => time(r.event_time));
    expect(Math.min(...times) - start).toBeLessThan(6 * 3_600_000);
    expect(end - Math.max(...times)).toBeLessThan(3_600_000);
  });

  it("has one install event per install, first among the install's events", () => {
    for (const app of APPS) {
      const installs = new Set(ofApp(attributions, app.appId).map((r) => r.service_id));
      expect(installs.size).toBe(INSTALLS);
      for (const [serviceId, list] of groupBy(unique(ofApp(events, app.appId)), (r) =>
        str(r.service_id),
      )) {
        expect(installs.has(serviceId)).toBe(true);
        expect(list[0]?.event_name).toBe("service_install");
        expect(list.filter((r) => r.event_name === "service_install")).toHaveLength(1);
      }
    }
  });

  it("uses every EventType for each app, even in a tiny demo", () => {
    const tiny = [...generateDemo({ apps: APPS, days: 1, installs: 1, end: END, seed: 3, fx })];
    for (const records of [events, tiny.filter((r) => r.table === "events").map((r) => r.record)]) {
      for (const app of APPS) {
        const seen = new Set(
          ofApp(records, app.appId).map((r) => STANDARD_NAMES.get(str(r.event_name)) ?? "CUSTOM"),
        );
        expect([...seen].sort()).toEqual([...EVENT_TYPES].sort());
      }
    }
    expect(new Set(events.map((r) => r.event_name))).toContain("service_boss_defeated");
  });

  it("spreads installs over every day with a daily rhythm in local time", () => {
    const installs = events.filter((r) => r.event_name === "service_install");
    const days = new Set(installs.map((r) => str(r.event_time).slice(0, 10)));
    expect(days.size).toBeGreaterThanOrEqual(DAYS);
    const offsets = new Map(MARKETS.map((m) => [m.country, m.utcOffsetMinutes]));
    const localHour = (r: LakeRecord) =>
      new Date(time(r.event_time) + (offsets.get(str(r.country)) ?? 0) * 60_000).getUTCHours();
    const night = installs.filter((r) => localHour(r) >= 2 && localHour(r) < 6).length;
    const evening = installs.filter((r) => localHour(r) >= 18 && localHour(r) < 22).length;
    expect(evening).toBeGreaterThan(3 * night);
  });

  it("makes about 35-45 % of installs organic, with no other attribution field but install_type", () => {
    for (const app of APPS) {
      const first = firstVersions(ofApp(attributions, app.appId));
      const organic = first.filter((r) => r.media_source === "organic");
      expect(organic.length / first.length).toBeGreaterThan(0.35);
      expect(organic.length / first.length).toBeLessThan(0.45);
    }
    for (const record of attributions.filter((r) => r.media_source === "organic")) {
      const filled = ATTRIBUTIONS_TABLE.columns
        .map((c) => c.name)
        .filter(
          (name) => !["service_id", "attributed_at", "media_source", "install_type"].includes(name),
        )
        .filter((name) => record[name] !== null);
      expect(filled).toEqual([]);
    }
  });

  it("attributes paid installs consistently: network is high, geo medium or low", () => {
    const paid = attributions.filter((r) => r.media_source !== "organic");
    for (const record of paid) {
      expect(record.campaign_id).not.toBeNull();
      expect(record.adset_name).not.toBeNull();
      if (record.matching_type === "network") expect(record.confidence_score).toBe("high");
      else {
        expect(record.matching_type).toBe("geo");
        expect(["medium", "low"]).toContain(record.confidence_score);
      }
      const hours = record.click_to_first_open_hours;
      expect(
        Number.isInteger(hours) && typeof hours === "number" && hours >= 0 && hours <= 48,
      ).toBe(true);
    }
    const geo = paid.filter((r) => r.matching_type === "geo").length;
    expect(geo / paid.length).toBeGreaterThan(0.03);
    expect(geo / paid.length).toBeLessThan(0.3);
    const sources = new Set(paid.map((r) => r.media_source));
    for (const source of [
      "meta_ads",
      "googleadwords_int",
      "tiktokglobal_int",
      "unityads_int",
      "applovin_int",
    ]) {
      expect(sources).toContain(source);
    }
    const asa = paid.filter((r) => r.media_source === "apple_search_ads");
    expect(asa.length).toBeGreaterThan(0);
    expect(asa.every((r) => r.app_id === "com.example.shop")).toBe(true);
  });

  it("keeps campaign ids and names stable, whatever the seed", () => {
    const pairs = (records: readonly LakeRecord[]) =>
      new Set(
        records
          .filter((r) => r.campaign_id !== null)
          .map((r) => `${r.campaign_id}|${r.campaign_name}`),
      );
    const all = pairs(attributions);
    const byId = groupBy([...all], (pair) => pair.split("|")[0] ?? "");
    for (const names of byId.values()) expect(names).toHaveLength(1);
    expect(all.size).toBeLessThan(60); // a few campaigns per network, not one per install
    const other = [...generateDemo({ apps: APPS, days: 7, installs: 300, end: END, seed: 99, fx })];
    for (const pair of pairs(
      other.filter((r) => r.table === "attributions").map((r) => r.record),
    )) {
      expect(all).toContain(pair);
    }
  });

  it("re-attributes a small share of installs with a later version", () => {
    const versions = [...groupBy(attributions, (r) => str(r.service_id)).values()];
    const twice = versions.filter((v) => v.length === 2);
    expect(versions.every((v) => v.length <= 2)).toBe(true);
    expect(twice.length / versions.length).toBeGreaterThan(0.01);
    expect(twice.length / versions.length).toBeLessThan(0.06);
    for (const [first, second] of twice) {
      expect(time(second?.attributed_at)).toBeGreaterThan(time(first?.attributed_at));
      expect(second?.matching_type).toBe("network");
    }
  });

  it("follows the platform rules for idfv, maid, install_type and os", () => {
    const android = ofApp(events, "com.example.game");
    const ios = ofApp(events, "com.example.shop");
    expect(android.every((r) => r.os === "android" && r.idfv === null)).toBe(true);
    expect(ios.every((r) => r.os === "ios" && /^[0-9A-F-]{36}$/.test(str(r.idfv)))).toBe(true);

    const maidShare = (records: readonly LakeRecord[]) => {
      const installs = records.filter((r) => r.event_name === "service_install");
      return installs.filter((r) => r.maid !== null).length / installs.length;
    };
    expect(maidShare(android)).toBeGreaterThan(0.8);
    expect(maidShare(ios)).toBeGreaterThan(0.1);
    expect(maidShare(ios)).toBeLessThan(0.35);

    expect(ofApp(attributions, "com.example.game").every((r) => r.install_type === null)).toBe(
      true,
    );
    const types = ofApp(attributions, "com.example.shop").map((r) => r.install_type);
    expect(new Set(types)).toEqual(new Set(["new_install", "reinstall_same_device"]));
    const reinstalls = types.filter((t) => t === "reinstall_same_device").length;
    expect(reinstalls / types.length).toBeLessThan(0.15);
  });

  it("keeps each install's device fields the same on every event", () => {
    for (const list of groupBy(events, (r) => str(r.service_id)).values()) {
      const shape = (r: LakeRecord) => [r.country, r.os, r.app_name, r.idfv, r.maid].join("|");
      expect(new Set(list.map(shape)).size).toBe(1);
    }
  });

  it("sets customer_user_id from the first sign-in on, for about 60 % of installs", () => {
    let identified = 0;
    let installs = 0;
    for (const list of groupBy(unique(events), (r) => str(r.service_id)).values()) {
      installs++;
      const firstAuth = list.findIndex((r) => AUTH_NAMES.has(str(r.event_name)));
      if (firstAuth < 0) {
        expect(list.every((r) => r.customer_user_id === null)).toBe(true);
        continue;
      }
      identified++;
      expect(list.slice(0, firstAuth).every((r) => r.customer_user_id === null)).toBe(true);
      const after = new Set(list.slice(firstAuth).map((r) => r.customer_user_id));
      expect(after.size).toBe(1);
      expect(after.has(null)).toBe(false);
    }
    expect(identified / installs).toBeGreaterThan(0.5);
    expect(identified / installs).toBeLessThan(0.7);
  });

  it("sets revenue fields only on revenue events, with revenue_usd from the FX table", () => {
    const currencies = new Set<unknown>();
    for (const record of events) {
      const name = str(record.event_name);
      if (!REVENUE_NAMES.has(name)) {
        expect([record.revenue, record.currency, record.revenue_usd]).toEqual([null, null, null]);
        continue;
      }
      const revenue = record.revenue;
      if (typeof revenue !== "number") throw new TypeError("revenue event without revenue");
      currencies.add(record.currency);
      if (name === "service_start_trial") expect(revenue).toBe(0);
      else expect(revenue).toBeGreaterThan(0);
      const usd = fx.toUsd(revenue, str(record.currency), str(record.event_time).slice(0, 10), {
        maxCarryDays: Number.POSITIVE_INFINITY,
      });
      expect(usd).not.toBeNull();
      expect(record.revenue_usd).toBe(usd);
    }
    for (const code of ["USD", "EUR", "GBP", "JPY", "BRL", "INR"])
      expect(currencies).toContain(code);
  });

  it("falls back to USD prices when the FX table lacks a store currency", () => {
    const usdOnly = parseEcbRates("Date,USD,\n2026-01-02,1.1,\n");
    const records = [
      ...generateDemo({ apps: APPS, days: 3, installs: 200, end: END, seed: 5, fx: usdOnly }),
    ];
    const revenue = records
      .filter((r) => r.table === "events" && r.record.revenue !== null)
      .map((r) => r.record);
    expect(revenue.length).toBeGreaterThan(0);
    // The table knows only EUR (its base) and USD: every other store prices in USD.
    expect(new Set(revenue.map((r) => r.currency))).toEqual(new Set(["USD", "EUR"]));
    for (const record of revenue.filter((r) => r.currency === "USD")) {
      expect(record.revenue_usd).toBe(record.revenue);
    }
  });

  it("re-delivers about 0.5 % of events, identical but for a later received_at", () => {
    const copies = [...groupBy(events, (r) => str(r.event_id)).values()].filter(
      (c) => c.length > 1,
    );
    expect(copies.length / events.length).toBeGreaterThan(0.003);
    expect(copies.length / events.length).toBeLessThan(0.008);
    for (const [original, retry] of copies) {
      expect(time(retry?.received_at)).toBeGreaterThan(time(original?.received_at));
      expect({ ...retry, received_at: null }).toEqual({ ...original, received_at: null });
    }
  });

  it("rejects options it cannot honour", () => {
    const run = (patch: object) => [
      ...generateDemo({ apps: APPS, days: 1, installs: 1, end: END, fx, ...patch }),
    ];
    expect(() => run({ days: 0 })).toThrow(RangeError);
    expect(() => run({ installs: 1.5 })).toThrow(RangeError);
    expect(() => run({ end: new Date("nope") })).toThrow(RangeError);
    expect(run({ installs: 0 })).toEqual([]);
  });
});

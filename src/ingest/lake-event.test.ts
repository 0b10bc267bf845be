import { describe, expect, it } from "vitest";
import { parseEcbRates } from "../fx/ecb-rates.ts";
import { EVENTS_TABLE } from "../lake/lake-tables.ts";
import type { App } from "../ports/apps.ts";
import type { Install } from "../ports/installs.ts";
import { NOW, open, sdkEvent } from "./ingest.test-support.ts";
import { judgeEvents, type ValidEvent } from "./judge.ts";
import { toLakeEvent } from "./lake-event.ts";
import { sha256Marked } from "./pii.ts";

// Newest first, as the ECB ships it. 2026-09-11 is a Friday: the weekend carries its rate.
const fx = parseEcbRates(`Date,USD,GBP,JPY,
2026-09-16,1.20,0.80,160,
2026-09-15,1.10,0.85,161,
2026-09-11,1.05,0.84,162,
`);

const app: App = {
  appId: "com.example.game",
  name: "Example Game",
  platform: "ios",
  enabled: true,
  createdAt: "2026-01-01T00:00:00.000Z",
};

const install: Install = {
  appId: app.appId,
  serviceId: "svc-1",
  os: "ios",
  osVersion: "18.0",
  deviceModel: "iPhone16,1",
  appVersion: "1.0",
  sdkPlatform: "flutter",
  sdkVersion: "2.10.0",
  firstOpenTime: "2026-09-01T00:00:00.000Z",
  idfv: "6F9619FF-8B86-D011-B42D-00CF4FC964FF",
  maid: null,
  installReferrer: null,
  attStatus: null,
  openUrl: null,
  customerUserId: "user-0",
  consent: null,
  clockOffsetMs: null,
  locale: "en-US",
  timezone: "America/New_York",
  country: "US",
  receivedAt: "2026-09-01T00:00:01.000Z",
};

const ctx = {
  app,
  install,
  country: "GB",
  receivedAt: "2026-09-16T12:00:01.500Z",
  fx,
};

const validEvent = (overrides: Record<string, unknown>): ValidEvent => {
  const [verdict] = judgeEvents([sdkEvent(overrides)], { now: NOW, s2s: false, open });
  if (verdict?.kind !== "accepted") throw new Error(JSON.stringify(verdict));
  return verdict.event;
};

const usdOf = (event_time: string, revenue: number | string, currency: string) =>
  toLakeEvent(validEvent({ event_time, parameters: { revenue, currency } }), ctx).revenue_usd;

describe("toLakeEvent", () => {
  it("has exactly the events table's columns, the lake extras and app_id", () => {
    const record = toLakeEvent(validEvent({}), ctx);
    const expected = [...EVENTS_TABLE.columns.map((c) => c.name), "app_id"];
    expect(Object.keys(record).sort()).toEqual([...new Set(expected)].sort());
  });

  it("fills the event's and its install's fields", () => {
    const event = validEvent({
      event_type: "CUSTOM",
      event_name: "Boss Defeated",
      event_time: "2026-09-16T11:00:00.25+01:00",
      customer_user_id: "user-1",
      parameters: { revenue: "9.99", currency: "GBP", email: "A@b.c", level: 3, skip: null },
    });
    expect(toLakeEvent(event, ctx)).toEqual({
      app_id: "com.example.game",
      event_id: "evt-1",
      event_time: "2026-09-16T10:00:00.250Z",
      event_name: "service_boss_defeated",
      service_id: "svc-1",
      country: "GB",
      os: "ios",
      app_name: "Example Game",
      revenue: 9.99,
      currency: "GBP",
      idfv: "6F9619FF-8B86-D011-B42D-00CF4FC964FF",
      maid: null,
      customer_user_id: "user-1",
      revenue_usd: 14.985, // 9.99 / 0.80 * 1.20
      received_at: "2026-09-16T12:00:01.500Z",
      event_type: "CUSTOM",
      parameters: JSON.stringify({
        revenue: "9.99",
        currency: "GBP",
        email: sha256Marked("a@b.c"),
        level: 3,
      }),
    });
  });

  it("names standard events service_<type> and leaves the user id to the caller", () => {
    const record = toLakeEvent(validEvent({ event_type: "LEVEL_COMPLETE" }), ctx);
    expect(record.event_name).toBe("service_level_complete");
    expect(record.customer_user_id).toBeNull(); // not the install's user-0: the caller maps it
    expect(record.parameters).toBeNull();
    expect(record.revenue).toBeNull();
    expect(record.currency).toBeNull();
    expect(record.revenue_usd).toBeNull();
  });

  it("converts revenue at the rate of the event's UTC date", () => {
    // 2026-09-16T00:30+02:00 is still the 15th in UTC.
    expect(usdOf("2026-09-16T00:30:00+02:00", 10, "GBP")).toBe(12.941176); // 10 / 0.85 * 1.10
    expect(usdOf("2026-09-16T10:00:00Z", 10, "EUR")).toBe(12);
    expect(usdOf("2026-09-16T10:00:00Z", "1000", "JPY")).toBe(7.5);
  });

  it("carries the last known rate over a weekend", () => {
    expect(usdOf("2026-09-13T10:00:00Z", 10, "EUR")).toBe(10.5);
  });

  it("leaves revenue_usd null when no rate is known, never inventing one", () => {
    // ISO, but neither an ECB currency nor one pegged to the dollar (a basket's).
    expect(usdOf("2026-09-16T10:00:00Z", 10, "KWD")).toBeNull();
    expect(usdOf("2026-09-03T10:00:00Z", 10, "EUR")).toBeNull(); // before the table
    const record = toLakeEvent(validEvent({ parameters: { revenue: 10, currency: "KWD" } }), ctx);
    expect([record.revenue, record.currency]).toEqual([10, "KWD"]);
  });

  it("converts a currency pegged to the dollar at its peg, which the ECB publishes no rate of", () => {
    expect(usdOf("2026-09-16T10:00:00Z", 36.725, "AED")).toBe(10);
    expect(usdOf("2026-09-16T10:00:00Z", "18.75", "sar")).toBe(5);
    // Before the table's first day too: a peg is every day's rate.
    expect(usdOf("2026-09-03T10:00:00Z", 7.28, "QAR")).toBe(2);
  });

  it("converts a currency fixed to the euro at its peg and the day's euro rate", () => {
    // 6,559.57 XOF is 10 EUR, at the rate a euro carries that day.
    expect(usdOf("2026-09-13T10:00:00Z", 6_559.57, "XOF")).toBe(
      usdOf("2026-09-13T10:00:00Z", 10, "EUR"),
    );
    expect(usdOf("2026-09-13T10:00:00Z", 6_559.57, "XOF")).toBe(10.5);
    // No euro rate of the day, no dollar amount.
    expect(usdOf("2026-09-03T10:00:00Z", 655.957, "XOF")).toBeNull();
  });

  it("returns USD amounts unchanged", () => {
    expect(usdOf("2026-09-16T10:00:00Z", 4.99, "USD")).toBe(4.99);
  });

  it("takes the install's os, idfv and maid, not the app's platform", () => {
    const android: Install = {
      ...install,
      os: "android",
      idfv: null,
      maid: "38400000-8cf0-11bd-b23e-10b96e40000d",
    };
    const record = toLakeEvent(validEvent({}), { ...ctx, install: android });
    expect([record.os, record.idfv, record.maid]).toEqual([
      "android",
      null,
      "38400000-8cf0-11bd-b23e-10b96e40000d",
    ]);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../domain/event-types.ts";
import { type FxRates, loadEcbRates, parseEcbRates } from "../fx/ecb-rates.ts";
import { eventSchema } from "../ingest/event-schema.ts";
import { installRequestSchema } from "../ingest/install.ts";
import { touchSchema } from "../touches/touch-request.ts";
import type { Addresses } from "./addresses.ts";
import { type AppTraffic, type DemoApp, type DemoInstall, generateDemo } from "./generate.ts";
import { MARKETS } from "./markets.ts";
import { installBody, touchBody } from "./requests.ts";

const APPS: readonly DemoApp[] = [
  { appId: "com.example.game", appName: "Example Game", platform: "android" },
  { appId: "com.example.shop", appName: "Example Shop", platform: "ios" },
];
// Within the shipped ECB table's days, so every store currency converts on each day.
const END = new Date("2025-05-07T13:45:12.345Z");
const DAYS = 14;
const INSTALLS = 2_000;
const HOUR = 3_600_000;
const AUTH_TYPES = new Set(["LOGIN", "SIGN_UP", "REGISTER"]);
const REVENUE_TYPES = new Set(["PURCHASE", "SUBSCRIBE", "START_TRIAL"]);

/**
 * Addresses that say their country and kind, so a test can tell where a device is; the real
 * ones come from the country database (./addresses.test.ts).
 */
const fakeAddresses = (): Addresses => {
  let homes = 0;
  const octet = (country: string) => MARKETS.findIndex((m) => m.country === country) + 1;
  return {
    home: (country) => `10.${octet(country)}.${(++homes >> 8) & 255}.${homes & 255}`,
    carrier: (country) => `100.${octet(country)}.0.1`,
  };
};
const countryOf = (ip: string) => MARKETS[Number(ip.split(".")[1]) - 1]?.country;

let fx: FxRates;
let traffic: AppTraffic[];
const options = (patch: object = {}) => ({
  days: DAYS,
  installs: INSTALLS,
  end: END,
  seed: 42,
  fx,
  addresses: fakeAddresses(),
  ...patch,
});
const appOf = (platform: string) => {
  const found = traffic.find((t) => t.app.platform === platform);
  if (!found) throw new Error(`no ${platform} app`);
  return found;
};
const allInstalls = (): DemoInstall[] => traffic.flatMap((t) => t.installs);
/** Each event once, in sending order (an SDK's retries leave out). */
const firstDeliveries = (install: DemoInstall) => {
  const seen = new Set<string>();
  return install.events.filter((e) => !seen.has(e.event_id) && seen.add(e.event_id));
};

beforeAll(async () => {
  fx = await loadEcbRates();
  const started = performance.now();
  traffic = generateDemo(APPS, options());
  const events = allInstalls().reduce((sum, i) => sum + i.events.length, 0);
  console.log(
    `demo: ${APPS.length} apps x ${INSTALLS} installs x ${DAYS} days -> ${events} events in ${Math.round(performance.now() - started)} ms`,
  );
});

describe("generateDemo", () => {
  it("is deterministic for a seed and differs across seeds", () => {
    const run = (seed: number) => generateDemo(APPS, options({ days: 3, installs: 40, seed }));
    expect(run(7)).toEqual(run(7));
    const ids = (t: AppTraffic[]) => t.flatMap((a) => a.installs.map((i) => i.profile.serviceId));
    expect(ids(run(8))).not.toEqual(ids(run(7)));
  });

  it("sends only what the API takes: every install, touch and event body parses", () => {
    for (const { installs, live, strays } of traffic) {
      for (const { profile, events } of installs) {
        expect(installRequestSchema.safeParse(installBody(profile)).error).toBeUndefined();
        for (const event of events) expect(eventSchema.safeParse(event).error).toBeUndefined();
        if (profile.cause.kind === "network") {
          const body = touchBody(profile.cause.touch, "Kx3v9QpZ2aQ");
          expect(touchSchema.safeParse(body).error).toBeUndefined();
        }
      }
      for (const { profile } of live) {
        const body = installBody(profile, {
          firstOpen: END.getTime(),
          referrer: "service_click_id=x",
        });
        expect(installRequestSchema.safeParse(body).error).toBeUndefined();
      }
      for (const stray of strays)
        expect(touchSchema.safeParse(touchBody(stray, null)).error).toBeUndefined();
    }
  });

  it("keeps installs in first-open order and every event within [end - days, end]", () => {
    const start = END.getTime() - DAYS * 86_400_000;
    for (const { installs } of traffic) {
      const opens = installs.map((i) => i.profile.firstOpen);
      expect(opens).toEqual([...opens].sort((a, b) => a - b));
      expect(opens.every((t) => t >= start && t <= END.getTime())).toBe(true);
      for (const install of installs) {
        const times = firstDeliveries(install).map((e) => Date.parse(e.event_time));
        expect(times).toEqual([...times].sort((a, b) => a - b));
        expect(times.every((t) => t >= install.profile.firstOpen && t <= END.getTime())).toBe(true);
      }
    }
  });

  it("never sends an INSTALL event, and uses every other type for each app, even in a tiny demo", () => {
    const tiny = generateDemo(APPS, options({ days: 1, installs: 1, seed: 3 }));
    for (const run of [traffic, tiny]) {
      for (const app of run) {
        const types = new Set(app.installs.flatMap((i) => i.events.map((e) => e.event_type)));
        expect([...types].sort()).toEqual(EVENT_TYPES.filter((t) => t !== "INSTALL").sort());
      }
    }
  });

  it("has an install found by address and phone alone in every small demo, whatever its end", () => {
    // The CLI's demo is a few dozen installs ending now: its chance draws alone may leave no
    // prompt click at home, and its table would show the method finding nothing.
    for (let hour = 0; hour < 24; hour += 1) {
      for (const app of generateDemo(
        APPS,
        options({ days: 2, installs: 60, seed: 1, end: new Date(END.getTime() + hour * HOUR) }),
      )) {
        const shown = app.installs.filter(({ profile }) => {
          const { cause } = profile;
          if (cause.kind !== "network" || cause.touch.maid !== null) return false;
          const lead = profile.firstOpen - cause.touch.time;
          return (
            cause.touch.ip === profile.ip &&
            !profile.mobileData &&
            lead > 0 &&
            lead <= 10 * 60_000 &&
            cause.touch.userAgent.includes(
              profile.device.os === "ios"
                ? `Version/${profile.device.osVersion}`
                : profile.device.model,
            )
          );
        });
        // And no other phone's click from its address, reported or tapped.
        const others = new Set([...app.strays, ...app.strayTaps].map((stray) => stray.ip));
        const alone = shown.filter(({ profile }) => !others.has(profile.ip));
        expect(alone.length, `${app.app.appId}, ending ${hour} h later`).toBeGreaterThan(0);
      }
    }
  });

  it("spreads installs over every day with a daily rhythm in local time", () => {
    const installs = allInstalls().map((i) => i.profile);
    expect(
      new Set(installs.map((p) => new Date(p.firstOpen).toISOString().slice(0, 10))).size,
    ).toBeGreaterThanOrEqual(DAYS);
    const localHour = (p: (typeof installs)[number]) =>
      new Date(p.firstOpen + p.market.utcOffsetMinutes * 60_000).getUTCHours();
    const night = installs.filter((p) => localHour(p) >= 2 && localHour(p) < 6).length;
    const evening = installs.filter((p) => localHour(p) >= 18 && localHour(p) < 22).length;
    expect(evening).toBeGreaterThan(3 * night);
  });

  it("makes about 35-45 % of past installs organic", () => {
    for (const { installs } of traffic) {
      const organic = installs.filter((i) => i.profile.cause.kind === "organic").length;
      expect(organic / installs.length).toBeGreaterThan(0.35);
      expect(organic / installs.length).toBeLessThan(0.45);
    }
  });

  it("puts each paid install's touch where the service's windows can find it", () => {
    for (const { profile } of allInstalls()) {
      const { cause } = profile;
      if (cause.kind === "organic") continue;
      if (cause.kind !== "network") throw new Error("a past install is never caused by a tap");
      const lead = profile.firstOpen - cause.touch.time;
      expect(lead).toBeGreaterThan(0);
      if (cause.touch.maid !== null) {
        // The network saw the install's own advertising id: within the click or view window.
        expect(cause.touch.maid).toBe(profile.maid);
        expect(lead).toBeLessThanOrEqual((cause.touch.touchType === "click" ? 7 * 24 : 24) * HOUR);
      } else {
        // Only the address and the phone: from the install's address, within 6 hours.
        expect(cause.touch.touchType).toBe("click");
        expect(cause.touch.ip).toBe(profile.ip);
        expect(lead).toBeLessThanOrEqual(6 * HOUR);
      }
      expect(countryOf(cause.touch.ip)).toBe(profile.market.country);
    }
  });

  it("follows the platform rules for identifiers and consent", () => {
    for (const { profile } of appOf("android").installs) {
      expect(profile.device.os).toBe("android");
      expect([profile.idfv, profile.attStatus, profile.reinstall]).toEqual([null, null, false]);
    }
    const ios = appOf("ios").installs.map((i) => i.profile);
    for (const profile of ios) {
      expect(profile.device.os).toBe("ios");
      expect(profile.idfv).toMatch(/^[0-9A-F-]{36}$/);
      // An IDFA only with App Tracking Transparency authorized.
      expect(profile.maid !== null).toBe(profile.attStatus === "authorized");
    }
    // A reinstall brings back the IDFV of an earlier install on the same phone.
    const reinstalls = ios.filter((p) => p.reinstall);
    expect(reinstalls.length / ios.length).toBeGreaterThan(0.04);
    for (const again of reinstalls) {
      expect(ios.some((p) => p.idfv === again.idfv && p.firstOpen < again.firstOpen)).toBe(true);
    }
  });

  it("crowds every carrier's address with other phones' clicks before an install behind it", () => {
    for (const { installs, strays } of traffic) {
      for (const { profile } of installs.filter((i) => i.profile.mobileData)) {
        const neighbours = strays.filter(
          (s) =>
            s.ip === profile.ip &&
            s.time < profile.firstOpen &&
            s.time > profile.firstOpen - 6 * HOUR,
        );
        expect(neighbours.length).toBeGreaterThanOrEqual(6);
      }
    }
  });

  it("makes a few installs now, on Android only, each after a tap on the app's link", () => {
    expect(appOf("android").live).toHaveLength(INSTALLS * 0.03);
    expect(appOf("ios").live).toHaveLength(0);
    for (const { profile, events } of appOf("android").live) {
      expect(profile.cause.kind).toBe("tap");
      expect(events).toEqual([]);
    }
    for (const { strayTaps, previews } of traffic) {
      expect(previews.some((t) => /facebookexternalhit/.test(t.userAgent))).toBe(true);
      expect(strayTaps.some((t) => /facebookexternalhit|Discordbot/.test(t.userAgent))).toBe(false);
    }
  });

  it("sets customer_user_id from the first sign-in on, for about 60 % of installs", () => {
    let identified = 0;
    for (const install of allInstalls()) {
      const events = firstDeliveries(install);
      const firstAuth = events.findIndex((e) => AUTH_TYPES.has(e.event_type));
      if (firstAuth < 0) {
        expect(events.every((e) => e.customer_user_id === undefined)).toBe(true);
        continue;
      }
      identified++;
      expect(events.slice(0, firstAuth).every((e) => e.customer_user_id === undefined)).toBe(true);
      const after = new Set(events.slice(firstAuth).map((e) => e.customer_user_id));
      expect([...after]).toEqual([install.profile.customerUserId]);
    }
    expect(identified / allInstalls().length).toBeGreaterThan(0.5);
    expect(identified / allInstalls().length).toBeLessThan(0.7);
  });

  it("puts revenue and a store currency only on revenue events", () => {
    const currencies = new Set<unknown>();
    for (const event of allInstalls().flatMap((i) => i.events)) {
      if (!REVENUE_TYPES.has(event.event_type)) {
        expect(event.parameters).toBeUndefined();
        continue;
      }
      currencies.add(event.parameters?.currency);
      const revenue = event.parameters?.revenue;
      if (event.event_type === "START_TRIAL") expect(revenue).toBe(0);
      else expect(revenue).toBeGreaterThan(0);
    }
    for (const code of ["USD", "EUR", "GBP", "JPY", "BRL", "INR"])
      expect(currencies).toContain(code);
  });

  it("falls back to USD prices when the FX table lacks a store currency", () => {
    const usdOnly = parseEcbRates("Date,USD,\n2025-05-01,1.1,\n");
    const run = generateDemo(APPS, options({ days: 3, installs: 200, seed: 5, fx: usdOnly }));
    const currencies = run.flatMap((a) =>
      a.installs.flatMap((i) => i.events.flatMap((e) => e.parameters?.currency ?? [])),
    );
    expect(currencies.length).toBeGreaterThan(0);
    // The table knows only EUR (its base) and USD: every other store prices in USD.
    expect(new Set(currencies)).toEqual(new Set(["USD", "EUR"]));
  });

  it("prices in USD when the rates end before the window (offline, an old table)", () => {
    const old = parseEcbRates("Date,USD,GBP,\n2025-01-02,1.1,0.8,\n");
    const run = generateDemo(APPS, options({ days: 3, installs: 200, seed: 5, fx: old }));
    const currencies = run.flatMap((a) =>
      a.installs.flatMap((i) => i.events.flatMap((e) => e.parameters?.currency ?? [])),
    );
    expect(currencies.length).toBeGreaterThan(0);
    expect(new Set(currencies)).toEqual(new Set(["USD"]));
    // Its euro networks' cost rows too: a row no rate converts would count in no cost.
    expect(new Set(run.flatMap((a) => a.costs.map((row) => row.currency)))).toEqual(
      new Set(["USD"]),
    );
    const fresh = generateDemo(APPS, options({ days: 3, installs: 200, seed: 5 }));
    expect(new Set(fresh.flatMap((a) => a.costs.map((row) => row.currency)))).toEqual(
      new Set(["USD", "EUR"]),
    );
  });

  it("sends about 0.5 % of events twice, as an SDK retries after a lost answer", () => {
    const events = allInstalls().flatMap((i) => i.events);
    const ids = new Set(events.map((e) => e.event_id));
    const retries = events.length - ids.size;
    expect(retries / events.length).toBeGreaterThan(0.003);
    expect(retries / events.length).toBeLessThan(0.008);
  });

  it("rejects options it cannot honour", () => {
    const run = (patch: object) => generateDemo(APPS, options({ days: 1, installs: 1, ...patch }));
    expect(() => run({ days: 0 })).toThrow(RangeError);
    expect(() => run({ days: 22 })).toThrow(RangeError);
    expect(() => run({ installs: 1.5 })).toThrow(RangeError);
    expect(() => run({ installs: 0 })).toThrow(RangeError);
    expect(() => run({ end: new Date("nope") })).toThrow(RangeError);
  });
});

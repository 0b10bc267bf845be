import { describe, expect, it } from "vitest";
import { referrerClickOffsetMs } from "../domain/device-clock.ts";
import type { InstallFacts } from "../domain/install-facts.ts";
import type { Touch } from "../ports/touches.ts";
import { NO_CAMPAIGN } from "../touches/touch.ts";
import { installClock } from "./install-clock.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
/** The service's clock at the first open. */
const OPEN = Date.parse("2026-11-24T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
/** A time by the service's clock as a phone `slowMs` slow writes it in Play's whole seconds. */
const playTime = (serviceMs: number, slowMs: number) =>
  iso(Math.floor((serviceMs - slowMs) / SECOND) * SECOND);

const tap = (at: number, overrides: Partial<Touch> = {}): Touch => ({
  clickId: "tap-1",
  appId: "com.a",
  touchType: "click",
  source: "link",
  touchTime: iso(at),
  receivedAt: iso(at),
  deeplinkId: null,
  mediaSource: "network_a",
  ...NO_CAMPAIGN,
  networkClickId: null,
  ip: null,
  userAgent: null,
  platform: "android",
  osVersion: null,
  deviceModel: null,
  language: null,
  country: null,
  maid: null,
  params: {},
  urlParams: {},
  cost: null,
  ...overrides,
});

const facts = (overrides: Partial<InstallFacts> = {}): InstallFacts => ({
  appId: "com.a",
  os: "android",
  osVersion: "14",
  deviceModel: "Pixel 8",
  firstOpenTime: iso(OPEN),
  receivedAt: iso(OPEN + 2 * SECOND),
  clockOffsetMs: null,
  maid: null,
  attStatus: null,
  referrerClickId: "tap-1",
  openUrlClickId: null,
  installBeganAt: null,
  deviceReferrerClickAt: null,
  deviceInstallBeganAt: null,
  ip: null,
  userAgent: null,
  platformAdsToken: null,
  ...overrides,
});

describe("the device's offset from the referrer's tap", () => {
  it("is the tap's time on the service's clock minus Play's click time on the phone's", () => {
    const tapped = OPEN - 3 * MINUTE;
    expect(referrerClickOffsetMs(tapped, (tapped - 15 * MINUTE) / SECOND)).toBe(15 * MINUTE);
    expect(referrerClickOffsetMs(tapped, (tapped + 2 * MINUTE) / SECOND)).toBe(-2 * MINUTE);
  });

  it("reads a slow phone's first open and install begin on the service's clock", () => {
    const slow = 15 * MINUTE;
    const tapped = OPEN - 3 * MINUTE;
    const clock = installClock(
      facts({
        firstOpenTime: iso(OPEN - slow),
        deviceReferrerClickAt: playTime(tapped + 2 * SECOND, slow),
        deviceInstallBeganAt: playTime(OPEN - 40 * SECOND, slow),
      }),
      tap(tapped),
    );
    expect(clock.offset?.from).toBe("referrer_click");
    // Play stamped the click 2 seconds after the tap: the phone's times read 2 seconds early.
    expect(clock.offset?.ms).toBe(slow - 2 * SECOND);
    expect(clock.firstOpen).toBe(OPEN - 2 * SECOND);
    expect(clock.installBegan).toBe(OPEN - 42 * SECOND);
    expect(clock.latestTouch).toBe(clock.installBegan);
  });

  it("keeps the phone's click and install begin in their order: a click after the begin is late", () => {
    const slow = 15 * MINUTE;
    const tapped = OPEN - 3 * MINUTE;
    for (const [beganBeforeClick, late] of [
      [30, true],
      [1, true],
      [0, false],
      [-5, false],
    ] as const) {
      const clock = installClock(
        facts({
          firstOpenTime: iso(OPEN - slow),
          deviceReferrerClickAt: playTime(tapped, slow),
          deviceInstallBeganAt: playTime(tapped - beganBeforeClick * SECOND, slow),
        }),
        tap(tapped),
      );
      expect(tapped > clock.latestTouch, `began ${beganBeforeClick} s before`).toBe(late);
    }
  });

  it("prefers the request's sent_at, and reads nothing from a tap not the service's own", () => {
    const tapped = OPEN - 3 * MINUTE;
    const withClick = { deviceReferrerClickAt: playTime(tapped, 15 * MINUTE) };
    const sent = installClock(facts({ ...withClick, clockOffsetMs: 5 * SECOND }), tap(tapped));
    expect(sent.offset).toEqual({ ms: 5 * SECOND, from: "sent_at" });
    for (const other of [
      tap(tapped, { source: "network" }),
      tap(tapped, { appId: "com.b" }),
      tap(tapped, { touchType: "impression" }),
      undefined,
    ]) {
      expect(installClock(facts(withClick), other).offset).toBeNull();
    }
    expect(installClock(facts(), tap(tapped)).offset).toBeNull();
  });

  it("never reads the first open after the service heard of the install", () => {
    // Play's click time a day early would put the phone's first open a day late.
    const tapped = OPEN - 3 * MINUTE;
    const clock = installClock(
      facts({ deviceReferrerClickAt: iso(tapped - 24 * 60 * MINUTE) }),
      tap(tapped),
    );
    expect(clock.firstOpen).toBe(OPEN + 2 * SECOND);
  });

  it("never reads the install's begin after its first open, so a click after the begin stays late", () => {
    // Play's click time a day early, the begin a minute before the first open by the phone's
    // clock: the begin would read a day late, and let any click before then through.
    const tapped = OPEN - 3 * MINUTE;
    const clock = installClock(
      facts({
        deviceReferrerClickAt: iso(tapped - 24 * 60 * MINUTE),
        deviceInstallBeganAt: iso(OPEN - MINUTE),
      }),
      tap(tapped),
    );
    expect(clock.offset?.from).toBe("referrer_click");
    expect(clock.installBegan).toBe(clock.firstOpen);
    expect(clock.latestTouch).toBeLessThanOrEqual(OPEN + 2 * SECOND);
  });

  it("takes no offset from a click time the phone's clock puts after its first open", () => {
    const tapped = OPEN - 3 * MINUTE;
    for (const clickAt of [
      // Filled in later by whatever relayed the install.
      iso(OPEN + 2 * 60 * MINUTE),
      // Nothing a phone wrote at the click.
      "2100-01-01T00:00:00.000Z",
      // Past the first open's second.
      iso(OPEN + 2 * SECOND),
    ]) {
      const clock = installClock(facts({ deviceReferrerClickAt: clickAt }), tap(tapped));
      expect(clock.offset, clickAt).toBeNull();
      expect(clock.firstOpen).toBe(OPEN);
    }
    // Within the first open's second, a rounding: the offset stands.
    const rounded = installClock(
      facts({ deviceReferrerClickAt: iso(OPEN + SECOND) }),
      tap(OPEN - 2 * SECOND),
    );
    expect(rounded.offset?.from).toBe("referrer_click");
  });
});

describe("Play's click after its own begin", () => {
  it("is told whatever the offset, to the whole second", () => {
    const at = (began: number, clicked: number) =>
      installClock(facts({ deviceInstallBeganAt: iso(began), deviceReferrerClickAt: iso(clicked) }))
        .referrerClickAfterBegin;
    expect(at(OPEN - MINUTE, OPEN - MINUTE + SECOND)).toBe(true);
    expect(at(OPEN - MINUTE, OPEN - MINUTE)).toBe(false);
    expect(at(OPEN - MINUTE, OPEN - 2 * MINUTE)).toBe(false);
    expect(installClock(facts({ deviceReferrerClickAt: iso(OPEN) })).referrerClickAfterBegin).toBe(
      false,
    );
  });
});

describe("the latest touch", () => {
  it("is Play's server-clock begin before anything the phone says", () => {
    const clock = installClock(
      facts({
        installBeganAt: iso(OPEN - 60 * SECOND),
        clockOffsetMs: 0,
        deviceInstallBeganAt: iso(OPEN - 10 * SECOND),
      }),
    );
    expect(clock.latestTouch).toBe(OPEN - 60 * SECOND);
    expect(clock.latestOwnClick).toBe(OPEN - 60 * SECOND);
  });

  it("reads no device begin without an offset: the first open says as much", () => {
    const clock = installClock(facts({ deviceInstallBeganAt: iso(OPEN - 60 * SECOND) }));
    expect(clock.installBegan).toBeNull();
    expect(clock.latestTouch).toBe(OPEN);
  });

  it("gives the install's own click a second past a first open that alone bounds it", () => {
    const clock = installClock(facts({ clockOffsetMs: 0 }));
    expect(clock.latestTouch).toBe(OPEN);
    expect(clock.latestOwnClick).toBe(OPEN + SECOND);
    // Never past the moment the service heard of the install.
    const heard = installClock(facts({ receivedAt: iso(OPEN + 300) }));
    expect(heard.latestOwnClick).toBe(OPEN + 300);
  });
});

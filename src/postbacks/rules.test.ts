import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Consent } from "../domain/consent.ts";
import { tcString } from "../domain/tcf.test-support.ts";
import { DAY_MS } from "../domain/time.ts";
import { type PartnerConfig, parsePartnerConfig } from "./config.ts";
import {
  type AcceptedEvent,
  consentSkip,
  eventDecision,
  installDecision,
  type ResolvedAttribution,
  type SendSubject,
  sendIdOf,
  wonBy,
} from "./rules.ts";

const unity = (overrides: Record<string, unknown> = {}): PartnerConfig =>
  parsePartnerConfig({
    id: "pc_unity",
    appId: "com.example.game",
    partner: "unity-ads",
    values: { game_id: "G" },
    events: {
      service_purchase: { name: "purchase", revenue: true },
      service_level_complete: { name: "level_complete" },
    },
    ...overrides,
  });

/** A custom partner of one media source, with the GET template's install or event side alone. */
const custom = (template: Record<string, unknown>, mediaSource: string): PartnerConfig =>
  parsePartnerConfig({
    id: "pc_custom",
    appId: "com.example.game",
    partner: "custom",
    template: { method: "GET", ...template },
    mediaSources: [mediaSource],
  });

const matched = (mediaSource: string): ResolvedAttribution => ({ status: "matched", mediaSource });
const ORGANIC: ResolvedAttribution = { status: "organic", mediaSource: "organic" };

const INSTALLED = "2026-11-01T10:00:00.000Z";
const eventAt = (time: string, name = "service_purchase"): AcceptedEvent => ({
  eventId: "evt-1",
  name,
  time,
  revenue: { amount: 4.99, currency: "USD", usd: 4.99 },
});
const sinceInstall = (ms: number) => new Date(Date.parse(INSTALLED) + ms).toISOString();

describe("wonBy", () => {
  it("compares media sources without case or surrounding spaces", () => {
    const config = unity();
    expect(wonBy(config, matched("unityads_int"))).toBe(true);
    expect(wonBy(config, matched(" UnityAds_INT "))).toBe(true);
    expect(wonBy(config, { status: "matched_no_params", mediaSource: "unity_ads" })).toBe(true);
    expect(wonBy(config, matched("tiktokglobal_int"))).toBe(false);
    expect(wonBy(config, ORGANIC)).toBe(false);
    // Only a match wins: not an organic install, whatever a configuration lists.
    const listsOrganic = custom({ install: { url: "https://pb.example.com/i" } }, "organic");
    expect(wonBy(listsOrganic, ORGANIC)).toBe(false);
    expect(wonBy(config, { status: "skipped", mediaSource: null })).toBe(false);
  });
});

describe("installDecision", () => {
  it("sends an install the partner won", () => {
    expect(installDecision(unity(), matched("unityads_int"))).toEqual({ send: true, won: true });
  });

  it("sends no other install unless the configuration sends all", () => {
    expect(installDecision(unity(), matched("meta_ads"))).toEqual({
      send: false,
      reason: "not_won",
    });
    expect(installDecision(unity(), ORGANIC)).toEqual({ send: false, reason: "not_won" });
    const all = unity({ installs: "all" });
    expect(installDecision(all, matched("meta_ads"))).toEqual({ send: true, won: false });
    expect(installDecision(all, ORGANIC)).toEqual({ send: true, won: false });
  });

  it("tells no partner twice of one click: a device installing again from its tap, its events still", () => {
    const again: ResolvedAttribution = { ...matched("unityads_int"), repeatsClick: true };
    expect(installDecision(unity(), again)).toEqual({ send: false, reason: "repeated_click" });
    // A partner that hears of every install, won by another, is not charged for it.
    expect(
      installDecision(unity({ installs: "all" }), { ...matched("meta_ads"), repeatsClick: true }),
    ).toEqual({
      send: true,
      won: false,
    });
    expect(eventDecision(unity(), again, INSTALLED, eventAt(sinceInstall(DAY_MS)))).toMatchObject({
      send: true,
      won: true,
    });
  });

  it("sends no install to any partner when it was not attributed on purpose (skipped)", () => {
    const skipped: ResolvedAttribution = { status: "skipped", mediaSource: null };
    const all = unity({ installs: "all" });
    expect(installDecision(all, skipped)).toEqual({ send: false, reason: "install_skipped" });
    expect(installDecision(unity(), skipped)).toEqual({ send: false, reason: "install_skipped" });
    expect(eventDecision(all, skipped, INSTALLED, eventAt(sinceInstall(DAY_MS)))).toEqual({
      send: false,
      reason: "install_skipped",
    });
    // An organic install is one all installs' partners hear of.
    expect(installDecision(all, ORGANIC)).toEqual({ send: true, won: false });
  });

  it("sends nothing while disabled or unresolved, nor without an install template", () => {
    expect(installDecision(unity({ enabled: false }), matched("unityads_int"))).toEqual({
      send: false,
      reason: "disabled",
    });
    expect(installDecision(unity(), null)).toEqual({ send: false, reason: "not_resolved" });
    const eventsOnly = custom(
      { event: { url: "https://pb.example.com/e?n={event_name}" } },
      "my_network",
    );
    expect(installDecision(eventsOnly, matched("my_network"))).toEqual({
      send: false,
      reason: "no_template",
    });
  });
});

describe("eventDecision", () => {
  const won = matched("unityads_int");

  it("sends a mapped event under the partner's name, with revenue when the mapping says", () => {
    expect(eventDecision(unity(), won, INSTALLED, eventAt(sinceInstall(DAY_MS)))).toEqual({
      send: true,
      won: true,
      event: {
        eventId: "evt-1",
        name: "purchase",
        time: sinceInstall(DAY_MS),
        revenue: { amount: 4.99, currency: "USD", usd: 4.99 },
      },
    });
    const level = eventDecision(
      unity(),
      won,
      INSTALLED,
      eventAt(sinceInstall(DAY_MS), "service_level_complete"),
    );
    expect(level.send && level.event).toMatchObject({ name: "level_complete", revenue: null });
  });

  it("sends no event while disabled or unresolved, nor without an event template", () => {
    const event = eventAt(sinceInstall(DAY_MS));
    expect(eventDecision(unity({ enabled: false }), won, INSTALLED, event)).toEqual({
      send: false,
      reason: "disabled",
    });
    expect(eventDecision(unity(), null, INSTALLED, event)).toEqual({
      send: false,
      reason: "not_resolved",
    });
    const installsOnly = custom(
      { install: { url: "https://pb.example.com/i?c={click_id}" } },
      "unityads_int",
    );
    expect(eventDecision(installsOnly, won, INSTALLED, event)).toEqual({
      send: false,
      reason: "no_template",
    });
  });

  it("sends no unmapped event", () => {
    expect(
      eventDecision(unity(), won, INSTALLED, eventAt(sinceInstall(1), "service_login")),
    ).toEqual({
      send: false,
      reason: "unmapped",
    });
    // A name that is a property of every object is no mapping either.
    expect(eventDecision(unity(), won, INSTALLED, eventAt(sinceInstall(1), "constructor"))).toEqual(
      {
        send: false,
        reason: "unmapped",
      },
    );
  });

  it("sends within 180 days of the install by default, the 180th day included", () => {
    const config = unity();
    expect(eventDecision(config, won, INSTALLED, eventAt(sinceInstall(180 * DAY_MS))).send).toBe(
      true,
    );
    expect(eventDecision(config, won, INSTALLED, eventAt(sinceInstall(180 * DAY_MS + 1)))).toEqual({
      send: false,
      reason: "outside_window",
    });
    // A device clock set back dates an event before its install: still inside.
    expect(eventDecision(config, won, INSTALLED, eventAt(sinceInstall(-60_000))).send).toBe(true);
    // A time that cannot be read is inside no window.
    expect(eventDecision(config, won, "unknown", eventAt(sinceInstall(DAY_MS)))).toEqual({
      send: false,
      reason: "outside_window",
    });
  });

  it("keeps to the configuration's own window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 365 }),
        fc.integer({ min: 0, max: 400 * DAY_MS }),
        (days, ms) => {
          const config = unity({ eventWindowDays: days });
          const decision = eventDecision(config, won, INSTALLED, eventAt(sinceInstall(ms)));
          expect(decision.send).toBe(ms <= days * DAY_MS);
        },
      ),
    );
  });

  it("follows its install: another network's event goes only to a configuration sending all", () => {
    const theirs = matched("meta_ads");
    expect(eventDecision(unity(), theirs, INSTALLED, eventAt(sinceInstall(1)))).toEqual({
      send: false,
      reason: "not_won",
    });
    const all = eventDecision(
      unity({ installs: "all" }),
      theirs,
      INSTALLED,
      eventAt(sinceInstall(1)),
    );
    expect(all).toMatchObject({ send: true, won: false });
  });
});

describe("sendIdOf", () => {
  const subject = fc.oneof(
    fc.record({ kind: fc.constant("install" as const), serviceId: fc.string() }),
    fc.record({
      kind: fc.constant("event" as const),
      serviceId: fc.string(),
      eventId: fc.string(),
    }),
  );

  it("is the same whenever it is computed for the same configuration and subject", () => {
    fc.assert(
      fc.property(fc.string(), subject, (configId, s) => {
        expect(sendIdOf(configId, s)).toBe(sendIdOf(configId, { ...s }));
        expect(sendIdOf(configId, s)).toMatch(/^snd_[A-Za-z0-9_-]{32}$/);
      }),
    );
  });

  it("differs for any other configuration or subject", () => {
    fc.assert(
      fc.property(fc.string(), subject, fc.string(), subject, (c1, s1, c2, s2) => {
        fc.pre(JSON.stringify([c1, s1]) !== JSON.stringify([c2, s2]));
        expect(sendIdOf(c1, s1)).not.toBe(sendIdOf(c2, s2));
      }),
    );
  });

  it("gives each event of one install its own id, and each install its own", () => {
    const event = (eventId: string): SendSubject => ({ kind: "event", serviceId: "s", eventId });
    expect(sendIdOf("pc", event("e1"))).not.toBe(sendIdOf("pc", event("e2")));
    expect(sendIdOf("pc", { kind: "install", serviceId: "s1" })).not.toBe(
      sendIdOf("pc", { kind: "install", serviceId: "s2" }),
    );
  });

  it("keeps ids apart that only differ where one part ends and the next begins", () => {
    const a: SendSubject = { kind: "event", serviceId: "s:1", eventId: "e" };
    const b: SendSubject = { kind: "event", serviceId: "s", eventId: "1:e" };
    expect(sendIdOf("pc", a)).not.toBe(sendIdOf("pc", b));
    expect(sendIdOf("pc", { kind: "install", serviceId: "s" })).not.toBe(
      sendIdOf("pc", { kind: "event", serviceId: "s", eventId: "" }),
    );
  });
});

describe("consentSkip", () => {
  const consent = (overrides: Partial<Consent>): Consent => ({
    gdprApplies: null,
    adUserData: null,
    adPersonalization: null,
    tcfString: null,
    updatedAt: INSTALLED,
    ...overrides,
  });

  it("keeps a partner from hearing of a user who refused, or of one where consent is required and not given", () => {
    expect(consentSkip(consent({ adUserData: false }), null)).toBe("no_consent");
    expect(consentSkip(consent({ gdprApplies: true }), null)).toBe("no_consent");
    expect(consentSkip(consent({ gdprApplies: true, adUserData: false }), null)).toBe("no_consent");
  });

  it("lets a partner hear of a user who agreed, or one never asked where consent is not required", () => {
    expect(consentSkip(consent({ adUserData: true }), null)).toBeNull();
    expect(consentSkip(consent({ gdprApplies: true, adUserData: true }), null)).toBeNull();
    expect(consentSkip(consent({ gdprApplies: false }), null)).toBeNull();
    expect(consentSkip(consent({}), null)).toBeNull();
    expect(consentSkip(null, null)).toBeNull();
  });

  it("keeps a vendor of the Global Vendor List from hearing of a user its TCF string gave no consent", () => {
    const google = 755;
    const withGoogle = tcString([1, 7], { vendors: [google] });
    const withoutGoogle = tcString([1, 7], { vendors: [12] });
    expect(consentSkip(consent({ gdprApplies: true, tcfString: withoutGoogle }), google)).toBe(
      "no_vendor_consent",
    );
    expect(consentSkip(consent({ gdprApplies: true, tcfString: withGoogle }), google)).toBeNull();
    // A partner the configuration names no vendor id for is not asked of.
    expect(consentSkip(consent({ gdprApplies: true, tcfString: withoutGoogle }), null)).toBeNull();
    // A refusal of ad user data at large still says so first.
    expect(consentSkip(consent({ gdprApplies: true, tcfString: tcString([1]) }), google)).toBe(
      "no_consent",
    );
  });
});

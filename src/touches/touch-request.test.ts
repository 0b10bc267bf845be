import { describe, expect, it } from "vitest";
import { parseTouch, parseTouchesEnvelope } from "./touch-request.ts";

const NOW = new Date("2026-11-24T12:00:00.000Z");
const touch = (overrides: Record<string, unknown> = {}) => ({
  touch_type: "click",
  touch_time: "2026-11-24T11:00:00+01:00",
  media_source: "facebook_ads",
  ...overrides,
});

describe("POST /v1/touches bodies", () => {
  it("checks the envelope as a whole", () => {
    expect(parseTouchesEnvelope({ touches: [touch()] })).toEqual({ ok: true, value: [touch()] });
    expect(parseTouchesEnvelope({ touches: [] })).toEqual({
      ok: false,
      detail: "touches: must be a list of 1 to 1000 touches",
    });
    expect(parseTouchesEnvelope("x")).toEqual({ ok: false, detail: "body: must be a JSON object" });
  });

  it("normalizes a good touch: UTC time, canonical IP, an all-zero advertising id as absent", () => {
    const parsed = parseTouch(
      touch({ ip: "::ffff:81.2.69.142", maid: "00000000-0000-0000-0000-000000000000", extra: 1 }),
      NOW,
    );
    expect(parsed).toEqual({
      ok: true,
      value: {
        touch_type: "click",
        touch_time: "2026-11-24T10:00:00.000Z",
        media_source: "facebook_ads",
        ip: "81.2.69.142",
        maid: null,
      },
    });
  });

  it.each([
    [{ touch_type: "view" }, "touch_type: must be click or impression"],
    [{ touch_time: "2026-11-24T10:00:00" }, "touch_time: must be an ISO 8601 date-time"],
    [{ touch_time: "2026-10-01T10:00:00Z" }, "touch_time: must be at most 30 days old"],
    [{ touch_time: "2026-11-26T10:00:00Z" }, "touch_time: must be at most 24 hours ahead"],
    [{ media_source: "" }, "media_source: is required"],
    [{ ip: "999.1.1.1" }, "ip: must be an IPv4 or IPv6 address"],
    [{ maid: "not-a-uuid" }, "maid: must be a UUID"],
    [{ deeplink_id: "../etc" }, "deeplink_id: must be the deeplink_id of one of the app's links"],
    [{ params: { sub1: 7 } }, "params.sub1: must be a string"],
    // Names the export, the reports and the postbacks carry, as a link's are.
    [{ media_source: "net\u0000work" }, "media_source: must not contain control characters"],
    [{ campaign_name: "camp\u0001aign" }, "campaign_name: must not contain control characters"],
    [{ ad_id: "ad\u007f" }, "ad_id: must not contain control characters"],
    [{ click_id: "c\u0085" }, "click_id: must not contain control characters"],
  ])("refuses %j, saying why", (overrides, detail) => {
    const parsed = parseTouch(touch(overrides), NOW);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.detail).toContain(detail);
  });
});

describe("a touch's bounds", () => {
  const at = (ms: number) => new Date(NOW.getTime() + ms).toISOString();
  const HOUR = 3_600_000;

  it("takes a touch up to 24 hours ahead of the clock and 30 days old, each bound included", () => {
    for (const time of [at(HOUR), at(24 * HOUR), at(-30 * 24 * HOUR)]) {
      expect(parseTouch(touch({ touch_time: time }), NOW), time).toMatchObject({ ok: true });
    }
    expect(parseTouch(touch({ touch_time: at(24 * HOUR + 1) }), NOW)).toEqual({
      ok: false,
      detail: "touch_time: must be at most 24 hours ahead of the server's clock",
    });
    expect(parseTouch(touch({ touch_time: at(-30 * 24 * HOUR - 1) }), NOW)).toEqual({
      ok: false,
      detail: "touch_time: must be at most 30 days old: no install can be matched to it",
    });
  });

  it("takes 50 params and refuses 51", () => {
    const params = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`sub${i}`, "x"]));
    expect(parseTouch(touch({ params: params(50) }), NOW)).toMatchObject({ ok: true });
    expect(parseTouch(touch({ params: params(51) }), NOW)).toEqual({
      ok: false,
      detail: "params: must have at most 50 keys",
    });
  });
});

describe("a network touch's cost", () => {
  it("is the three fields together, or none", () => {
    const cpc = { cost_model: "CPC", cost_value: 0.12, cost_currency: "USD" };
    const parsed = parseTouch(touch(cpc), NOW);
    expect(parsed.ok && parsed.value).toMatchObject(cpc);
    expect(parseTouch(touch({ cost_model: null }), NOW).ok).toBe(true);
  });

  it.each([
    [{ cost_model: "CPC" }, "cost_value: is required with cost_model"],
    [
      { cost_value: 1.5, cost_currency: "EUR" },
      "cost_model: is required with cost_value and cost_currency",
    ],
    [
      { cost_model: "CPM", cost_value: 4 },
      "cost_currency: is required with cost_model and cost_value",
    ],
    [
      { cost_model: "CPV", cost_value: 1, cost_currency: "EUR" },
      "cost_model: must be CPI, CPC or CPM",
    ],
    [{ cost_model: "CPC", cost_value: -1, cost_currency: "EUR" }, "cost_value: must be at least 0"],
    [
      { cost_model: "CPC", cost_value: 1, cost_currency: "euro" },
      "cost_currency: must be an ISO 4217 currency code",
    ],
  ])("refuses %j alone, saying why", (overrides, detail) => {
    const parsed = parseTouch(touch(overrides), NOW);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.detail).toContain(detail);
  });
});

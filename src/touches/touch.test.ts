import { describe, expect, it } from "vitest";
import { contractTouch } from "../adapters/contracts/touch-store.test-support.ts";
import { parseEcbRates } from "../fx/ecb-rates.ts";
import type { Touch } from "../ports/touches.ts";
import { TOUCH_COLUMNS } from "../record/touch-columns.ts";
import { CLICK_ID_LENGTH } from "./ids.ts";
import { firstLanguage, lakeParams, networkTouchId, touchRow } from "./touch.ts";

describe("networkTouchId", () => {
  it("is the same for the same app, network and id, and another for any other", () => {
    const id = networkTouchId("com.example.game", "network_a", "c1");
    expect(id).toMatch(new RegExp(`^[0-9A-Za-z]{${CLICK_ID_LENGTH}}$`));
    expect(networkTouchId("com.example.game", "network_a", "c1")).toBe(id);
    expect(networkTouchId("com.example.game", "network_b", "c1")).not.toBe(id);
    expect(networkTouchId("com.example.other", "network_a", "c1")).not.toBe(id);
    // No join of the parts can make two triples one.
    expect(networkTouchId("a", "b#c", "d")).not.toBe(networkTouchId("a", "b", "c#d"));
  });
});

describe("firstLanguage", () => {
  it.each([
    ["de-CH,de;q=0.9,en;q=0.8", "de-CH"],
    ["en", "en"],
    [" fr-FR ; q=1", "fr-FR"],
    ["*", null],
    ["", null],
    [undefined, null],
    ["<script>", null],
    // A tag is read whole: nothing before its letters, nothing after its last subtag.
    ["1de", null],
    ["de-CH!", null],
  ])("%j → %j", (header, language) => {
    expect(firstLanguage(header)).toBe(language);
  });
});

describe("the touches lake table", () => {
  it("keeps no advertising id, user agent or full IP", () => {
    const names = TOUCH_COLUMNS.map((column) => column.name);
    expect(names).not.toContain("maid");
    expect(names).not.toContain("user_agent");
    expect(names).not.toContain("ip");
    expect(names).toContain("ip_truncated");
  });
});

describe("a touch's lake row", () => {
  // EUR at 1.1 USD on the 24th; no rate of the 25th or later.
  const fx = parseEcbRates("Date,USD,\n2026-11-24,1.1,\n");
  const at = (cost: Touch["cost"], touchType: Touch["touchType"] = "click", day = "2026-11-24") =>
    touchRow(
      contractTouch("com.example.game", Date.parse(`${day}T12:00:00.000Z`), { cost, touchType }),
      fx,
    );

  /** The `params` column of a touch's row. */
  const paramsOf = (touch: Partial<Touch>) =>
    JSON.parse(
      String(
        touchRow(
          contractTouch("com.example.game", Date.parse("2026-11-24T12:00:00.000Z"), touch),
          fx,
        ).params,
      ),
    );

  it("carries its cost as said, and what the touch itself cost in USD: a CPC click's price", () => {
    expect(at({ model: "CPC", value: 0.5, currency: "EUR" })).toMatchObject({
      cost_model: "CPC",
      cost_value: 0.5,
      cost_currency: "EUR",
      cost_usd: 0.55,
    });
  });

  it("a CPM impression's price over a thousand", () => {
    expect(at({ model: "CPM", value: 4, currency: "USD" }, "impression")).toMatchObject({
      cost_model: "CPM",
      cost_usd: 0.004,
    });
  });

  it("none for a CPI touch (its install's, when it wins), a unit its model does not charge, no cost, or no rate", () => {
    expect(at({ model: "CPI", value: 2.5, currency: "EUR" })).toMatchObject({
      cost_model: "CPI",
      cost_value: 2.5,
      cost_currency: "EUR",
      cost_usd: null,
    });
    expect(at({ model: "CPC", value: 0.5, currency: "EUR" }, "impression").cost_usd).toBeNull();
    expect(at({ model: "CPM", value: 4, currency: "EUR" }, "click").cost_usd).toBeNull();
    expect(at(null)).toMatchObject({
      cost_model: null,
      cost_value: null,
      cost_currency: null,
      cost_usd: null,
    });
    // The rate of the touch's own day, carried at most 7 days: none here for a day before it.
    expect(
      at({ model: "CPC", value: 1, currency: "EUR" }, "click", "2026-11-20").cost_usd,
    ).toBeNull();
  });

  it("keeps the link's parameters and the tap's own, the tap's over the link's", () => {
    expect(
      paramsOf({ params: { promo: "WINTER", sub1: "link" }, urlParams: { sub1: "tap" } }),
    ).toEqual({ promo: "WINTER", sub1: "tap" });
  });

  it("keeps no parameter that names a device or an address: no deletion request reaches a click's row", () => {
    expect(
      paramsOf({
        // The link's own, its marketer's: kept whatever their shape.
        params: {
          promo: "WINTER",
          deep_link_path: "/levels/7",
          offer: "1b4e28ba-2fa1-11d2-883f-0016d3cca427",
        },
        urlParams: {
          // A network's macros, by their names and by the shape of their values.
          idfa: "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE",
          sha1_gaid: "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",
          sub5: "38400000-8cf0-11bd-b23e-10b96e40000d",
          device_ip: "81.2.69.170",
          sub6: "2001:db8::1",
          sub7: " 81.2.69.171 ",
          Advertising_ID: "x",
          android_id: "9774d56d682e549c",
          ua: "Dalvik/2.1.0",
          "user-agent": "Mozilla/5.0",
          device_id: "9774d56d682e549c",
          udid: "x",
          imei: "x",
          mac: "x",
          sub8: "81.2.69.172:443",
          sub9: "[2001:db8::2]:443",
          sub10: "10.0.0.1, 81.2.69.173",
          // What a campaign sends of its own.
          ad_id: "ad-42",
          AdId: "1234",
          ip_country: "DE",
          ua_campaign: "q4",
          adset_id: "7",
          zip: "10115",
          sub1: "creative-b",
          version: "1.2.3.4.5",
        },
      }),
    ).toEqual({
      promo: "WINTER",
      deep_link_path: "/levels/7",
      offer: "1b4e28ba-2fa1-11d2-883f-0016d3cca427",
      ad_id: "ad-42",
      AdId: "1234",
      ip_country: "DE",
      ua_campaign: "q4",
      adset_id: "7",
      zip: "10115",
      sub1: "creative-b",
      version: "1.2.3.4.5",
    });
    expect(lakeParams({ gclid: "EAIaIQobChMI", IDFA_MD5: "x", "sub.ip": "x" })).toEqual({
      gclid: "EAIaIQobChMI",
    });
    // A network's own parameters are a network's: filtered as the tapped URL's are.
    expect(
      paramsOf({
        source: "network",
        params: { gaid: "38400000-8cf0-11bd-b23e-10b96e40000d", sub1: "a" },
        urlParams: {},
      }),
    ).toEqual({ sub1: "a" });
  });

  it("has a value for every column of the touches table", () => {
    const row = at({ model: "CPC", value: 0.5, currency: "EUR" });
    expect(Object.keys(row).sort()).toEqual(
      ["app_id", ...TOUCH_COLUMNS.map((column) => column.name)].sort(),
    );
  });
});

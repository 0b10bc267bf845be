import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tcString } from "../domain/tcf.test-support.ts";
import {
  ANDROID_INSTALL,
  consentOf,
  contextOf,
  IOS_INSTALL,
  PURCHASE,
  TOUCH,
} from "./postbacks.test-support.ts";
import {
  buildRequest,
  deviceDataShareable,
  fillHeaderValue,
  fillJsonBody,
  fillUrl,
  isKnownMacro,
  MACROS,
  macroLookup,
  macrosIn,
  macroTableMarkdown,
  plainNumber,
} from "./templates.ts";
import { REQUEST_LIMITS } from "./url-safety.ts";

const lookupOf =
  (values: Record<string, string>) =>
  (name: string): string =>
    values[name] ?? "";

describe("fillUrl", () => {
  it("URL-encodes each macro's value", () => {
    const url = fillUrl("https://pb.example.com/i?click={click_id}", lookupOf({ click_id: "a b" }));
    expect(url).toBe("https://pb.example.com/i?click=a%20b");
  });

  it("never lets a value add a parameter or change the path, whatever it holds", () => {
    // Dot values always among the cases: in a query they are values like any other.
    const value = fc.oneof(fc.constantFrom(".", ".."), fc.string({ unit: "grapheme" }));
    fc.assert(
      fc.property(value, value, (a, b) => {
        const url = new URL(
          fillUrl(
            "https://pb.example.com/p/x?a={click_id}&b={media_source}&c=1",
            lookupOf({ click_id: a, media_source: b }),
          ),
        );
        expect(url.host).toBe("pb.example.com");
        expect(url.pathname).toBe("/p/x");
        expect([...url.searchParams.keys()]).toEqual(["a", "b", "c"]);
        expect(url.searchParams.get("a")).toBe(a);
        expect(url.searchParams.get("b")).toBe(b);
      }),
    );
  });

  it("never lets a value in a path segment move the path, a dot segment included", () => {
    const value = fc.oneof(
      fc.constantFrom(".", "..", "%2e", "%2E%2E", "./.."),
      fc.string({ unit: "grapheme" }),
    );
    fc.assert(
      fc.property(value, value, (a, b) => {
        const url = new URL(
          fillUrl(
            "https://pb.example.com/v3/{click_id}/events/{media_source}",
            lookupOf({ click_id: a, media_source: b }),
          ),
        );
        const segments = url.pathname.split("/");
        expect(segments).toHaveLength(5);
        expect([segments[1], segments[3]]).toEqual(["v3", "events"]);
        // The value itself, but for a dot segment, which is left out.
        expect(decodeURIComponent(segments[2] ?? "")).toBe(a === "." || a === ".." ? "" : a);
      }),
    );
  });

  it("fills an unknown macro with nothing, and leaves braces that are no macro", () => {
    expect(fillUrl("https://x.example.com/?a={nope}&b={}&c={Not-A-Macro}", lookupOf({}))).toBe(
      "https://x.example.com/?a=&b={}&c={Not-A-Macro}",
    );
  });

  it("takes a leading advertiser's URL as it stands, joining a query it already has", () => {
    const base = (endpoint: string) =>
      fillUrl(
        "{partner.endpoint}?event=install&id={service_id}",
        lookupOf({
          "partner.endpoint": endpoint,
          service_id: "s/1",
        }),
      );
    expect(base("https://pb.example.com/hook")).toBe(
      "https://pb.example.com/hook?event=install&id=s%2F1",
    );
    expect(base("https://pb.example.com/hook?k=v")).toBe(
      "https://pb.example.com/hook?k=v&event=install&id=s%2F1",
    );
    // Anything but a whole URL leaves the template without a host: it will not build. So does
    // one with a fragment, after which the query would never be sent.
    expect(base("not a url")).toBe("?event=install&id=s%2F1");
    expect(base("https://pb.example.com/hook#top")).toBe("?event=install&id=s%2F1");
  });

  it("sends a dot value as it is in the query joined to an advertiser's URL's own", () => {
    const filled = (endpoint: string, value: string) =>
      new URL(
        fillUrl(
          "{partner.endpoint}?campaign={campaign_name}&id={service_id}",
          lookupOf({ "partner.endpoint": endpoint, campaign_name: value, service_id: ".." }),
        ),
      );
    for (const endpoint of ["https://pb.example.com/in", "https://pb.example.com/in?k=v"]) {
      for (const value of [".", ".."]) {
        const url = filled(endpoint, value);
        expect(url.pathname).toBe("/in");
        expect(url.searchParams.get("campaign"), `${endpoint} ${value}`).toBe(value);
        expect(url.searchParams.get("id")).toBe("..");
      }
    }
  });
});

describe("fillJsonBody", () => {
  it("escapes each value and keeps the template's keys", () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const body = fillJsonBody(
          '{"a": "{click_id}", "b": "id={click_id};", "c": ["{click_id}"]}',
          lookupOf({ click_id: value }),
        );
        const parsed = JSON.parse(body);
        expect(Object.keys(parsed)).toEqual(value === "" ? ["b", "c"] : ["a", "b", "c"]);
        if (value !== "") expect(parsed.a).toBe(value);
        expect(parsed.b).toBe(`id=${value};`);
        expect(parsed.c).toEqual([value]);
      }),
    );
  });

  it("makes a lone value whose macro is empty null, never no body", () => {
    expect(fillJsonBody('"{idfa}"', lookupOf({}))).toBe("null");
    expect(fillJsonBody('"{idfa}"', lookupOf({ idfa: "A-1" }))).toBe('"A-1"');
  });

  it("escapes a quote rather than letting it close the string", () => {
    const body = fillJsonBody(
      '{"a": "{click_id}"}',
      lookupOf({ click_id: 'x", "admin": true, "y": "' }),
    );
    expect(body).toBe('{"a":"x\\", \\"admin\\": true, \\"y\\": \\""}');
    expect(Object.keys(JSON.parse(body))).toEqual(["a"]);
  });

  it("makes a numeric macro standing alone a number, and drops an empty one's key", () => {
    const body = fillJsonBody(
      '{"t": "{install_unix_ts}", "v": "{revenue}", "cur": "{currency}", "x": ["{revenue}", "{idfa}"], "s": "at {install_unix_ts}"}',
      lookupOf({ install_unix_ts: "1793527200" }),
    );
    expect(JSON.parse(body)).toEqual({ t: 1793527200, x: [null, ""], s: "at 1793527200" });
  });
});

describe("fillHeaderValue", () => {
  it("fills as it is, with no way to add a line (and so a header)", () => {
    const value = fillHeaderValue(
      "Bearer {partner.token}",
      lookupOf({ "partner.token": "abc\r\nX-Evil: 1\u0000" }),
    );
    expect(value).toBe("Bearer abcX-Evil: 1");
  });

  it("keeps what a header may hold, Latin-1 letters too, and takes out the template's own breaks", () => {
    expect(fillHeaderValue("{partner.name}", lookupOf({ "partner.name": "Café Nöel" }))).toBe(
      "Café Nöel",
    );
    expect(fillHeaderValue("a\r\nX-Evil: 1 {partner.x}", lookupOf({ "partner.x": "y" }))).toBe(
      "aX-Evil: 1 y",
    );
  });
});

describe("deviceDataShareable", () => {
  it("follows the user's answer, then the app's own setting where the user said nothing", () => {
    expect(deviceDataShareable(consentOf({ adUserData: true }), false)).toBe(true);
    expect(deviceDataShareable(consentOf({ adUserData: false }), true)).toBe(false);
    expect(deviceDataShareable(consentOf({ gdprApplies: true }), true)).toBe(false);
    expect(deviceDataShareable(consentOf({ gdprApplies: true, adUserData: true }), false)).toBe(
      true,
    );
    for (const absent of [null, consentOf({}), consentOf({ gdprApplies: false })]) {
      expect(deviceDataShareable(absent, false)).toBe(false);
      expect(deviceDataShareable(absent, true)).toBe(true);
    }
  });

  it("takes the consent platform's TCF string as the user's answer when the app gave none", () => {
    const measured = consentOf({ gdprApplies: true, tcfString: tcString([1, 7]) });
    expect(deviceDataShareable(measured, false)).toBe(true);
    const withheld = consentOf({ gdprApplies: true, tcfString: tcString([1]) });
    expect(deviceDataShareable(withheld, true)).toBe(false);
  });
});

describe("plainNumber", () => {
  it("writes every number as String does, its point moved in place of an exponent", () => {
    expect(plainNumber(1e-7)).toBe("0.0000001");
    expect(plainNumber(-1.5e-7)).toBe("-0.00000015");
    expect(plainNumber(1.23e21)).toBe("1230000000000000000000");
    expect(plainNumber(9.99)).toBe("9.99");
    expect(plainNumber(0)).toBe("0");
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (number) => {
        const text = plainNumber(number);
        expect(text).toMatch(/^-?\d+(\.\d+)?$/);
        expect(Number(text)).toBe(number === 0 ? 0 : number);
      }),
    );
  });
});

describe("macro values", () => {
  const value = (name: string, overrides: Parameters<typeof contextOf>[0] = {}) =>
    macroLookup(contextOf(overrides))(name);

  it("fills every install fact", () => {
    expect(value("app_id")).toBe("com.example.game");
    expect(value("platform")).toBe("android");
    expect(value("service_id")).toBe(ANDROID_INSTALL.serviceId);
    // The partners' id of the install: stable, of this app, and no way back to its own id.
    expect(value("install_ref")).toMatch(/^ins_[A-Za-z0-9_-]{32}$/);
    expect(value("install_ref")).toBe(value("install_ref"));
    expect(value("install_ref")).not.toContain(ANDROID_INSTALL.serviceId);
    expect(
      value("install_ref", { install: { ...ANDROID_INSTALL, appId: "com.example.other" } }),
    ).not.toBe(value("install_ref"));
    // Two networks are told two ids of the install and of its events: none they could join
    // their records of the device on.
    expect(value("install_ref", { configId: "other-net" })).not.toBe(value("install_ref"));
    const purchase = { event: PURCHASE };
    expect(value("event_ref", purchase)).toMatch(/^evt_[A-Za-z0-9_-]{32}$/);
    expect(value("event_ref", purchase)).not.toContain(PURCHASE.eventId);
    expect(value("event_ref", { ...purchase, configId: "other-net" })).not.toBe(
      value("event_ref", purchase),
    );
    expect(value("install_unix_ts")).toBe("1793527200");
    // The second it happened in, not the nearest.
    const late = { ...ANDROID_INSTALL, firstOpenTime: "2026-11-01T10:00:00.900Z" };
    expect(value("install_unix_ts", { install: late })).toBe("1793527200");
    expect(value("install_time")).toBe("2026-11-01T10:00:00.000Z");
    expect(value("click_unix_ts")).toBe("1793527100");
    expect(value("click_id")).toBe("clk_service_1");
    expect(value("network_click_id")).toBe("net-click-9");
    expect(value("click.gamer_id")).toBe("gamer-77");
    expect(value("click.absent")).toBe("");
    expect(value("media_source")).toBe("unityads_int");
    expect(value("campaign_name")).toBe("EG_AND_Launch");
    expect(value("store_app_id")).toBe("com.example.game");
    expect(value("store_app_id", { install: IOS_INSTALL })).toBe("1234567890");
    expect(value("attributed")).toBe("1");
    expect(value("retry")).toBe("0");
    expect(value("retry", { attempt: 3 })).toBe("1");
    expect(value("attempt", { attempt: 3 })).toBe("3");
    expect(value("partner.game_id", { values: { game_id: "g-1" } })).toBe("g-1");
  });

  it("fills each device, touch and event fact from its own field", () => {
    const android = { event: PURCHASE };
    const ios = { install: IOS_INSTALL, event: PURCHASE };
    const expected: Record<string, readonly [string, string]> = {
      os_name: ["Android", "iOS"],
      os_version: [ANDROID_INSTALL.osVersion ?? "", IOS_INSTALL.osVersion ?? ""],
      device_model: [ANDROID_INSTALL.deviceModel ?? "", IOS_INSTALL.deviceModel ?? ""],
      app_version: [ANDROID_INSTALL.appVersion ?? "", IOS_INSTALL.appVersion ?? ""],
      sdk_version: [ANDROID_INSTALL.sdkVersion ?? "", IOS_INSTALL.sdkVersion ?? ""],
      locale: [ANDROID_INSTALL.locale ?? "", IOS_INSTALL.locale ?? ""],
      timezone: [ANDROID_INSTALL.timezone ?? "", IOS_INSTALL.timezone ?? ""],
      country: [ANDROID_INSTALL.country ?? "", IOS_INSTALL.country ?? ""],
      user_agent: [ANDROID_INSTALL.userAgent ?? "", IOS_INSTALL.userAgent ?? ""],
      campaign_id: ["cmp-1", "cmp-1"],
      adset_name: ["Broad", "Broad"],
      adset_id: ["as-1", "as-1"],
      ad_name: ["Video 15s", "Video 15s"],
      ad_id: ["ad-1", "ad-1"],
      click_time: ["2026-11-01T09:58:20.000Z", "2026-11-01T09:58:20.000Z"],
      touch_type: ["click", "click"],
      event_id: ["evt-1", "evt-1"],
      event_time: ["2026-11-03T12:00:00.000Z", "2026-11-03T12:00:00.000Z"],
    };
    for (const [name, [onAndroid, onIos]] of Object.entries(expected)) {
      expect([name, value(name, android), value(name, ios)]).toEqual([name, onAndroid, onIos]);
    }
    // The fixture's facts all differ, so a macro reading a neighbour's field shows above.
    const values = Object.keys(expected).map((name) => value(name, android));
    expect(new Set(values).size).toBe(values.length);
  });

  it("fills the event's facts, its revenue only as the rules passed it", () => {
    expect(value("event_name", { event: PURCHASE })).toBe("in_app_purchase");
    expect(value("event_unix_ts", { event: PURCHASE })).toBe("1793707200");
    expect(value("revenue", { event: PURCHASE })).toBe("9.99");
    expect(value("currency", { event: PURCHASE })).toBe("EUR");
    expect(value("revenue", { event: { ...PURCHASE, revenue: null } })).toBe("");
    expect(value("event_name")).toBe("");
  });

  it("tells a partner that did not win the install nothing of the attribution", () => {
    for (const name of [
      "media_source",
      "campaign_name",
      "campaign_id",
      "adset_name",
      "ad_id",
      "click_id",
      "network_click_id",
      "click_unix_ts",
      "click.gamer_id",
    ]) {
      expect(value(name, { won: false })).toBe("");
    }
    expect(value("attributed", { won: false })).toBe("0");
  });

  it("fills device ids and the address only where consent allows", () => {
    const refused = { install: { ...ANDROID_INSTALL, consent: consentOf({ adUserData: false }) } };
    for (const name of ["advertising_id", "gaid", "ip"]) {
      expect(value(name)).not.toBe("");
      expect(value(name, refused)).toBe("");
    }
    expect(value("limit_ad_tracking")).toBe("0");
    expect(value("limit_ad_tracking", refused)).toBe("1");
    expect(value("ad_tracking_enabled", refused)).toBe("0");
    // The app's setting decides for a user never asked.
    const unasked = { ...ANDROID_INSTALL, consent: null };
    expect(value("advertising_id", { install: unasked })).toBe("");
    expect(value("advertising_id", { install: unasked, shareDeviceDataWithoutConsent: true })).toBe(
      ANDROID_INSTALL.advertisingId,
    );
    const iosRefused = { ...IOS_INSTALL, consent: consentOf({ gdprApplies: true }) };
    expect(value("idfv", { install: IOS_INSTALL })).toBe(IOS_INSTALL.idfv);
    expect(value("idfv", { install: iosRefused })).toBe("");
  });

  it("sends an IDFA only with App Tracking Transparency authorised, and never a zeroed id", () => {
    expect(value("idfa", { install: IOS_INSTALL })).toBe(IOS_INSTALL.advertisingId);
    expect(value("gaid", { install: IOS_INSTALL })).toBe("");
    const denied = { ...IOS_INSTALL, attStatus: "denied" as const };
    expect(value("idfa", { install: denied })).toBe("");
    expect(value("advertising_id", { install: denied })).toBe("");
    expect(value("att_status", { install: denied })).toBe("denied");
    const zeroed = { ...ANDROID_INSTALL, advertisingId: "00000000-0000-0000-0000-000000000000" };
    expect(value("advertising_id", { install: zeroed })).toBe("");
    expect(value("limit_ad_tracking", { install: zeroed })).toBe("1");
    const zeroIdfv = { ...IOS_INSTALL, idfv: "00000000-0000-0000-0000-000000000000" };
    expect(value("idfv", { install: zeroIdfv })).toBe("");
  });

  it("withholds the IDFV and the address on iOS unless App Tracking Transparency is authorised", () => {
    expect(value("ip", { install: IOS_INSTALL })).toBe(IOS_INSTALL.ip);
    for (const attStatus of ["denied", "restricted", "not_determined", null] as const) {
      const install = { ...IOS_INSTALL, attStatus };
      expect(value("idfv", { install }), String(attStatus)).toBe("");
      expect(value("ip", { install }), String(attStatus)).toBe("");
    }
    // Android has no such switch: its address goes where consent allows.
    expect(value("ip", { install: { ...ANDROID_INSTALL, attStatus: null } })).toBe(
      ANDROID_INSTALL.ip,
    );
  });

  it("names the install's type as its attribution gives it", () => {
    expect(value("install_type", { install: IOS_INSTALL })).toBe("new_install");
    expect(
      value("install_type", {
        install: { ...IOS_INSTALL, installType: "reinstall_same_device" },
      }),
    ).toBe("reinstall_same_device");
    expect(value("install_type")).toBe("");
  });

  it("writes an amount without an exponent, and its USD value where ingestion had a rate", () => {
    const tiny = { ...PURCHASE, revenue: { amount: 1e-7, currency: "USD", usd: 1e-7 } };
    expect(value("revenue", { event: tiny })).toBe("0.0000001");
    expect(value("revenue_usd", { event: tiny })).toBe("0.0000001");
    const euros = { ...PURCHASE, revenue: { amount: 9.99, currency: "EUR", usd: 10.79 } };
    expect(value("revenue_usd", { event: euros })).toBe("10.79");
    // No rate: none.
    expect(value("revenue_usd", { event: PURCHASE })).toBe("");
    expect(value("revenue_usd", { event: { ...PURCHASE, revenue: null } })).toBe("");
  });

  it("sends ids to a partner that did not win the install under `all`, within consent", () => {
    expect(value("advertising_id", { won: false })).toBe(ANDROID_INSTALL.advertisingId);
  });
});

describe("buildRequest", () => {
  const GET = {
    method: "GET" as const,
    url: "https://pb.example.com/i?c={click_id}&ifa={advertising_id}",
    headers: {},
    body: null,
  };

  it("fills the URL, the headers and the body, typing a JSON body", () => {
    const built = buildRequest(
      {
        method: "POST",
        url: "https://pb.example.com/e/{partner.app}",
        headers: { "X-Key": "{partner.key}" },
        body: '{"e": "{event_name}", "v": "{revenue}"}',
      },
      contextOf({ event: PURCHASE, values: { app: "A 1", key: "k" } }),
    );
    expect(built).toEqual({
      ok: true,
      request: {
        method: "POST",
        url: "https://pb.example.com/e/A%201",
        headers: { "X-Key": "k", "Content-Type": "application/json" },
        body: '{"e":"in_app_purchase","v":9.99}',
      },
    });
  });

  it("builds nothing when a macro the partner needs is empty", () => {
    const refused = { ...ANDROID_INSTALL, consent: consentOf({ adUserData: false }) };
    expect(buildRequest(GET, contextOf({ install: refused }), ["advertising_id"])).toEqual({
      ok: false,
      problem: "the partner needs advertising_id, which is empty",
      missing: ["advertising_id"],
    });
    expect(buildRequest(GET, contextOf(), ["advertising_id"]).ok).toBe(true);
  });

  it("builds nothing over the size bounds", () => {
    const huge = "x".repeat(REQUEST_LIMITS.maxUrlBytes);
    const context = contextOf({
      install: { ...ANDROID_INSTALL, touch: { ...TOUCH, clickId: huge } },
    });
    expect(buildRequest(GET, context)).toEqual({
      ok: false,
      problem: `the URL is longer than ${REQUEST_LIMITS.maxUrlBytes} bytes`,
    });
    const body = {
      ...GET,
      method: "POST" as const,
      url: "https://pb.example.com/",
      body: '{"c": "{click_id}"}',
    };
    const long = "y".repeat(REQUEST_LIMITS.maxBodyBytes);
    const bodyContext = contextOf({
      install: { ...ANDROID_INSTALL, touch: { ...TOUCH, clickId: long } },
    });
    expect(buildRequest(body, bodyContext).ok).toBe(false);
  });

  it("builds nothing whose host a macro chose", () => {
    const tapped = (sub: string) => ({
      install: { ...ANDROID_INSTALL, touch: { ...TOUCH, urlParams: { sub } } },
    });
    const leading = { ...GET, url: "{partner.endpoint}{click.sub}/install" };
    const endpoint = { endpoint: "https://postbacks.partner.com" };
    expect(
      buildRequest(leading, contextOf({ ...tapped(".attacker.example"), values: endpoint })),
    ).toEqual({
      ok: false,
      problem: "the filled URL's host is not the template's own",
    });
    expect(buildRequest(leading, contextOf({ ...tapped(""), values: endpoint })).ok).toBe(true);
    const literal = { ...GET, url: "https://pb.example.com{click.sub}/install" };
    expect(buildRequest(literal, contextOf(tapped(".attacker.example"))).ok).toBe(false);
    expect(buildRequest(literal, contextOf(tapped("")))).toMatchObject({ ok: false });
    const path = { ...GET, url: "https://pb.example.com/{click.sub}?s={click.sub}" };
    expect(buildRequest(path, contextOf(tapped("@evil.example:1/x?#")))).toMatchObject({
      ok: true,
      request: { url: expect.stringMatching(/^https:\/\/pb\.example\.com\//) },
    });
  });

  it("fills a name a value or a link's parameter inherits with nothing, in a URL, a header and a body", () => {
    const names = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"];
    const template = {
      method: "POST" as const,
      url: `https://pb.example.com/i?${names.map((n) => `p_${n}={partner.${n}}&c_${n}={click.${n}}`).join("&")}`,
      headers: Object.fromEntries(names.map((n) => [`X-${n}`, `{partner.${n}}{click.${n}}`])),
      body: JSON.stringify(
        Object.fromEntries(names.map((n) => [n, `a{partner.${n}}{click.${n}}`])),
      ),
    };
    // A touch as read back from a store: a plain object parsed from JSON.
    const touch = { ...TOUCH, urlParams: JSON.parse('{"gamer_id": "g"}') };
    const built = buildRequest(template, contextOf({ install: { ...ANDROID_INSTALL, touch } }));
    if (!built.ok) throw new Error(built.problem);
    const url = new URL(built.request.url);
    for (const name of names) {
      expect(url.searchParams.get(`p_${name}`)).toBe("");
      expect(url.searchParams.get(`c_${name}`)).toBe("");
      // A header filled with nothing is not sent at all.
      expect(built.request.headers).not.toHaveProperty(`X-${name}`);
      expect(JSON.parse(built.request.body ?? "{}")[name]).toBe("a");
    }
  });

  it("builds nothing when the URL does not fill to one", () => {
    const template = { ...GET, url: "{partner.endpoint}?x=1" };
    expect(buildRequest(template, contextOf({ values: { endpoint: "nowhere" } }))).toEqual({
      ok: false,
      problem: "the filled URL is not an absolute URL",
    });
  });
});

describe("the macro table", () => {
  it("names every macro once, each known, in the table docs/postbacks.md shows", () => {
    const names = MACROS.map((macro) => macro.name);
    expect(new Set(names).size).toBe(names.length);
    const table = macroTableMarkdown();
    for (const name of names) expect(table).toContain(`| \`{${name}}\` |`);
    for (const name of names.filter((n) => !n.includes("<"))) expect(isKnownMacro(name)).toBe(true);
    expect(isKnownMacro("partner.x")).toBe(true);
    expect(isKnownMacro("click.x")).toBe(true);
    expect(isKnownMacro("nope")).toBe(false);
    expect(isKnownMacro("partner.")).toBe(false);
  });

  it("reads the macros a text names", () => {
    expect(macrosIn("a={x}&b={partner.k}&c={click.sub_1}&d={x}&e={}")).toEqual([
      "x",
      "partner.k",
      "click.sub_1",
    ]);
  });
});

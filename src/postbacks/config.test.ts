import { describe, expect, it } from "vitest";
import { ValidationError } from "../domain/errors.ts";
import { formatIssues } from "../validation/issues.ts";
import {
  DEFAULT_EVENT_WINDOW_DAYS,
  endpointsOf,
  type PartnerConfigInput,
  parsePartnerConfig,
  parseWebhookConfig,
  secretNamesOf,
  secretsOf,
} from "./config.ts";
import { PARTNERS } from "./partners.ts";
import { partnerRequestSchema } from "./wire.ts";

const base = { id: "pc_1", appId: "com.example.game" } as const;

const problem = (input: unknown): string => {
  try {
    parsePartnerConfig(input);
  } catch (error) {
    if (error instanceof ValidationError) return error.message;
    throw error;
  }
  return "";
};

const CUSTOM_GET = {
  method: "GET",
  install: { url: "https://pb.example.com/i?c={click_id}&k={partner.key}" },
} as const;

describe("a catalog partner's configuration", () => {
  it("takes the catalog's installs, media sources and vendor id, and the 180-day event window", () => {
    const config = parsePartnerConfig({
      ...base,
      partner: "google-ads",
      values: { dev_token: "DEV", link_id: "L1" },
    });
    expect(config).toEqual({
      ...base,
      partner: "google-ads",
      template: null,
      mediaSources: ["googleadwords_int", "google_ads"],
      values: { dev_token: "DEV", link_id: "L1" },
      secretValues: [],
      installs: "all",
      events: {},
      eventWindowDays: DEFAULT_EVENT_WINDOW_DAYS,
      tcfVendorId: 755,
      enabled: true,
    });
    expect(DEFAULT_EVENT_WINDOW_DAYS).toBe(180);
  });

  it("keeps the owner's choices over the catalog's", () => {
    const config = parsePartnerConfig({
      ...base,
      partner: "unity-ads",
      values: { game_id: "5000" },
      mediaSources: ["unity_custom"],
      installs: "all",
      events: {
        service_purchase: { name: "purchase", revenue: true },
        service_login: { name: "session" },
      },
      eventWindowDays: 30,
      tcfVendorId: 3,
      enabled: false,
    });
    expect(config).toMatchObject({
      mediaSources: ["unity_custom"],
      installs: "all",
      events: {
        service_purchase: { name: "purchase", revenue: true },
        service_login: { name: "session", revenue: false },
      },
      eventWindowDays: 30,
      tcfVendorId: 3,
      enabled: false,
    });
  });

  it("takes a vendor id of none over the catalog's, and refuses one the TCF string cannot carry", () => {
    const google = { ...base, partner: "google-ads", values: { dev_token: "D", link_id: "L" } };
    expect(parsePartnerConfig({ ...google, tcfVendorId: null }).tcfVendorId).toBeNull();
    const generic = {
      ...base,
      partner: "generic",
      mediaSources: ["net_int"],
      values: { endpoint: "https://p.example" },
    };
    expect(parsePartnerConfig(generic).tcfVendorId).toBeNull();
    for (const [tcfVendorId, problem] of [
      [0, "must be at least 1"],
      [65_536, "must be at most 65535"],
      [1.5, "must be a whole number"],
    ] as const) {
      expect(() => parsePartnerConfig({ ...google, tcfVendorId })).toThrow(problem);
    }
  });

  it("accepts a minimal configuration of every catalog partner", () => {
    const values: Record<string, Record<string, string>> = {
      generic: { endpoint: "https://hooks.example.com/pb" },
      "google-ads": { dev_token: "D", link_id: "L" },
      snapchat: { snap_app_id: "S", access_token: "T" },
      tiktok: { tiktok_app_id: "1", access_token: "T" },
      "unity-ads": { game_id: "G" },
    };
    for (const partner of PARTNERS) {
      const mediaSources = partner.id === "generic" ? ["my_network"] : undefined;
      expect(
        problem({ ...base, partner: partner.id, values: values[partner.id], mediaSources }),
      ).toBe("");
    }
  });

  it("asks for each value the partner's template uses, and refuses others", () => {
    expect(problem({ ...base, partner: "google-ads", values: { link_id: "L1" } })).toBe(
      "values.dev_token: is required: the Google Ads (app conversion tracking API) template uses it",
    );
    expect(
      problem({ ...base, partner: "unity-ads", values: { game_id: "G", gameid: "typo" } }),
    ).toMatch(/^values\.gameid: is not a value of Unity Ads \(game_id\)/);
  });

  it("refuses an unknown partner, and a template for a catalog one", () => {
    expect(problem({ ...base, partner: "myspace" })).toMatch(/^partner: must be one of generic, /);
    expect(
      problem({ ...base, partner: "unity-ads", values: { game_id: "G" }, template: CUSTOM_GET }),
    ).toMatch(/^template: is only for a custom partner/);
  });

  it("maps events only to names the partner takes", () => {
    const google = { ...base, partner: "google-ads", values: { dev_token: "D", link_id: "L" } };
    expect(problem({ ...google, events: { service_purchase: { name: "in_app_purchase" } } })).toBe(
      "",
    );
    expect(problem({ ...google, events: { service_purchase: { name: "purchase" } } })).toMatch(
      /^events\.service_purchase\.name: must be one of session_start, in_app_purchase/,
    );
  });

  it("maps events only by the names the export gives them, naming the form expected", () => {
    const unity = { ...base, partner: "unity-ads", values: { game_id: "1" } };
    const keyed = (key: string) => problem({ ...unity, events: { [key]: { name: "purchase" } } });
    for (const key of [
      "service_purchase",
      "service_level_complete",
      "service_boss_defeated",
      "service_café_visit",
      "service_2x_bonus",
    ]) {
      expect(keyed(key), key).toBe("");
    }
    const expected =
      "must be our event name as the export gives it: service_ and the event in snake case (service_purchase, service_level_complete, or a CUSTOM event's service_<name in snake_case>)";
    expect(keyed("PURCHASE")).toBe(`events.PURCHASE: ${expected}: service_purchase?`);
    expect(keyed("purchase")).toBe(`events.purchase: ${expected}: service_purchase?`);
    expect(keyed("Service_Level Complete")).toBe(
      `events["Service_Level Complete"]: ${expected}: service_level_complete?`,
    );
    expect(keyed("service_Purchase")).toBe(
      `events.service_Purchase: ${expected}: service_purchase?`,
    );
    expect(keyed("service_")).toBe(`events.service_: ${expected}`);
    expect(keyed("service__purchase")).toBe(
      `events.service__purchase: ${expected}: service_purchase?`,
    );
    for (const key of ["service_install", "INSTALL"]) {
      expect(keyed(key)).toMatch(
        /: is the install, which goes by the partner's install postback, not by an event mapping$/,
      );
    }
  });

  it("needs media sources when only won installs go", () => {
    expect(
      problem({ ...base, partner: "generic", values: { endpoint: "https://h.example.com/" } }),
    ).toBe("mediaSources: must name at least one media source: only the installs they won go");
    expect(
      problem({
        ...base,
        partner: "generic",
        values: { endpoint: "https://h.example.com/" },
        installs: "all",
      }),
    ).toBe("");
    expect(
      problem({
        ...base,
        partner: "generic",
        values: { endpoint: "nowhere" },
        mediaSources: ["x"],
      }),
    ).toBe("values.endpoint: must be an https URL");
  });

  it("bounds the event window", () => {
    const unity = { ...base, partner: "unity-ads", values: { game_id: "G" } };
    expect(problem({ ...unity, eventWindowDays: 0 })).toBe("eventWindowDays: must be at least 1");
    expect(problem({ ...unity, eventWindowDays: 366 })).toBe(
      "eventWindowDays: must be at most 365",
    );
    expect(problem({ ...unity, eventWindowDays: 1.5 })).toBe(
      "eventWindowDays: must be a whole number of days",
    );
  });
});

describe("a custom template", () => {
  const custom = (template: unknown, extra: Partial<PartnerConfigInput> = {}) => ({
    ...base,
    partner: "custom",
    template,
    values: { key: "K" },
    mediaSources: ["my_network"],
    ...extra,
  });

  it("is taken with its values and its own secret ones", () => {
    const config = parsePartnerConfig(custom(CUSTOM_GET, { secretValues: ["key"] }));
    expect(config.template).toEqual({
      method: "GET",
      install: { url: CUSTOM_GET.install.url, headers: {} },
    });
    expect(secretNamesOf(config)).toEqual(["key"]);
    expect(secretsOf(config)).toEqual(["K"]);
  });

  it("is required for a custom partner", () => {
    expect(problem({ ...base, partner: "custom", mediaSources: ["x"] })).toBe(
      "template: is required for a custom partner",
    );
  });

  it("names its host literally, over http(s)", () => {
    expect(
      problem(custom({ method: "GET", install: { url: "https://{partner.key}.example.com/x" } })),
    ).toBe(
      "template.install.url: must name its host literally: a macro may not choose where a postback goes",
    );
    expect(
      problem(custom({ method: "GET", install: { url: "ftp://x.example.com/{click_id}" } })),
    ).toBe("template.install.url: must begin with https:// or with {partner.<name>} holding a URL");
    // A macro anywhere in the host, not only at its start.
    expect(
      problem(custom({ method: "GET", install: { url: "https://pb{click_id}.example.com/x" } })),
    ).toBe(
      "template.install.url: must name its host literally: a macro may not choose where a postback goes",
    );
    expect(problem(custom({ method: "GET", install: { url: "http://pb.example.com/x" } }))).toBe(
      "",
    );
  });

  it("needs an install or an event template, and maps events only with the event one", () => {
    expect(problem(custom({ method: "GET" }))).toBe(
      "template: needs an install or an event template",
    );
    expect(
      problem(
        custom(CUSTOM_GET, { events: { service_purchase: { name: "purchase", revenue: false } } }),
      ),
    ).toBe("events: cannot be mapped: Custom template takes no event postbacks");
  });

  it("counts as secret the values it sends as credentials, in a query, a header or a body", () => {
    const config = parsePartnerConfig(
      custom(
        {
          method: "POST",
          install: {
            url: "https://x.example.com/i?app={partner.app}&api%5Fkey={partner.k}",
            headers: { Authorization: "Bearer {partner.tok}", "X-Trace": "{partner.trace}" },
            body: '{"auth":{"signature":"{partner.sig}"},"site":"{partner.site}"}',
          },
        },
        { values: { app: "A1", k: "K1", tok: "T1", trace: "R1", sig: "S1", site: "W1", pin: "" } },
      ),
    );
    expect(secretNamesOf(config).sort()).toEqual(["k", "sig", "tok"]);
    expect(secretsOf(config).sort()).toEqual(["K1", "S1", "T1"]);
    // A secret value left empty hides nothing, and is no secret to mask.
    const empty = parsePartnerConfig(
      custom(CUSTOM_GET, { values: { key: "K", pin: "" }, secretValues: ["pin", "key"] }),
    );
    expect(secretNamesOf(empty)).toEqual(["pin", "key"]);
    expect(secretsOf(empty)).toEqual(["K"]);
  });

  it("counts as secret a hook's id its event URL holds", () => {
    const config = parsePartnerConfig(
      custom(
        {
          method: "GET",
          install: { url: "https://pb.example.com/i" },
          event: { url: "https://hooks.zapier.com/hooks/catch/2304596/oe7ts8z/?e={event_name}" },
        },
        { values: {} },
      ),
    );
    expect(secretsOf(config)).toEqual(["oe7ts8z"]);
  });

  it("may begin with the advertiser's URL, which must be one", () => {
    const template = { method: "GET", install: { url: "{partner.endpoint}?c={click_id}" } };
    expect(problem(custom(template, { values: { endpoint: "https://pb.example.com/x" } }))).toBe(
      "",
    );
    expect(problem(custom(template, { values: { endpoint: "pb.example.com" } }))).toBe(
      "values.endpoint: must be an https URL: the template begins with it",
    );
  });

  it("refuses a macro the service does not know", () => {
    expect(
      problem(custom({ method: "GET", install: { url: "https://x.example.com/?a={clickid}" } })),
    ).toMatch(/^template: names the macro \{clickid\}, which the service does not know/);
  });

  it("takes a JSON body with POST only, and leaves framing headers to the sender", () => {
    const post = (body: string, method = "POST", headers = {}) =>
      problem(
        custom(
          { method, event: { url: "https://x.example.com/e", body, headers } },
          { values: {} },
        ),
      );
    expect(post('{"e": "{event_name}"}')).toBe("");
    expect(post('{"e": "{event_name}"}', "GET")).toBe("template.event.body: needs POST");
    expect(post("{e: 1}")).toBe("template.event.body: must be JSON");
    // A lone value: empty, its macro would leave no body at all.
    expect(post('"{idfa}"')).toBe("template.event.body: must be a JSON object or array");
    expect(post("null")).toBe("template.event.body: must be a JSON object or array");
    expect(post('[{"e": "{event_name}"}]')).toBe("");
    expect(post("{}", "POST", { "Content-Length": "5" })).toBe(
      'template.event.headers["Content-Length"]: is set by the sender, not by a template',
    );
  });

  it("refuses a secret value it does not have", () => {
    expect(problem(custom(CUSTOM_GET, { secretValues: ["token"] }))).toBe(
      "secretValues[0]: names token, which is not among the values",
    );
  });

  it("takes no name its values inherit as one of them", () => {
    expect(
      problem(
        custom({
          method: "GET",
          install: {
            url: "https://x.example.com/i?a={partner.constructor}",
            headers: { "X-K": "{partner.tostring}" },
          },
        }),
      ),
    ).toBe(
      "values.constructor: is required: the template uses it; values.tostring: is required: the template uses it",
    );
    expect(problem(custom(CUSTOM_GET, { secretValues: ["constructor"] }))).toBe(
      "secretValues[0]: names constructor, which is not among the values",
    );
  });

  it("lets nothing but a path or a query follow the advertiser's URL it begins with", () => {
    const following = (rest: string) =>
      problem(
        custom(
          { method: "GET", install: { url: `{partner.endpoint}${rest}` } },
          { values: { endpoint: "https://pb.example.com" } },
        ),
      );
    for (const rest of ["{click.sub}/i", ".attacker.example/i", ":8443/i", "@evil.example/i"]) {
      expect(following(rest)).toBe(
        "template.install.url: must follow {partner.endpoint} with /, ? or nothing: a macro may not choose where a postback goes",
      );
    }
    for (const rest of ["", "/i/{click.sub}", "?s={click.sub}"]) expect(following(rest)).toBe("");
  });

  it("bounds the headers as a send does, the Content-Type of a JSON body counted", () => {
    const headers = (count: number, size = 1) =>
      Object.fromEntries(
        Array.from({ length: count }, (_, i) => [`X-H${i}`, "v".repeat(size)] as const),
      );
    const get = (h: Record<string, string>) =>
      problem(
        custom(
          { method: "GET", install: { url: "https://x.example.com/i", headers: h } },
          {
            values: {},
          },
        ),
      );
    expect(get(headers(20))).toBe("");
    expect(get(headers(21))).toBe("template.install.headers: must be at most 20 headers");
    expect(get(headers(8, 1000))).toBe("");
    expect(get(headers(9, 1000))).toBe(
      "template.install.headers: must be at most 8192 bytes of names and values together",
    );
    const post = problem(
      custom(
        {
          method: "POST",
          install: { url: "https://x.example.com/i", headers: headers(20), body: "{}" },
        },
        { values: {} },
      ),
    );
    expect(post).toBe(
      "template.install.headers: must be at most 20 headers, with the Content-Type a JSON body adds",
    );
    // A template that sets its own Content-Type (in any case) adds none.
    const own = problem(
      custom(
        {
          method: "POST",
          install: {
            url: "https://x.example.com/i",
            headers: { ...headers(20), "content-type": "application/json" },
            body: "{}",
          },
        },
        { values: {} },
      ),
    );
    expect(own).toBe("template.install.headers: must be at most 20 headers");
  });

  it("refuses a fragment in the advertiser's URL it begins with", () => {
    const template = { method: "GET", install: { url: "{partner.endpoint}?c={click_id}" } };
    expect(problem(custom(template, { values: { endpoint: "https://pb.example.com/x#f" } }))).toBe(
      "values.endpoint: must have no #fragment: a postback is sent without one: the template begins with it",
    );
  });
});

describe("secrets and endpoints", () => {
  const snap = parsePartnerConfig({
    ...base,
    partner: "snapchat",
    values: { snap_app_id: "S1", access_token: "TOKEN-1" },
  });

  it("counts the catalog's secret values as secret whatever the owner said", () => {
    expect(secretNamesOf(snap)).toEqual(["access_token"]);
    expect(secretsOf(snap)).toEqual(["TOKEN-1"]);
  });

  it("counts the credentials inside a value that is a URL as secret", () => {
    const generic = parsePartnerConfig({
      ...base,
      partner: "generic",
      mediaSources: ["net"],
      values: { endpoint: "https://hooks.example.com/in/T0123456789ABCDEF?app=1&api_key=K-9" },
    });
    expect(secretsOf(generic)).toEqual(["T0123456789ABCDEF", "K-9"]);
  });

  it("refuses a catalog endpoint with a fragment", () => {
    expect(
      problem({
        ...base,
        partner: "generic",
        values: { endpoint: "https://hooks.example.com/pb#x" },
        installs: "all",
      }),
    ).toBe("values.endpoint: must have no #fragment: a postback is sent without one");
  });

  it("refuses a catalog endpoint with a macro in it, which would be sent as written", () => {
    expect(
      problem({
        ...base,
        partner: "generic",
        values: { endpoint: "https://tracker.example.com/pb/{click_id}" },
        installs: "all",
      }),
    ).toBe(
      "values.endpoint: must have no { or }: the URL is sent as given, with the facts added as parameters (a brace the URL needs is written %7B, %7D)",
    );
  });

  it("keeps in an endpoint what the address check refuses, and refuses one that is no URL", () => {
    const literal = parsePartnerConfig({
      ...base,
      partner: "custom",
      mediaSources: ["x"],
      template: { method: "GET", install: { url: "https://u@pb.example.com/i?k=1#f" } },
    });
    expect(endpointsOf(literal)).toEqual(["https://u@pb.example.com/i#f"]);
    const generic = parsePartnerConfig({
      ...base,
      partner: "generic",
      values: { endpoint: "https://hooks.example.com/pb" },
      installs: "all",
    });
    // As a configuration stored before its value was checked as it is now.
    expect(() => endpointsOf({ ...generic, values: { endpoint: "hooks.example.com" } })).toThrow(
      ValidationError,
    );
  });

  it("lists where postbacks go, without the query that holds keys", () => {
    expect(endpointsOf(snap)).toEqual(["https://tr.snapchat.com/v3/S1/events"]);
    const generic = parsePartnerConfig({
      ...base,
      partner: "generic",
      values: { endpoint: "https://hooks.example.com/pb?key=abc" },
      installs: "all",
    });
    expect(endpointsOf(generic)).toEqual(["https://hooks.example.com/pb"]);
    const google = parsePartnerConfig({
      ...base,
      partner: "google-ads",
      values: { dev_token: "D", link_id: "L" },
    });
    expect(endpointsOf(google)).toEqual([
      "https://www.googleadservices.com/pagead/conversion/app/1.0",
    ]);
  });
});

describe("a webhook's configuration", () => {
  const webhook = {
    id: "wh_1",
    appId: "com.example.game",
    url: "https://backend.example.com/attribution",
    secret: "whsec_abcdefghijklmnopqrstuvwxyz0123456789",
  };

  it("is a URL, a signing secret and a switch", () => {
    expect(parseWebhookConfig(webhook)).toEqual({ ...webhook, previous: null, enabled: true });
  });

  it("refuses a URL that is not one, and a short secret", () => {
    for (const url of ["backend.example.com", "ftp://backend.example.com/in", "mailto:a@b.c"]) {
      expect(() => parseWebhookConfig({ ...webhook, url }), url).toThrow(
        "url: must be an https URL",
      );
    }
    expect(parseWebhookConfig({ ...webhook, url: "http://backend.example.com/in" }).url).toBe(
      "http://backend.example.com/in",
    );
    expect(() => parseWebhookConfig({ ...webhook, secret: "short" })).toThrow(
      "secret: must be at least 32 characters",
    );
  });
});

describe("a partner configuration's request body", () => {
  it("refuses an event mapping named __proto__, which an object would take as its prototype", () => {
    const body = JSON.parse(
      '{"partner":"generic","values":{"endpoint":"https://pb.example.com/i"},"media_sources":["net"],"events":{"__proto__":{"name":"x","revenue":false},"service_purchase":{"name":"purchase","revenue":true}}}',
    );
    const parsed = partnerRequestSchema.safeParse(body);
    expect(parsed.success).toBe(false);
    expect(formatIssues(parsed.error?.issues ?? [], "body")).toContain(
      "events.__proto__: is not a possible key",
    );
    Reflect.deleteProperty(body.events, "__proto__");
    expect(partnerRequestSchema.safeParse(body).success).toBe(true);
  });
});

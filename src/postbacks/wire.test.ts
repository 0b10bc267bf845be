/** The configuration routes' wire: problems named by the body's fields, answers masked. */
import { describe, expect, it } from "vitest";
import type { DeliveryLogEntry, StoredPartnerConfig } from "../ports/postbacks.ts";
import { PARTNERS, type PartnerTemplate } from "./partners.ts";
import { MASK } from "./retries.ts";
import {
  catalogAnswer,
  countsAnswer,
  logEntryAnswer,
  maskedLeft,
  type PartnerRequest,
  parseTestRequest,
  partnerAnswer,
  partnerConfigFrom,
} from "./wire.ts";

const APP = "com.example.wire";

const problemOf = (body: PartnerRequest): string => {
  try {
    partnerConfigFrom(APP, "pc_1", body);
  } catch (error) {
    return (error as Error).message;
  }
  return "";
};

describe("a partner configuration's body", () => {
  it("names each problem by the body's own field", () => {
    const generic = { partner: "generic", values: { endpoint: "https://pb.example.com/i" } };
    expect(problemOf(generic)).toBe(
      "media_sources: must name at least one media source: only the installs they won go",
    );
    expect(problemOf({ ...generic, media_sources: ["net"], secret_values: ["token"] })).toBe(
      "secret_values[0]: names token, which is not among the values",
    );
    expect(problemOf({ ...generic, media_sources: ["net"], event_window_days: 0 })).toMatch(
      /^event_window_days: /,
    );
    expect(problemOf({ ...generic, media_sources: ["net"], tcf_vendor_id: -1 })).toMatch(
      /^tcf_vendor_id: /,
    );
  });

  it("finds the masks no stored value stands behind, wherever an answer puts them", () => {
    const custom = (install: Record<string, unknown>, values: Record<string, string> = {}) =>
      maskedLeft({
        partner: "custom",
        template: { method: "GET", install } as PartnerRequest["template"],
        values,
      });
    expect(custom({ url: "https://pb.example.com/i?app=1&api_key=***" })).toEqual([
      "template.install.url",
    ]);
    // A key named like a credential by its whole name alone, `sig`, read whole.
    expect(custom({ url: "https://pb.example.com/i?a=1&sig=***" })).toEqual([
      "template.install.url",
    ]);
    expect(custom({ url: "https://pb.example.com/***/i" })).toEqual(["template.install.url"]);
    expect(custom({ url: "https://***.m.pipedream.net/" })).toEqual(["template.install.url"]);
    // A query key not named like a credential may hold three stars of its own.
    expect(custom({ url: "https://pb.example.com/i?note=***" })).toEqual([]);
    expect(
      custom({
        url: "https://pb.example.com/i",
        headers: { Authorization: MASK, "X-Note": MASK },
      }),
    ).toEqual(["template.install.headers.Authorization"]);
    expect(custom({ url: "https://pb.example.com/i" }, { key: MASK, note: "a***b" })).toEqual([
      "values.key",
    ]);
    // A key's name read decoded, and as written when it does not decode.
    for (const url of [
      "https://pb.example.com/i?%73ig=***",
      "https://pb.example.com/i?api_key%=***",
      "https://pb.example.com/i?api_key=***#top",
    ]) {
      expect(custom({ url }), url).toEqual(["template.install.url"]);
    }
    // Three stars that begin a value, or stand in the fragment, are not where an answer puts a mask.
    for (const url of [
      "https://pb.example.com/i?api_key=***x",
      "https://pb.example.com/i#/***/x",
    ]) {
      expect(custom({ url }), url).toEqual([]);
    }
    // A body that is no JSON holds no key a mask could stand under (the schema refuses it).
    expect(custom({ url: "https://pb.example.com/i", body: '{"api_key": ***' })).toEqual([]);
  });
});

describe("a partner configuration as answered", () => {
  const stored: StoredPartnerConfig = {
    id: "pc_1",
    appId: APP,
    partner: "custom",
    template: {
      method: "GET",
      install: { url: "https://pb.example.com/i", headers: { Authorization: "" } },
      event: {
        url: "https://pb.example.com/e?api_key=K-1",
        headers: { "X-Api-Key": "K-2", "X-Note": "shown" },
      },
    },
    mediaSources: ["net"],
    values: {},
    sealedValues: {},
    secretValues: [],
    installs: "won",
    events: {},
    eventWindowDays: 180,
    tcfVendorId: null,
    enabled: true,
    updatedAt: "2026-11-30T10:00:00.000Z",
  };

  it("masks the event template's credentials as the install's, and no empty one", () => {
    const answer = partnerAnswer(stored);
    expect(answer.template).toEqual({
      method: "GET",
      install: { url: "https://pb.example.com/i", headers: { Authorization: "" } },
      event: {
        url: `https://pb.example.com/e?api_key=${MASK}`,
        headers: { "X-Api-Key": MASK, "X-Note": "shown" },
      },
    });
  });

  it("masks a credential value, and shows an empty one as empty", () => {
    const generic: StoredPartnerConfig = {
      ...stored,
      partner: "generic",
      template: null,
      values: { endpoint: "https://pb.example.com/i", api_key: "K-1", auth_token: "" },
    };
    expect(partnerAnswer(generic).values).toEqual({
      endpoint: "https://pb.example.com/i",
      api_key: MASK,
      auth_token: "",
    });
  });
});

describe("the partner catalog as answered", () => {
  const partner = (id: string): PartnerTemplate => {
    const found = PARTNERS.find((p) => p.id === id);
    if (!found) throw new Error(`no ${id} in the catalog`);
    return found;
  };

  it("lists every macro a partner's templates fill, from their URLs, headers and bodies, sorted", () => {
    const macros = catalogAnswer(partner("tiktok")).macros;
    expect(macros).toEqual([...macros].sort());
    // In its header alone, and in its body alone.
    expect(macros).toEqual(expect.arrayContaining(["partner.access_token", "gaid"]));
  });

  it("says which requests a partner takes, and names its event names", () => {
    const google = partner("google-ads");
    expect(catalogAnswer(google)).toMatchObject({
      takes_installs: true,
      takes_events: true,
      event_names: [...(google.eventNames ?? [])],
    });
    expect(catalogAnswer({ ...google, install: null })).toMatchObject({
      takes_installs: false,
      takes_events: true,
    });
    expect(catalogAnswer({ ...google, event: null })).toMatchObject({
      takes_installs: true,
      takes_events: false,
    });
  });
});

describe("a test postback's body", () => {
  it("is an install's on the app's platform when there is none", () => {
    expect(parseTestRequest(undefined)).toEqual({ kind: "install" });
    expect(parseTestRequest(null)).toEqual({ kind: "install" });
  });
});

describe("the delivery log as answered", () => {
  it("gives a day's counts each under its own name", () => {
    // Each count its own number, so that no two can be swapped unseen.
    expect(
      countsAnswer({
        day: "2026-11-02",
        configId: "net-a",
        partner: "custom",
        delivered: 7,
        retry: 5,
        failed: 3,
        skipped: 2,
      }),
    ).toEqual({
      day: "2026-11-02",
      config_id: "net-a",
      partner: "custom",
      delivered: 7,
      retry: 5,
      failed: 3,
      skipped: 2,
    });
  });

  it("gives an attempt each of its facts under its own name", () => {
    const entry: DeliveryLogEntry = {
      appId: "com.example.game",
      sendId: "snd_1",
      configId: "net-a",
      target: "partner",
      partner: "custom",
      subject: { kind: "event", serviceId: "s-1", eventId: "e-1" },
      time: "2026-11-02T10:00:00.000Z",
      url: "https://net.example/p?key=***",
      method: "GET",
      status: 503,
      answer: "busy",
      error: "answered 503",
      attempt: 2,
      retry: true,
      verdict: "retry",
      final: false,
      reason: null,
    };
    expect(logEntryAnswer(entry)).toEqual({
      time: "2026-11-02T10:00:00.000Z",
      send_id: "snd_1",
      config_id: "net-a",
      target: "partner",
      partner: "custom",
      kind: "event",
      service_id: "s-1",
      event_id: "e-1",
      method: "GET",
      url: "https://net.example/p?key=***",
      status: 503,
      answer: "busy",
      error: "answered 503",
      attempt: 2,
      retry: true,
      verdict: "retry",
      final: false,
      reason: null,
    });
  });
});

/**
 * The configuration routes' rules over an in-memory store: a secret value kept on a later PUT
 * stays sealed and unshown, and a test postback goes for every partner of the catalog.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyFileWrapper } from "../adapters/key-file/key-file-wrapper.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import type { App } from "../ports/apps.ts";
import type {
  DeliveryLogEntry,
  OutgoingRequest,
  PostbackConfigStore,
  PostbackSettings,
  SendOutcome,
  StoredPartnerConfig,
  StoredWebhookConfig,
} from "../ports/postbacks.ts";
import { createPostbackConfigurations } from "./configurations.ts";
import { PARTNERS } from "./partners.ts";
import { MASK } from "./retries.ts";
import { openPartnerConfig } from "./secrets.ts";
import { ROTATION_GRACE_HOURS, SIGNATURE_HEADER, verifySignature } from "./signing.ts";
import { partnerAnswer, shownUrl, webhookAnswer } from "./wire.ts";

const APP = "com.example.configurations";

const memoryStore = (): PostbackConfigStore => {
  const partners = new Map<string, StoredPartnerConfig>();
  const webhooks = new Map<string, StoredWebhookConfig>();
  const settings = new Map<string, PostbackSettings>();
  return {
    listByApp: async (appId) => ({
      partners: [...partners.values()].filter((config) => config.appId === appId),
      webhooks: [...webhooks.values()].filter((config) => config.appId === appId),
      settings: settings.get(appId) ?? { shareDeviceDataWithoutConsent: false },
    }),
    getPartner: async (appId, id) => partners.get(`${appId}/${id}`),
    getWebhook: async (appId, id) => webhooks.get(`${appId}/${id}`),
    putPartner: async (config) => void partners.set(`${config.appId}/${config.id}`, config),
    putWebhook: async (config) => void webhooks.set(`${config.appId}/${config.id}`, config),
    delete: async (appId, target, id) =>
      (target === "partner" ? partners : webhooks).delete(`${appId}/${id}`),
    putSettings: async (appId, given) => void settings.set(appId, given),
  };
};

/** An app none of whose installs was asked to be deleted. */
const NO_DELETIONS = {
  tombstones: async () => ({ serviceIds: [], version: 0 }),
  listByApp: async () => [],
};
describe("partner configurations", () => {
  let dir: string;
  let wrapper: KeyWrapper;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "postback-configurations-"));
    wrapper = createKeyFileWrapper(join(dir, "master.key"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const setup = (answer: SendOutcome = { kind: "answer", status: 200, body: "ok" }) => {
    const sent: OutgoingRequest[] = [];
    const store = memoryStore();
    const configurations = createPostbackConfigurations({
      deletions: NO_DELETIONS,
      store,
      wrapper,
      resolve: async () => [{ address: "93.184.216.34", family: 4 }],
      allowLoopback: false,
      sender: {
        send: async (request) => {
          sent.push(request);
          return answer;
        },
      },
    });
    return { configurations, sent, store };
  };

  it("masks a literal credential a custom template's JSON body carries, in answers and the test's record, and keeps it when the answer is sent back", async () => {
    const { configurations, sent, store } = setup();
    const body = JSON.stringify({
      data: [{ event_name: "{event_name}", user_data: { madid: "{gaid}" } }],
      access_token: "EAAB-LITERAL-TOKEN",
      auth: { keys: ["K-ONE", "K-TWO"], pin: 73915 },
    });
    const template = {
      method: "POST" as const,
      install: { url: "https://graph.partner.example/v19/events", headers: {}, body },
    };
    const request = { partner: "custom", template, media_sources: ["network_a"], values: {} };
    const { stored } = await configurations.putPartner(APP, "capi", request);
    const answer = partnerAnswer(stored);
    expect(JSON.stringify(answer)).not.toMatch(/LITERAL-TOKEN|K-ONE|K-TWO|73915/);
    const shown = answer.template as typeof template;
    expect(JSON.parse(shown.install.body)).toEqual({
      data: [{ event_name: "{event_name}", user_data: { madid: "{gaid}" } }],
      access_token: "***",
      auth: { keys: ["***", "***"], pin: "***" },
    });
    // Sent back as answered (the dashboard's Edit form), the body stays the stored one.
    await configurations.putPartner(APP, "capi", { ...request, template: shown, enabled: false });
    expect((await store.getPartner(APP, "capi"))?.template).toMatchObject({ install: { body } });
    const tried = await configurations.test(APP, "partner", "capi", {
      kind: "install",
      platform: "android",
    });
    expect(sent.at(-1)?.body).toContain("EAAB-LITERAL-TOKEN");
    expect(tried.request.body).not.toContain("EAAB-LITERAL-TOKEN");
    expect(JSON.parse(tried.request.body ?? "")).toMatchObject({ access_token: "***" });
    // A masked body under another URL stands for nothing: refused, not sent as ***.
    await expect(
      configurations.putPartner(APP, "other", { ...request, template: shown }),
    ).rejects.toThrow(/body\.template\.install\.body: is a credential masked as answered/);
  });

  it("refuses a hook URL edited around its masked path segment or host, and masks a template URL's hook secret in the test's record", async () => {
    const { configurations, sent, store } = setup();
    const zapier = "https://hooks.zapier.com/hooks/catch/2304596/oe7ts8z/";
    const { stored } = await configurations.putWebhook(APP, "zap", { url: zapier, enabled: true });
    const shown = webhookAnswer(stored).url;
    expect(shown).toBe("https://hooks.zapier.com/hooks/catch/2304596/***/");
    // As answered, it stands for the stored URL; edited around its mask, it stands for nothing.
    await configurations.putWebhook(APP, "zap", { url: shown, enabled: false });
    expect((await store.getWebhook(APP, "zap"))?.url).toBe(zapier);
    await expect(
      configurations.putWebhook(APP, "zap", { url: `${shown}?v=2`, enabled: true }),
    ).rejects.toThrow(/^body\.url: is a credential masked as answered/);
    const pipedream = "https://eo1a2b3c4d5e6f7.m.pipedream.net/in";
    await configurations.putWebhook(APP, "pd", { url: pipedream, enabled: true });
    await expect(
      configurations.putWebhook(APP, "pd", {
        url: "https://***.m.pipedream.net/in2",
        enabled: true,
      }),
    ).rejects.toThrow(/^body\.url: is a credential masked as answered/);
    expect((await store.getWebhook(APP, "zap"))?.url).toBe(zapier);

    // A custom template that posts to a hook: its test's record masks the hook's secret too.
    await configurations.putPartner(APP, "hook", {
      partner: "custom",
      template: {
        method: "GET",
        install: { url: `${zapier}?id={service_id}`, headers: {} },
      },
      media_sources: ["network"],
    });
    const tried = await configurations.test(APP, "partner", "hook", {
      kind: "install",
      platform: "android",
    });
    expect(sent.at(-1)?.url).toContain("/oe7ts8z/");
    expect(tried.request.url).not.toContain("oe7ts8z");
    expect(tried.request.url).toContain("/2304596/***/?id=");
  });

  it("warns in a test of a partner that matches on the advertising id that real installs with none to share are skipped", async () => {
    const { configurations } = setup();
    await configurations.putPartner(APP, "google", {
      partner: "google-ads",
      media_sources: ["googleadwords_int"],
      values: { dev_token: "dt-1", link_id: "L1" },
    });
    const test = () =>
      configurations.test(APP, "partner", "google", { kind: "install", platform: "android" });
    const [off] = (await test()).warnings;
    expect(off).toMatch(
      /^The partner matches on the advertising id, and a real send without it is skipped \(missing:advertising_id\)/,
    );
    expect(off).toContain("share_device_data_without_consent is off");
    await configurations.saveSettings(APP, { shareDeviceDataWithoutConsent: true });
    const [on] = (await test()).warnings;
    expect(on).toContain(
      "unless its consent refuses ad_user_data, or GDPR applies to it and it gave no answer",
    );
    // A partner that needs no id has nothing to warn of.
    await configurations.putPartner(APP, "custom", {
      partner: "custom",
      template: {
        method: "GET",
        install: { url: "https://p.example/i?id={service_id}", headers: {} },
      },
      media_sources: ["network"],
    });
    expect(
      (await configurations.test(APP, "partner", "custom", { kind: "install", platform: "ios" }))
        .warnings,
    ).toEqual([]);
    // Every other entry of what a partner requires is said too: TikTok's store id, Unity's ids.
    await configurations.putPartner(APP, "tiktok", {
      partner: "tiktok",
      values: { tiktok_app_id: "7000000000000000001", access_token: "TT" },
    });
    const [tiktok] = (
      await configurations.test(APP, "partner", "tiktok", { kind: "install", platform: "ios" })
    ).warnings;
    expect(tiktok).toMatch(/App Store id .* \(missing:store_app_id\)/);
    // Of a known app, only when its iPhone installs would lack it; the test's request then
    // carries the app's own store id, as a real send's does.
    const app = (links: App["links"], platform: App["platform"] = "ios"): App => ({
      appId: APP,
      name: "Game",
      platform,
      enabled: true,
      createdAt: "2026-01-01T00:00:00.000Z",
      ...(links ? { links } : {}),
    });
    const tiktokOf = (known: App) =>
      configurations.test(APP, "partner", "tiktok", {
        kind: "install",
        platform: "ios",
        app: known,
      });
    expect((await tiktokOf(app(undefined))).warnings).toEqual([tiktok]);
    expect((await tiktokOf(app({ iosBundleId: "com.example.ios" }, "android"))).warnings).toEqual([
      tiktok,
    ]);
    expect((await tiktokOf(app(undefined, "android"))).warnings).toEqual([]);
    const listed = await tiktokOf(app({ appStoreId: "1234567890" }));
    expect(listed.warnings).toEqual([]);
    expect(JSON.parse(listed.request.body ?? "{}").data[0].app.app_id).toBe("1234567890");
    await configurations.putPartner(APP, "unity", {
      partner: "unity-ads",
      values: { game_id: "500001" },
    });
    const [unity] = (
      await configurations.test(APP, "partner", "unity", { kind: "install", platform: "ios" })
    ).warnings;
    expect(unity).toMatch(
      /^The partner matches on the advertising id or the gamer id its click carries/,
    );
  });

  it("fails a test postback whose partner answered 200 with an error in its body, as a real send would", async () => {
    const { configurations } = setup({
      kind: "answer",
      status: 200,
      body: '{"code":40105,"message":"Access token is incorrect or has been revoked."}',
    });
    await configurations.putPartner(APP, "tiktok", {
      partner: "tiktok",
      media_sources: ["tiktokglobal_int"],
      values: { tiktok_app_id: "7000000000000000000", access_token: "tt-secret" },
    });
    const tried = await configurations.test(APP, "partner", "tiktok", {
      kind: "install",
      platform: "android",
    });
    expect(tried.verdict).toBe("failed");
    expect(tried.response).toMatchObject({
      status: 200,
      error: "answered 200 with code 40105: the partner refused it",
    });
  });

  it("keeps a secret the owner marked sealed and unshown when a later PUT leaves out its value and mark", async () => {
    const { configurations } = setup();
    const template = {
      method: "GET" as const,
      install: { url: "https://partner.example/i?p={partner.api_pw}&id={service_id}", headers: {} },
    };
    await configurations.putPartner(APP, "custom", {
      partner: "custom",
      template,
      media_sources: ["network"],
      values: { api_pw: "TOP-SECRET", account: "acc-1" },
      secret_values: ["api_pw"],
    });
    // Switched off, the body leaving out the value it cannot have seen.
    const { stored } = await configurations.putPartner(APP, "custom", {
      partner: "custom",
      template,
      media_sources: ["network"],
      values: { account: "acc-1" },
      enabled: false,
    });
    expect(JSON.stringify(stored)).not.toContain("TOP-SECRET");
    expect(Object.keys(stored.sealedValues)).toEqual(["api_pw"]);
    const answer = partnerAnswer(stored);
    expect(JSON.stringify(answer)).not.toContain("TOP-SECRET");
    expect(answer.secret_values).toEqual(["api_pw"]);
    // Still there, still the same value, for the postbacks.
    expect((await openPartnerConfig(stored, wrapper)).values.api_pw).toBe("TOP-SECRET");
    // Given anew without its mark: the body decides, whole; the owner unmarked it.
    const unmarked = await configurations.putPartner(APP, "custom", {
      partner: "custom",
      template,
      media_sources: ["network"],
      values: { api_pw: "NOW-PUBLIC", account: "acc-1" },
    });
    expect(partnerAnswer(unmarked.stored)).toMatchObject({
      values: { api_pw: "NOW-PUBLIC", account: "acc-1" },
      sealed_values: [],
      secret_values: [],
    });
  });

  it("takes a new value given for a saved secret, and marks no catalog secret as the owner's", async () => {
    const { configurations } = setup();
    const snap = { partner: "snapchat", values: { snap_app_id: "S1", access_token: "TOKEN-1" } };
    await configurations.putPartner(APP, "snap", snap);
    // Left out: kept, secret by the catalog alone.
    const kept = await configurations.putPartner(APP, "snap", {
      ...snap,
      values: { snap_app_id: "S1" },
    });
    expect((await openPartnerConfig(kept.stored, wrapper)).values.access_token).toBe("TOKEN-1");
    expect(partnerAnswer(kept.stored)).toMatchObject({
      sealed_values: ["access_token"],
      secret_values: [],
    });
    // Given anew: the new one.
    const given = await configurations.putPartner(APP, "snap", {
      ...snap,
      values: { snap_app_id: "S1", access_token: "TOKEN-2" },
    });
    expect((await openPartnerConfig(given.stored, wrapper)).values.access_token).toBe("TOKEN-2");
  });

  it("repoints a configuration whose unchanged values, URL, body and headers hold no mask", async () => {
    const { configurations } = setup();
    const install = {
      url: "https://partner.example/i?account={partner.account}&id={service_id}",
      headers: { "X-Note": "plain" },
      body: '{"account": "{partner.account}"}',
    };
    const body = (eventHost: string) => ({
      partner: "custom",
      template: {
        method: "POST" as const,
        install,
        event: { url: `https://${eventHost}/e?id={service_id}`, headers: {} },
      },
      media_sources: ["network"],
      values: { account: "acc-1" },
    });
    await configurations.putPartner(APP, "plain", body("partner.example"));
    // Sent back as they are (they were shown so), with the events going elsewhere: none of
    // them stands for a stored credential, so none is to be given again.
    const { stored } = await configurations.putPartner(APP, "plain", body("collector.example"));
    expect(partnerAnswer(stored).template?.event?.url).toBe(
      "https://collector.example/e?id={service_id}",
    );
  });

  it("takes no mask as another partner's stored value under the same id", async () => {
    const { configurations } = setup();
    await configurations.putPartner(APP, "switched", {
      partner: "generic",
      media_sources: ["network"],
      values: { endpoint: "https://pb.example.com/i?api_key=K-1" },
    });
    // The generic endpoint as it was shown, under a custom template: not that value.
    await expect(
      configurations.putPartner(APP, "switched", {
        partner: "custom",
        template: {
          method: "GET",
          install: { url: "{partner.endpoint}&id={service_id}", headers: {} },
        },
        media_sources: ["network"],
        values: { endpoint: `https://pb.example.com/i?api_key=${MASK}` },
      }),
    ).rejects.toThrow(
      "body.values.endpoint: is a credential masked as answered (***), and no stored value stands behind it",
    );
  });

  it("keeps no value of another partner's configuration stored under the same id", async () => {
    const { configurations } = setup();
    await configurations.putPartner(APP, "moved", {
      partner: "snapchat",
      values: { snap_app_id: "S1", access_token: "TOKEN-1" },
    });
    // A custom template to the same host, naming the value the snapchat one had: not carried.
    await expect(
      configurations.putPartner(APP, "moved", {
        partner: "custom",
        template: {
          method: "GET",
          install: { url: "https://tr.snapchat.com/i?t={partner.access_token}", headers: {} },
        },
        media_sources: ["snapchat_int"],
        values: {},
      }),
    ).rejects.toThrow("values.access_token: is required: the template uses it");
  });

  it("answers NotFound for a configuration that is not there, to remove or to test", async () => {
    const { configurations, sent } = setup();
    for (const target of ["partner", "webhook"] as const) {
      await expect(configurations.remove(APP, target, "nowhere"), target).rejects.toMatchObject({
        statusCode: 404,
        message: `The app has no ${target} configuration nowhere.`,
      });
      await expect(
        configurations.test(APP, target, "nowhere", { kind: "install", platform: "ios" }),
        target,
      ).rejects.toMatchObject({ statusCode: 404 });
    }
    expect(sent).toEqual([]);
    await configurations.putWebhook(APP, "there", { url: "https://backend.example/hooks" });
    await configurations.remove(APP, "webhook", "there");
    await expect(configurations.remove(APP, "webhook", "there")).rejects.toMatchObject({
      statusCode: 404,
    });
  });

  it("lists an app's configurations with its log's counts of the last 30 days", async () => {
    const asked: Date[] = [];
    const now = new Date("2026-11-30T12:00:00.000Z");
    const configurations = createPostbackConfigurations({
      deletions: NO_DELETIONS,
      store: memoryStore(),
      wrapper,
      resolve: async () => [{ address: "93.184.216.34", family: 4 }],
      allowLoopback: false,
      now: () => now,
      log: {
        listByApp: async () => ({ entries: [], next: null }),
        counts: async (_appId, since) => {
          asked.push(since);
          return [];
        },
      },
    });
    await configurations.list(APP);
    // Today and the 29 days before it: the log's 30.
    expect(asked.map((since) => since.toISOString())).toEqual(["2026-11-01T12:00:00.000Z"]);
  });

  it("keeps a saved secret only for the hosts it went to: repointed, it must be given again", async () => {
    const { configurations } = setup();
    const at = (host: string) => ({
      method: "GET" as const,
      install: { url: `https://${host}/i?p={partner.api_pw}&id={service_id}`, headers: {} },
    });
    await configurations.putPartner(APP, "repointed", {
      partner: "custom",
      template: at("partner.example"),
      media_sources: ["network"],
      values: { api_pw: "TOP-SECRET" },
      secret_values: ["api_pw"],
    });
    // Another path on the same host: kept.
    const samePlace = await configurations.putPartner(APP, "repointed", {
      partner: "custom",
      template: {
        ...at("partner.example"),
        install: { url: "https://partner.example/v2?p={partner.api_pw}", headers: {} },
      },
      media_sources: ["network"],
      values: {},
    });
    expect((await openPartnerConfig(samePlace.stored, wrapper)).values.api_pw).toBe("TOP-SECRET");
    // Another host: not kept, so nothing of it can be sent there; the template needs it.
    await expect(
      configurations.putPartner(APP, "repointed", {
        partner: "custom",
        template: at("collector.example"),
        media_sources: ["network"],
        values: {},
      }),
    ).rejects.toThrow("values.api_pw: is required: the template uses it");
    // Given again, it goes there.
    const { stored } = await configurations.putPartner(APP, "repointed", {
      partner: "custom",
      template: at("collector.example"),
      media_sources: ["network"],
      values: { api_pw: "THEIRS" },
      secret_values: ["api_pw"],
    });
    expect((await openPartnerConfig(stored, wrapper)).values.api_pw).toBe("THEIRS");
  });

  it("keeps a saved secret when its install and event requests swap hosts: it goes where it went", async () => {
    const { configurations } = setup();
    const at = (install: string, event: string) => ({
      method: "GET" as const,
      install: { url: `https://${install}/i?p={partner.api_pw}&id={service_id}`, headers: {} },
      event: { url: `https://${event}/e?p={partner.api_pw}&id={service_id}`, headers: {} },
    });
    await configurations.putPartner(APP, "swapped", {
      partner: "custom",
      template: at("a.partner.example", "b.partner.example"),
      media_sources: ["network"],
      values: { api_pw: "TOP-SECRET" },
      secret_values: ["api_pw"],
    });
    const { stored } = await configurations.putPartner(APP, "swapped", {
      partner: "custom",
      template: at("b.partner.example", "a.partner.example"),
      media_sources: ["network"],
      values: {},
    });
    expect((await openPartnerConfig(stored, wrapper)).values.api_pw).toBe("TOP-SECRET");
  });

  it("saves over a stored configuration that no longer opens (its key gone), keeping nothing of it", async () => {
    const { configurations, store } = setup();
    const saved = await configurations.putPartner(APP, "unopenable", {
      partner: "snapchat",
      values: { snap_app_id: "S1", access_token: "TOKEN-1" },
    });
    const [sealedName] = Object.keys(saved.stored.sealedValues);
    expect(sealedName).toBe("access_token");
    await store.putPartner({
      ...saved.stored,
      sealedValues: { access_token: "not a sealed value" },
    });
    await configurations.savePartner({
      id: "unopenable",
      appId: APP,
      partner: "snapchat",
      values: { snap_app_id: "S2", access_token: "TOKEN-2" },
    });
    const replaced = await store.getPartner(APP, "unopenable");
    expect(replaced && (await openPartnerConfig(replaced, wrapper)).values).toMatchObject({
      snap_app_id: "S2",
      access_token: "TOKEN-2",
    });
    // A PUT that leaves the secret out has none to keep: it must be given.
    await store.putPartner({ ...saved.stored, sealedValues: { access_token: "not sealed" } });
    await expect(
      configurations.putPartner(APP, "unopenable", {
        partner: "snapchat",
        values: { snap_app_id: "S3" },
      }),
    ).rejects.toThrow("access_token");
  });

  it("answers URL values, template URLs and credential headers masked, and keeps the stored ones when sent back masked", async () => {
    const { configurations, store } = setup();
    const template = {
      method: "GET" as const,
      install: {
        url: "https://partner.example/i?api_key=k-123&id={service_id}",
        headers: { Authorization: "Bearer t-456", "X-Trace": "plain" },
      },
    };
    const generic = await configurations.putPartner(APP, "generic-masked", {
      partner: "generic",
      values: { endpoint: "https://pb.example.net/postback?token=t-789&src=svc" },
      media_sources: ["network_a"],
    });
    const custom = await configurations.putPartner(APP, "custom-masked", {
      partner: "custom",
      template,
      media_sources: ["network_a"],
    });
    const shownGeneric = partnerAnswer(generic.stored);
    const shownCustom = partnerAnswer(custom.stored);
    expect(shownGeneric.values).toEqual({
      endpoint: "https://pb.example.net/postback?token=***&src=svc",
    });
    expect(shownCustom.template).toEqual({
      method: "GET",
      install: {
        url: "https://partner.example/i?api_key=***&id={service_id}",
        headers: { Authorization: "***", "X-Trace": "plain" },
      },
    });
    for (const shown of [shownGeneric, shownCustom]) {
      expect(JSON.stringify(shown)).not.toMatch(/k-123|t-456|t-789/);
    }

    // The dashboard's Edit form sends back what it was shown, with one change.
    await configurations.putPartner(APP, "generic-masked", {
      partner: "generic",
      values: shownGeneric.values,
      media_sources: ["network_b"],
    });
    await configurations.putPartner(APP, "custom-masked", {
      partner: "custom",
      template: shownCustom.template as typeof template,
      media_sources: ["network_b"],
      enabled: false,
    });
    const keptGeneric = await store.getPartner(APP, "generic-masked");
    const keptCustom = await store.getPartner(APP, "custom-masked");
    expect(keptGeneric).toMatchObject({
      values: { endpoint: "https://pb.example.net/postback?token=t-789&src=svc" },
      mediaSources: ["network_b"],
    });
    expect(keptCustom).toMatchObject({ template, enabled: false });

    // A masked header sent to another host stands for nothing: it is to be given again.
    await expect(
      configurations.putPartner(APP, "custom-masked", {
        partner: "custom",
        template: {
          ...template,
          install: {
            ...template.install,
            url: "https://elsewhere.example/i?id={service_id}",
            headers: { Authorization: "***" },
          },
        },
        media_sources: ["network_b"],
      }),
    ).rejects.toThrow(/template\.install\.headers\.Authorization: is masked as answered/);
    expect((await store.getPartner(APP, "custom-masked"))?.template).toEqual(template);

    // A masked URL edited around its mask (a macro added) stands for nothing either: never is
    // `***` saved to go to the partner as a key.
    await expect(
      configurations.putPartner(APP, "custom-masked", {
        partner: "custom",
        template: {
          ...template,
          install: {
            ...template.install,
            url: "https://partner.example/i?api_key=***&id={service_id}&e={event_name}",
          },
        },
        media_sources: ["network_b"],
      }),
    ).rejects.toThrow(/body\.template\.install\.url: is a credential masked as answered/);
    await expect(
      configurations.putPartner(APP, "another", {
        partner: "generic",
        values: shownGeneric.values,
        media_sources: ["network_b"],
      }),
    ).rejects.toThrow(/body\.values\.endpoint: is a credential masked as answered/);
    await configurations.putWebhook(APP, "masked-hook", {
      url: "https://backend.example/hooks?access_token=tok-1",
    });
    await expect(
      configurations.putWebhook(APP, "masked-hook", {
        url: "https://backend.example/v2/hooks?access_token=***",
      }),
    ).rejects.toThrow(/body\.url: is a credential masked as answered/);
    expect((await store.getPartner(APP, "custom-masked"))?.template).toEqual(template);
  });

  it("keeps sealed, and never shows, the values a custom template sends as credentials", async () => {
    const { configurations, sent, store } = setup();
    const template = {
      method: "POST" as const,
      install: {
        url: "https://partner.example/i?api_key={partner.api_key}&sig={partner.s}&id={service_id}",
        headers: { Authorization: "Bearer {partner.token}", "X-Api-Key": "{partner.k}" },
        body: '{"app": "{partner.app}", "auth": {"secret": "{partner.b}"}}',
      },
    };
    const values = {
      api_key: "SEKRET-1",
      token: "SEKRET-2",
      s: "SEKRET-3",
      k: "SEKRET-4",
      b: "SEKRET-5",
      app: "app-1",
    };
    const body = { partner: "custom", template, media_sources: ["network_a"], values };
    const { stored } = await configurations.putPartner(APP, "creds", body);
    const answer = partnerAnswer(stored);
    expect(JSON.stringify(answer)).not.toContain("SEKRET");
    expect(answer.values).toEqual({ app: "app-1" });
    expect(answer.sealed_values).toEqual(["api_key", "b", "k", "s", "token"]);

    // The answer sent back (the dashboard's Edit form) keeps them, and they still go.
    await configurations.putPartner(APP, "creds", {
      ...body,
      template: answer.template as typeof template,
      values: answer.values,
      enabled: false,
    });
    const kept = await store.getPartner(APP, "creds");
    if (!kept) throw new Error("not saved");
    expect(JSON.stringify(kept)).not.toContain("SEKRET");
    expect((await openPartnerConfig(kept, wrapper)).values).toEqual(values);
    await configurations.test(APP, "partner", "creds", { kind: "install", platform: "android" });
    expect(sent[0]?.url).toContain("api_key=SEKRET-1&sig=SEKRET-3");
    expect(sent[0]?.headers).toMatchObject({
      Authorization: "Bearer SEKRET-2",
      "X-Api-Key": "SEKRET-4",
    });

    // Saved before they were sealed, in clear: shown masked, and kept when sent back so.
    await store.putPartner({
      ...kept,
      values: { ...values },
      sealedValues: {},
      secretValues: [],
    });
    const legacy = partnerAnswer((await store.getPartner(APP, "creds")) ?? kept);
    expect(JSON.stringify(legacy)).not.toContain("SEKRET");
    expect(legacy.values).toEqual({
      api_key: "***",
      token: "***",
      s: "***",
      k: "***",
      b: "***",
      app: "app-1",
    });
    const resaved = await configurations.putPartner(APP, "creds", {
      ...body,
      template: legacy.template as typeof template,
      values: legacy.values,
    });
    expect(resaved.stored.values).toEqual({ app: "app-1" });
    expect((await openPartnerConfig(resaved.stored, wrapper)).values).toEqual(values);
  });

  it("shows a hook URL's secret path segment masked, and keeps the stored URL sent back so", async () => {
    const { configurations, sent, store } = setup();
    const url = "https://hooks.slack.com/services/T0AB12CD/B0EF34GH/Xq7Lk2Pz9Rt4Wm8Vn3Bc6Yd1";
    const { stored } = await configurations.putWebhook(APP, "slack", { url });
    const shown = webhookAnswer(stored).url;
    expect(shown).toBe("https://hooks.slack.com/services/T0AB12CD/B0EF34GH/***");
    // Short segments, and a template's macros, are no credential.
    expect(shownUrl("https://backend.example/v2/hooks/{service_id}")).toBe(
      "https://backend.example/v2/hooks/{service_id}",
    );
    // A test send's record shows it masked too; the request went to the whole URL.
    const tried = await configurations.test(APP, "webhook", "slack", {
      kind: "install",
      platform: "android",
    });
    expect(tried.request.url).toBe(shown);
    expect(sent.at(-1)?.url).toBe(url);
    await configurations.putWebhook(APP, "slack", { url: shown, enabled: false });
    expect((await store.getWebhook(APP, "slack"))?.url).toBe(url);
  });

  it("keeps a rotated webhook secret signing beside the new one for a day, an edit keeping that", async () => {
    const { configurations, sent, store } = setup();
    const url = "https://backend.example/hooks";
    const made = await configurations.putWebhook(APP, "backend", { url });
    const rotated = await configurations.putWebhook(APP, "backend", { url, rotate_secret: true });
    const [older, newer] = [made.secret, rotated.secret];
    if (!older || !newer) throw new Error("no secret shown");
    expect(newer).not.toBe(older);
    // An edit of the switch alone neither shows a secret nor ends the grace.
    const edited = await configurations.putWebhook(APP, "backend", { url, enabled: true });
    expect(edited.secret).toBeUndefined();
    await configurations.test(APP, "webhook", "backend", { kind: "install", platform: "android" });
    const [request] = sent;
    const header = request?.headers[SIGNATURE_HEADER] ?? "";
    expect(header.match(/v1=/g)).toHaveLength(2);
    for (const secret of [older, newer]) {
      expect(
        verifySignature({ secrets: [secret], body: request?.body ?? "", header, now: new Date() })
          .ok,
      ).toBe(true);
    }
    // A day on, the old secret signs no more.
    const dayOn = new Date(Date.now() + (ROTATION_GRACE_HOURS + 1) * 3_600_000);
    const later = createPostbackConfigurations({
      deletions: NO_DELETIONS,
      store,
      wrapper,
      resolve: async () => [{ address: "93.184.216.34", family: 4 }],
      allowLoopback: false,
      now: () => dayOn,
      sender: {
        send: async (next) => {
          sent.push(next);
          return { kind: "answer", status: 200, body: "ok" };
        },
      },
    });
    await later.test(APP, "webhook", "backend", { kind: "install", platform: "android" });
    const laterHeader = sent[1]?.headers[SIGNATURE_HEADER] ?? "";
    expect(laterHeader.match(/v1=/g)).toHaveLength(1);
    // The one signature is the new secret's.
    const verifies = (secret: string) =>
      verifySignature({
        secrets: [secret],
        body: sent[1]?.body ?? "",
        header: laterHeader,
        now: dayOn,
      }).ok;
    expect(verifies(newer)).toBe(true);
    expect(verifies(older)).toBe(false);
    // An edit past the grace keeps no secret it replaced.
    expect((await store.getWebhook(APP, "backend"))?.previous).not.toBeNull();
    await later.putWebhook(APP, "backend", { url, enabled: true });
    expect((await store.getWebhook(APP, "backend"))?.previous).toBeNull();
  });

  it("refuses with a ValidationError, storing nothing, a configuration larger than a store item holds", async () => {
    const { configurations, store } = setup();
    const stored = async () => (await store.listByApp(APP)).partners.length;
    const events = (count: number) =>
      Object.fromEntries(
        Array.from({ length: count }, (_, i) => [
          `service_event_number_${i}`,
          { name: `partner_event_name_${i}`, revenue: true },
        ]),
      );
    const config = (count: number) => ({
      id: "big",
      appId: APP,
      partner: "generic",
      values: { endpoint: "https://partner.example/pb" },
      mediaSources: ["network"],
      events: events(count),
    });
    // About 271 KB and 232 KB as stored: either side of the bound, close to it.
    await expect(configurations.savePartner(config(3_500))).rejects.toThrow(
      /configuration: is \d+ bytes as stored, over the 262144 a configuration may have/,
    );
    expect(await stored()).toBe(0);
    await configurations.savePartner(config(3_000));
    expect(await stored()).toBe(1);
  });

  it("sends a test postback whose header names a link parameter every object inherits", async () => {
    const { configurations, sent } = setup();
    await configurations.savePartner({
      id: "proto",
      appId: APP,
      partner: "custom",
      mediaSources: ["network"],
      template: {
        method: "GET",
        install: {
          url: "https://partner.example/i?c={click.constructor}",
          headers: { "X-Key": "{click.constructor}{click.toString}" },
        },
      },
    });
    const result = await configurations.test(APP, "partner", "proto", {
      kind: "install",
      platform: "android",
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.url).toBe("https://partner.example/i?c=");
    expect(sent[0]?.headers).not.toHaveProperty("X-Key");
    expect(result).toMatchObject({ response: { status: 200 } });
  });

  it("answers a test's request with its credential headers masked, as the configuration shows them", async () => {
    const { configurations, sent } = setup();
    await configurations.putPartner(APP, "bearer", {
      partner: "custom",
      template: {
        method: "GET",
        install: {
          url: "https://partner.example/i?id={service_id}",
          headers: { Authorization: "Bearer t-secret", "X-Trace": "plain" },
        },
      },
      media_sources: ["network_a"],
    });
    const result = await configurations.test(APP, "partner", "bearer", {
      kind: "install",
      platform: "android",
    });
    // Sent as it is, answered masked.
    expect(sent[0]?.headers.Authorization).toBe("Bearer t-secret");
    expect(result.request.headers).toMatchObject({ Authorization: "***", "X-Trace": "plain" });
    expect(JSON.stringify(result)).not.toContain("t-secret");
  });

  it("sends a test postback of every catalog partner, install and event, on both platforms", async () => {
    const { configurations, sent } = setup();
    for (const partner of PARTNERS) {
      const values = Object.fromEntries(
        partner.values.map((value) => [
          value.name,
          value.kind === "url" ? "https://hooks.example.com/pb" : `${value.name}-1`,
        ]),
      );
      const eventName = partner.eventNames?.[0] ?? "purchase";
      await configurations.savePartner({
        id: partner.id,
        appId: APP,
        partner: partner.id,
        values,
        mediaSources: ["network"],
        events: partner.event ? { service_purchase: { name: eventName, revenue: true } } : {},
      });
      const kinds = partner.event ? (["install", "event"] as const) : (["install"] as const);
      for (const kind of partner.install ? kinds : kinds.filter((k) => k === "event")) {
        for (const platform of ["android", "ios"] as const) {
          const before = sent.length;
          const result = await configurations.test(APP, "partner", partner.id, { kind, platform });
          expect(sent.length, `${partner.id} ${kind} ${platform}`).toBe(before + 1);
          expect(result.response.status).toBe(200);
        }
      }
    }
  });

  it("refuses an event mapping under a name no event has", async () => {
    const { configurations, sent, store } = setup();
    const unity = { partner: "unity-ads", values: { game_id: "1" } };
    await expect(
      configurations.putPartner(APP, "unity", {
        ...unity,
        events: { PURCHASE: { name: "purchase", revenue: true } },
      }),
    ).rejects.toThrow(
      /^events\.PURCHASE: must be our event name as the export gives it: service_ and the event in snake case .*: service_purchase\?$/,
    );
    expect(await store.getPartner(APP, "unity")).toBeUndefined();
    expect(sent).toEqual([]);
  });

  it("saves a configuration switched off, or not moved, while its host does not resolve", async () => {
    let dns: "up" | "down" | "private" = "up";
    const asked: string[] = [];
    const configurations = createPostbackConfigurations({
      deletions: NO_DELETIONS,
      store: memoryStore(),
      wrapper,
      allowLoopback: false,
      resolve: async (host) => {
        asked.push(host);
        if (dns === "down")
          throw Object.assign(new Error("queryA ESERVFAIL"), { code: "ESERVFAIL" });
        return [{ address: dns === "up" ? "93.184.216.34" : "10.0.0.1", family: 4 }];
      },
    });
    const partner = {
      partner: "generic",
      media_sources: ["examplenet_int"],
      values: { endpoint: "https://pb.example.net/in" },
    };
    await configurations.putPartner(APP, "outage", partner);
    await configurations.putWebhook(APP, "outage", { url: "https://hooks.example.com/in" });
    dns = "down";
    asked.length = 0;
    // Off, or on and leading where it led: saved without asking DNS.
    await configurations.putPartner(APP, "outage", { ...partner, media_sources: ["other_int"] });
    await configurations.putPartner(APP, "outage", { ...partner, enabled: false });
    await configurations.putWebhook(APP, "outage", { url: "https://hooks.example.com/v2" });
    await configurations.putWebhook(APP, "outage", {
      url: "https://hooks.example.com/v2",
      enabled: false,
    });
    // Off, it may even lead to a host that does not resolve now.
    await configurations.putWebhook(APP, "outage", {
      url: "https://new-hooks.example.com/in",
      enabled: false,
    });
    expect(asked).toEqual([]);
    // Switched on again, or led to a new host, its names are resolved anew.
    await expect(configurations.putPartner(APP, "outage", partner)).rejects.toThrow(
      "names a host that does not resolve (pb.example.net)",
    );
    await expect(
      configurations.putWebhook(APP, "outage", { url: "https://new-hooks.example.com/in" }),
    ).rejects.toThrow("names a host that does not resolve (new-hooks.example.com)");
    dns = "private";
    await expect(
      configurations.putPartner(APP, "outage", {
        ...partner,
        values: { endpoint: "https://elsewhere.example.net/in" },
      }),
    ).rejects.toThrow("resolves to a private address");
    // A literal private address is refused whether or not the configuration is on.
    await expect(
      configurations.putWebhook(APP, "outage", { url: "https://10.0.0.1/in", enabled: false }),
    ).rejects.toThrow("points to a private address (10.0.0.1)");
  });

  it("refuses at save an endpoint the sender would refuse, with what is wrong", async () => {
    const { configurations } = setup();
    const save = (url: string) =>
      configurations.savePartner({
        id: "where",
        appId: APP,
        partner: "custom",
        mediaSources: ["network"],
        template: { method: "GET", install: { url } },
      });
    await expect(save("https://partner.example/i?id={service_id}#x")).rejects.toThrow(
      "must not have a fragment",
    );
    await expect(save("https://user@partner.example/i")).rejects.toThrow(
      "must not carry a user name or password",
    );
  });

  it("leaves out of the log's pages the attempts of an install whose deletion was asked for", async () => {
    const entry = (serviceId: string, sendId: string): DeliveryLogEntry => ({
      appId: APP,
      sendId,
      configId: "net",
      target: "partner",
      partner: "generic",
      subject: { kind: "install", serviceId, eventId: null },
      time: "2026-11-20T10:00:00.000Z",
      url: `https://pb.example.net/in?sid=${serviceId}`,
      method: "GET",
      status: 200,
      answer: "ok",
      error: null,
      attempt: 1,
      retry: false,
      verdict: "delivered",
      final: true,
      reason: null,
    });
    const entries = [
      entry("kept", "s1"),
      entry("deleted-now", "s2"),
      entry("deleted-before", "s3"),
    ];
    const configurations = createPostbackConfigurations({
      store: memoryStore(),
      wrapper,
      allowLoopback: false,
      resolve: async () => [],
      log: {
        listByApp: async () => ({ entries, next: "cursor-2" }),
        counts: async () => [],
      },
      // One request so new only the tombstones hold it, one the requests' list holds.
      deletions: {
        tombstones: async () => ({ serviceIds: ["deleted-now"], version: 3 }),
        listByApp: async () => [
          {
            requestId: "r-1",
            appId: APP,
            serviceId: "deleted-before",
            status: "completed",
            requestedAt: "2026-11-19T10:00:00.000Z",
            completedAt: "2026-11-19T10:20:00.000Z",
          },
        ],
      },
    });
    const page = await configurations.logPage(APP, { limit: 3 });
    expect(page.entries.map((e) => e.subject.serviceId)).toEqual(["kept"]);
    expect(page.next).toBe("cursor-2");
  });
});

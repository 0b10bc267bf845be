/**
 * Postbacks and webhooks over HTTP against the embedded runtime: links tapped on the link
 * host, installs and events through the SDK routes, and the sends they cause received by a
 * mock network and a mock app backend on loopback (allowed by ATTRIBUTION_POSTBACKS_ALLOW_
 * LOOPBACK). Where a retry's 15 minutes would be waited for, the worker is driven directly
 * with its clock advanced instead.
 *
 * Configurations are saved through the API's postback routes, as the CLI and the dashboard
 * save them; one the routes would refuse is put in the stores directly where the sender's own
 * check is under test.
 */
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpSender } from "../../src/adapters/postback-sender/http-sender.ts";
import { tcString } from "../../src/domain/tcf.test-support.ts";
import type { LinkAnswer } from "../../src/links/links.ts";
import type { DeliveryLogEntry } from "../../src/ports/postbacks.ts";
import type { WorkMessage } from "../../src/ports/work-queue.ts";
import { parsePartnerConfig } from "../../src/postbacks/config.ts";
import type { PostbackJob } from "../../src/postbacks/delivery.ts";
import { sendIdOf } from "../../src/postbacks/rules.ts";
import { sealPartnerConfig } from "../../src/postbacks/secrets.ts";
import { DELIVERY_HEADER, newWebhookSecret } from "../../src/postbacks/signing.ts";
import { sendConfigKey } from "../../src/postbacks/triggers.ts";
import { createPostbackWorker } from "../../src/workers/postback-worker.ts";
import { PIXEL } from "../support/agents.ts";
import { androidInstallRequest } from "../support/installs.ts";
import { type MockNetwork, startMockNetwork } from "../support/mock-network.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.postbacks";
const GAID = "38400000-8cf0-11bd-b23e-10b96e40000d";
const MINUTE = 60_000;

/** The Node verification docs/postbacks.md shows, as a module of its own. */
const documentedVerifier = async (): Promise<
  (secret: string, header: string, body: Buffer, nowMs?: number) => boolean
> => {
  const page = readFileSync(
    fileURLToPath(new URL("../../docs/postbacks.md", import.meta.url)),
    "utf8",
  );
  const at = page.indexOf("<!-- verify:node -->");
  const code = /```js\n([\s\S]*?)```/.exec(page.slice(at))?.[1];
  if (at < 0 || !code) throw new Error("docs/postbacks.md shows no Node verification");
  const module = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as {
    verifyAttributionSignature: (s: string, h: string, b: Buffer, n?: number) => boolean;
  };
  return module.verifyAttributionSignature;
};

const androidInstall = androidInstallRequest;
/** What an app's requests to the service say they are. */
const SDK_AGENT = "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/AP2A.240905.003)";

/** The mock network's answers: a path under /status/<code> answers that code. */
const answerByPath = (request: { path: string }) => {
  const status = /^\/status\/(\d{3})/.exec(request.path)?.[1];
  if (status === "302") {
    return { status: 302, headers: { location: "/a/redirected" }, body: "" };
  }
  return status
    ? { status: Number(status), body: `status ${status}` }
    : { status: 200, body: "ok" };
};

describe("postbacks and webhooks over HTTP", () => {
  let rt: TestRuntime;
  let mock: MockNetwork;
  let keys: { sdkKey: string; serverKey: string };
  let address = 0;
  /** A fresh address for each install, so no install is matched by another's address. */
  const nextAddress = () => `198.51.100.${++address}`;

  const install = async (body: unknown, ip = nextAddress()) => {
    const response = await rt.post("/v1/installs", body, keys.sdkKey, {
      "x-forwarded-for": ip,
      "user-agent": SDK_AGENT,
    });
    expect(response.status).toBe(202);
  };

  const attributionOf = (serviceId: string) => rt.attributionOf(serviceId, keys.sdkKey);

  const sendEvents = async (events: unknown[]) => {
    const response = await rt.post("/v1/events", { events }, keys.sdkKey, {
      "x-forwarded-for": "81.2.69.160",
    });
    expect(response.status).toBe(202);
    return (await response.json()) as { accepted: number };
  };

  /**
   * Until every queued job is done: attribution, then the sends it queued. Each worker's idle
   * state is waited for in turn, a round for each step of the chain (a job a worker queues for
   * another once that one was found idle is waited for by the next round), never a time.
   */
  const settle = async () => {
    for (let round = 0; round < 3; round++) await rt.workers.idle();
  };

  /** A tap on a new link of the media source, with the network's own parameters appended. */
  const tap = async (mediaSource: string, query = "") => {
    const made = await rt.post("/v1/links", { media_source: mediaSource }, keys.serverKey);
    const link = (await made.json()) as LinkAnswer;
    const tapped = await fetch(`${rt.linkUrl}/${link.deeplink_id}${query}`, {
      redirect: "manual",
      headers: { "user-agent": PIXEL, "x-forwarded-for": nextAddress() },
    });
    return new URL(tapped.headers.get("location") ?? "").searchParams.get("referrer") ?? "";
  };

  /** Saves a partner configuration through the API; the answer's status is checked. */
  const putPartner = async (id: string, body: Record<string, unknown>, status = 200) => {
    const response = await rt.fetch(
      `/v1/postbacks/partners/${id}`,
      { method: "PUT", body: JSON.stringify(body) },
      keys.serverKey,
    );
    const text = await response.text();
    expect(response.status, text).toBe(status);
    return JSON.parse(text) as Record<string, unknown>;
  };

  const sendsOf = (path: string, serviceId: string) =>
    mock.to(path).filter((request) => request.query.get("sid") === serviceId);

  const logOf = async (configId: string, serviceId: string): Promise<DeliveryLogEntry[]> => {
    const { entries } = await rt.stores.deliveryLog.listByApp(APP, { limit: 1000 });
    return entries.filter(
      (entry) => entry.configId === configId && entry.subject.serviceId === serviceId,
    );
  };

  beforeAll(async () => {
    mock = await startMockNetwork(answerByPath);
    rt = await startTestRuntime({ trustProxy: true, postbacksAllowLoopback: true });
    keys = await rt.createApp(APP, "android");
    const m = mock.url;
    // A network attributed by the service: the installs its links won, and purchases with
    // their revenue. Its click id comes back from the tapped link's own query.
    await putPartner("net-a", {
      partner: "custom",
      template: {
        method: "GET",
        install: {
          url: `${m}/a/install?click={click.click_id}&gaid={advertising_id}&sid={service_id}&attributed={attributed}&ua={user_agent}`,
        },
        event: {
          url: `${m}/a/event?name={event_name}&revenue={revenue}&currency={currency}&sid={service_id}&eid={event_id}&click={click.click_id}`,
        },
      },
      media_sources: ["network_a"],
      installs: "won",
      events: { service_purchase: { name: "purchase", revenue: true } },
    });
    // The same network's purchases, without revenue.
    await putPartner("net-a-norev", {
      partner: "custom",
      template: {
        method: "GET",
        event: {
          url: `${m}/a2/event?name={event_name}&revenue={revenue}&currency={currency}&sid={service_id}&eid={event_id}`,
        },
      },
      media_sources: ["network_a"],
      events: { service_purchase: { name: "purchase", revenue: false } },
    });
    // A network that hears of every install ("send all"), and purchases within a day.
    await putPartner("net-b-all", {
      partner: "custom",
      template: {
        method: "GET",
        install: {
          url: `${m}/b/install?sid={service_id}&attributed={attributed}&source={media_source}&click={click.click_id}`,
        },
        event: { url: `${m}/b/event?name={event_name}&sid={service_id}&eid={event_id}` },
      },
      media_sources: ["network_b"],
      installs: "all",
      events: { service_purchase: { name: "purchase", revenue: true } },
      event_window_days: 1,
    });
  });

  afterAll(async () => {
    await rt?.dispose();
    await mock?.close();
  });

  it("posts an install back once, its network's click id URL-encoded, its ad id where consent allows", async () => {
    const agreed = await tap("network_a", "?click_id=a%20b");
    const unasked = await tap("network_a", "?click_id=c%2Bd");
    const refused = await tap("network_a", "?click_id=e");
    await install(
      androidInstall("pb-agreed", {
        maid: GAID,
        install_referrer: { referrer: agreed },
        consent: { gdpr_applies: true, ad_user_data: true },
      }),
    );
    await install(
      androidInstall("pb-unasked", { maid: GAID, install_referrer: { referrer: unasked } }),
    );
    await install(
      androidInstall("pb-refused", {
        maid: GAID,
        install_referrer: { referrer: refused },
        consent: { gdpr_applies: true, ad_user_data: false },
      }),
    );
    for (const serviceId of ["pb-agreed", "pb-unasked", "pb-refused"]) {
      expect(await attributionOf(serviceId)).toMatchObject({ media_source: "network_a" });
    }
    await mock.waitFor((r) => r.path === "/a/install" && r.query.get("sid") === "pb-unasked");
    await mock.waitFor((r) => r.path === "/a/install" && r.query.get("sid") === "pb-agreed");
    await settle();

    const [sent] = sendsOf("/a/install", "pb-agreed");
    expect(sendsOf("/a/install", "pb-agreed")).toHaveLength(1);
    // As it went over the wire: the value URL-encoded, never a parameter of its own.
    expect(sent?.method).toBe("GET");
    expect(sent?.target).toContain("?click=a%20b&");
    expect(sent?.query.get("gaid")).toBe(GAID);
    expect(sent?.query.get("attributed")).toBe("1");
    // The install's own request's user agent, kept with its facts until its sends are made.
    expect(sent?.query.get("ua")).toBe(SDK_AGENT);
    // A user never asked: the postback goes, its device id only as the app's setting says (off).
    const other = sendsOf("/a/install", "pb-unasked");
    expect(other).toHaveLength(1);
    expect(other[0]?.query.get("click")).toBe("c+d");
    expect(other[0]?.query.get("gaid")).toBe("");
    // The network that did not win hears of both, with none of the winner's facts.
    expect(sendsOf("/b/install", "pb-agreed")).toHaveLength(1);
    expect(sendsOf("/b/install", "pb-agreed")[0]?.query.get("attributed")).toBe("0");
    expect(sendsOf("/b/install", "pb-agreed")[0]?.query.get("click")).toBe("");

    // A user who said no is reported to no network, the one that won included: each send is
    // skipped, and the log says why.
    expect(mock.received.filter((r) => r.query.get("sid") === "pb-refused")).toEqual([]);
    for (const configId of ["net-a", "net-b-all"]) {
      expect(await logOf(configId, "pb-refused")).toEqual([
        expect.objectContaining({ verdict: "skipped", reason: "no_consent", final: true }),
      ]);
    }
    const page = (await (await rt.get("/v1/postbacks/log?limit=200", keys.serverKey)).json()) as {
      data: { config_id: string; service_id: string; verdict: string; reason: string | null }[];
    };
    expect(
      page.data.filter((entry) => entry.service_id === "pb-refused").map((entry) => entry.reason),
    ).toEqual(["no_consent", "no_consent"]);
    const listed = (await (await rt.get("/v1/postbacks", keys.serverKey)).json()) as {
      counts: { config_id: string; delivered: number; failed: number; skipped: number }[];
    };
    // Of the three installs: two delivered, the refusal skipped, none failed.
    const netA = listed.counts.filter((count) => count.config_id === "net-a");
    expect(netA.reduce((sum, count) => sum + count.delivered, 0)).toBe(2);
    expect(netA.reduce((sum, count) => sum + count.skipped, 0)).toBe(1);
    expect(netA.reduce((sum, count) => sum + count.failed, 0)).toBe(0);

    const [logged] = await logOf("net-a", "pb-agreed");
    expect(logged).toMatchObject({ verdict: "delivered", final: true, status: 200, attempt: 1 });
    // Final, delivered or skipped: the sends keep neither the address nor the agent.
    const rowOf = (configId: string, serviceId: string) =>
      rt.stores.outbox.get(
        sendIdOf(sendConfigKey(APP, "partner", configId), { kind: "install", serviceId }),
      );
    for (const serviceId of ["pb-agreed", "pb-refused"]) {
      expect((await rowOf("net-a", serviceId))?.subject).toMatchObject({
        ip: null,
        userAgent: null,
      });
    }
  });

  it("tells a network on the Global Vendor List of an install only with its own consent in the TCF string", async () => {
    const google = 755;
    const saved = await putPartner("net-vendor", {
      partner: "custom",
      template: { method: "GET", install: { url: `${mock.url}/v/install?sid={service_id}` } },
      installs: "all",
      tcf_vendor_id: google,
    });
    expect(saved.tcf_vendor_id).toBe(google);
    // The user agreed to measurement (purposes 1 and 7) in both; to Google in one only.
    const consentTo = (vendors: number[]) => ({
      gdpr_applies: true,
      tcf_string: tcString([1, 7], { vendors }),
    });
    await install(androidInstall("pb-vendor-yes", { consent: consentTo([12, google]) }));
    await install(androidInstall("pb-vendor-no", { consent: consentTo([12]) }));
    await mock.waitFor((r) => r.path === "/v/install" && r.query.get("sid") === "pb-vendor-yes");
    // The network without a vendor id hears of both: the string consents to measurement.
    await mock.waitFor((r) => r.path === "/b/install" && r.query.get("sid") === "pb-vendor-no");
    await settle();
    expect(sendsOf("/v/install", "pb-vendor-yes")).toHaveLength(1);
    expect(sendsOf("/v/install", "pb-vendor-no")).toEqual([]);
    expect(await logOf("net-vendor", "pb-vendor-no")).toEqual([
      expect.objectContaining({ verdict: "skipped", reason: "no_vendor_consent", final: true }),
    ]);
    // The catalog knows Google's id, and a configuration of it takes it unless it says none.
    const catalog = (await (await rt.get("/v1/partners", keys.serverKey)).json()) as {
      data: { id: string; tcf_vendor_id: number | null }[];
    };
    expect(catalog.data.find((partner) => partner.id === "google-ads")?.tcf_vendor_id).toBe(google);
    await putPartner("net-vendor", { partner: "generic", tcf_vendor_id: 0 }, 422);
  });

  it("sends nothing of an organic install or one another network won, but with send all", async () => {
    await install(androidInstall("pb-organic"));
    const won = await tap("network_c", "?click_id=zzz");
    await install(androidInstall("pb-other", { install_referrer: { referrer: won } }));
    expect(await attributionOf("pb-organic")).toMatchObject({ media_source: "organic" });
    expect(await attributionOf("pb-other")).toMatchObject({ media_source: "network_c" });
    // The send-all network hears of both, queued with the sends that do not happen.
    await mock.waitFor((r) => r.path === "/b/install" && r.query.get("sid") === "pb-organic");
    await mock.waitFor((r) => r.path === "/b/install" && r.query.get("sid") === "pb-other");
    await settle();
    expect(sendsOf("/a/install", "pb-organic")).toEqual([]);
    expect(sendsOf("/a/install", "pb-other")).toEqual([]);
    expect(sendsOf("/b/install", "pb-organic")).toHaveLength(1);
    expect(sendsOf("/b/install", "pb-other")[0]?.query.get("source")).toBe("");
  });

  it("posts a mapped purchase back once, with revenue only where the mapping says", async () => {
    const referrer = await tap("network_a", "?click_id=e1");
    await install(androidInstall("pb-buyer", { install_referrer: { referrer } }));
    expect(await attributionOf("pb-buyer")).toMatchObject({ media_source: "network_a" });
    // The touch expires 30 days after the tap, and an event may come a year on: its postback
    // still names the click, kept with the attribution.
    const record = await rt.stores.attributions.get(APP, "pb-buyer");
    const clickId = record?.state === "resolved" ? record.result.clickId : null;
    expect(clickId).not.toBeNull();
    await rt.stores.touches.delete([clickId ?? ""]);
    expect(await rt.stores.touches.get(clickId ?? "")).toBeUndefined();
    const purchase = {
      event_id: "evt-purchase-1",
      service_id: "pb-buyer",
      event_type: "PURCHASE",
      event_time: new Date().toISOString(),
      parameters: { revenue: 9.99, currency: "EUR" },
    };
    const unmapped = {
      ...purchase,
      event_id: "evt-level-1",
      event_type: "LEVEL_COMPLETE",
      parameters: {},
    };
    expect(await sendEvents([purchase, unmapped])).toMatchObject({ accepted: 2 });
    // The SDK sends the same event again (its answer was lost): nothing new goes.
    expect(await sendEvents([purchase])).toMatchObject({ accepted: 1 });
    await mock.waitFor((r) => r.path === "/a/event" && r.query.get("sid") === "pb-buyer");
    await mock.waitFor((r) => r.path === "/a2/event" && r.query.get("sid") === "pb-buyer");
    await settle();

    const withRevenue = sendsOf("/a/event", "pb-buyer");
    expect(withRevenue).toHaveLength(1);
    expect(withRevenue[0]?.query.get("name")).toBe("purchase");
    expect(withRevenue[0]?.query.get("eid")).toBe("evt-purchase-1");
    expect(withRevenue[0]?.query.get("revenue")).toBe("9.99");
    expect(withRevenue[0]?.query.get("currency")).toBe("EUR");
    expect(withRevenue[0]?.query.get("click")).toBe("e1");
    const without = sendsOf("/a2/event", "pb-buyer");
    expect(without).toHaveLength(1);
    expect(without[0]?.query.get("revenue")).toBe("");
    expect(without[0]?.query.get("currency")).toBe("");
    // The level is mapped for no one.
    expect(mock.received.filter((r) => r.query.get("eid") === "evt-level-1")).toEqual([]);
  });

  it("sends and exports an event sent in anonymous mode with no device id and no user id", async () => {
    await putPartner("net-c-ids", {
      partner: "custom",
      template: {
        method: "GET",
        event: {
          url: `${mock.url}/c/event?sid={service_id}&eid={event_id}&gaid={advertising_id}&ip={ip}`,
        },
      },
      media_sources: ["network_c"],
      events: { service_purchase: { name: "purchase", revenue: false } },
    });
    const referrer = await tap("network_c", "?click_id=c1");
    await install(
      androidInstall("pb-anonymous", {
        maid: GAID,
        customer_user_id: "user-7",
        install_referrer: { referrer },
        consent: { gdpr_applies: true, ad_user_data: true },
      }),
    );
    expect(await attributionOf("pb-anonymous")).toMatchObject({ media_source: "network_c" });
    const purchase = (eventId: string, anonymous?: boolean) => ({
      event_id: eventId,
      service_id: "pb-anonymous",
      event_type: "PURCHASE",
      event_time: new Date().toISOString(),
      customer_user_id: anonymous ? null : "user-7",
      ...(anonymous === undefined ? {} : { anonymous }),
    });
    await sendEvents([purchase("anon-off"), purchase("anon-on", true)]);
    await mock.waitFor((r) => r.path === "/c/event" && r.query.get("eid") === "anon-on");
    await mock.waitFor((r) => r.path === "/c/event" && r.query.get("eid") === "anon-off");
    const sent = (eventId: string) =>
      sendsOf("/c/event", "pb-anonymous").find((r) => r.query.get("eid") === eventId)?.query;
    expect([sent("anon-off")?.get("gaid"), sent("anon-off")?.get("ip")]).toEqual([
      GAID,
      "81.2.69.160",
    ]);
    expect([sent("anon-on")?.get("gaid"), sent("anon-on")?.get("ip")]).toEqual(["", ""]);

    await rt.flush();
    const since = Math.floor(Date.now() / 1000) - 86_400;
    const exported = (await (
      await rt.get(`/api/v1/export?timestamp=${since}`, keys.serverKey)
    ).json()) as { data: Record<string, unknown>[] };
    const row = (eventId: string) => exported.data.find((record) => record.event_id === eventId);
    expect(row("anon-off")).toMatchObject({ maid: GAID, customer_user_id: "user-7" });
    expect(row("anon-on")).toMatchObject({ maid: null, idfv: null, customer_user_id: null });
  });

  it("sends an event after the user withdrew the advertising id with none, and exports it with none", async () => {
    await putPartner("net-d-ids", {
      partner: "custom",
      template: {
        method: "GET",
        event: { url: `${mock.url}/d/event?sid={service_id}&eid={event_id}&gaid={advertising_id}` },
      },
      media_sources: ["network_d"],
      events: { service_purchase: { name: "purchase", revenue: false } },
    });
    const referrer = await tap("network_d", "?click_id=d1");
    const consent = { gdpr_applies: true, ad_user_data: true };
    await install(
      androidInstall("pb-withdrawn", { maid: GAID, install_referrer: { referrer }, consent }),
    );
    expect(await attributionOf("pb-withdrawn")).toMatchObject({ media_source: "network_d" });
    const purchase = (eventId: string) => ({
      event_id: eventId,
      service_id: "pb-withdrawn",
      event_type: "PURCHASE",
      event_time: new Date().toISOString(),
    });
    await sendEvents([purchase("before-reset")]);
    await mock.waitFor((r) => r.path === "/d/event" && r.query.get("eid") === "before-reset");
    // The user deleted the advertising id (or turned ad tracking off): at the next start the
    // SDK says so with the consent, which is unchanged.
    const update = await rt.post(
      "/v1/installs/pb-withdrawn/consent",
      { consent, device: { maid: null } },
      keys.sdkKey,
    );
    expect(update.status).toBe(202);
    await sendEvents([purchase("after-reset")]);
    await mock.waitFor((r) => r.path === "/d/event" && r.query.get("eid") === "after-reset");
    const gaidOf = (eventId: string) =>
      sendsOf("/d/event", "pb-withdrawn")
        .find((r) => r.query.get("eid") === eventId)
        ?.query.get("gaid");
    expect([gaidOf("before-reset"), gaidOf("after-reset")]).toEqual([GAID, ""]);

    await rt.flush();
    const since = Math.floor(Date.now() / 1000) - 86_400;
    const exported = (await (
      await rt.get(`/api/v1/export?timestamp=${since}`, keys.serverKey)
    ).json()) as { data: Record<string, unknown>[] };
    const maidOf = (eventId: string) =>
      exported.data.find((record) => record.event_id === eventId)?.maid;
    expect([maidOf("before-reset"), maidOf("after-reset")]).toEqual([GAID, null]);
  });

  it("takes the consent and tracking an install sent again carries: a refusal made before the first report's answer holds its events back", async () => {
    await putPartner("net-e-ids", {
      partner: "custom",
      template: {
        method: "GET",
        event: { url: `${mock.url}/e/event?sid={service_id}&eid={event_id}&gaid={advertising_id}` },
      },
      media_sources: ["network_e"],
      installs: "all",
      events: { service_purchase: { name: "purchase", revenue: false } },
      // Out of the way of the other tests' older events.
      event_window_days: 1,
    });
    const agreed = { gdpr_applies: true, ad_user_data: true };
    const first = androidInstall("pb-reported-again", { maid: GAID, consent: agreed });
    await install(first);
    expect(await attributionOf("pb-reported-again")).toMatchObject({ media_source: "organic" });
    // The answer to the first report was lost; the user refused before the SDK sent it again,
    // and once answered the SDK holds the refusal as sent: it sends no consent update for it.
    await install({ ...first, consent: { gdpr_applies: true, ad_user_data: false } });
    const purchase = (eventId: string) => ({
      event_id: eventId,
      service_id: "pb-reported-again",
      event_type: "PURCHASE",
      event_time: new Date().toISOString(),
    });
    await sendEvents([purchase("after-refusal")]);
    await settle();
    expect(sendsOf("/e/event", "pb-reported-again")).toEqual([]);
    expect(await logOf("net-e-ids", "pb-reported-again")).toEqual([
      expect.objectContaining({ verdict: "skipped", reason: "no_consent", final: true }),
    ]);
    // Sent again once more, agreeing, the advertising id reset: its events go, with no id.
    await install({ ...first, maid: null, consent: agreed });
    await sendEvents([purchase("after-agreeing")]);
    await mock.waitFor((r) => r.path === "/e/event" && r.query.get("eid") === "after-agreeing");
    expect(sendsOf("/e/event", "pb-reported-again").map((r) => r.query.get("gaid"))).toEqual([""]);
    // A repeat without a consent (the bare install an SDK falls back on) changes nothing.
    await install({
      service_id: first.service_id,
      os: first.os,
      sdk_platform: first.sdk_platform,
      sdk_version: first.sdk_version,
      first_open_time: first.first_open_time,
    });
    expect(await rt.stores.installs.get(APP, "pb-reported-again")).toMatchObject({
      maid: null,
      consent: expect.objectContaining({ adUserData: true }),
    });
  });

  it("sends an event within the partner's window, not one past it", async () => {
    const firstOpen = Date.now() - 3 * 24 * 60 * MINUTE;
    await install(androidInstall("pb-old", { first_open_time: new Date(firstOpen).toISOString() }));
    expect(await attributionOf("pb-old")).toMatchObject({ media_source: "organic" });
    const event = (eventId: string, at: number) => ({
      event_id: eventId,
      service_id: "pb-old",
      event_type: "PURCHASE",
      event_time: new Date(at).toISOString(),
      parameters: { revenue: 1, currency: "USD" },
    });
    await sendEvents([
      event("evt-in-window", firstOpen + 60 * MINUTE),
      event("evt-late", Date.now()),
    ]);
    await mock.waitFor((r) => r.path === "/b/event" && r.query.get("eid") === "evt-in-window");
    await settle();
    expect(mock.to("/b/event").filter((r) => r.query.get("sid") === "pb-old")).toHaveLength(1);
    expect(mock.received.filter((r) => r.query.get("eid") === "evt-late")).toEqual([]);
  });

  it("runs an event's window from the install's first open on the service's clock when the phone's was off", async () => {
    // The phone's clock is two days behind: by it the app was first opened two days and an hour
    // ago, and the purchase made now. On the service's clock the purchase is an hour after
    // the first open, within the send-all network's one day.
    const phoneNow = Date.now() - 2 * 24 * 60 * MINUTE;
    await install(
      androidInstall("pb-slow-clock", {
        first_open_time: new Date(phoneNow - 60 * MINUTE).toISOString(),
        sent_at: new Date(phoneNow).toISOString(),
      }),
    );
    expect(await attributionOf("pb-slow-clock")).toMatchObject({ media_source: "organic" });
    const response = await rt.post(
      "/v1/events",
      {
        sent_at: new Date(phoneNow).toISOString(),
        events: [
          {
            event_id: "evt-slow-clock",
            service_id: "pb-slow-clock",
            event_type: "PURCHASE",
            event_time: new Date(phoneNow).toISOString(),
            parameters: { revenue: 1, currency: "USD" },
          },
        ],
      },
      keys.sdkKey,
    );
    expect(response.status).toBe(202);
    await mock.waitFor((r) => r.path === "/b/event" && r.query.get("eid") === "evt-slow-clock");
    await settle();
    expect(mock.to("/b/event").filter((r) => r.query.get("eid") === "evt-slow-clock")).toHaveLength(
      1,
    );
  });

  it("tries a 503 5 times in all, 15 minutes apart, then logs it failed; a 400 and a 302 once", async () => {
    const m = mock.url;
    for (const [id, path] of [
      ["flaky", "/status/503"],
      ["refusing", "/status/400"],
      ["moving", "/status/302"],
    ] as const) {
      await putPartner(id, {
        partner: "custom",
        template: { method: "GET", install: { url: `${m}${path}?sid={service_id}&try={attempt}` } },
        media_sources: ["network_x"],
        installs: "all",
      });
    }
    await install(androidInstall("pb-retried"));
    expect(await attributionOf("pb-retried")).toMatchObject({ media_source: "organic" });
    await mock.waitFor((r) => r.path === "/status/503" && r.query.get("sid") === "pb-retried");
    await mock.waitFor((r) => r.path === "/status/400" && r.query.get("sid") === "pb-retried");
    await mock.waitFor((r) => r.path === "/status/302" && r.query.get("sid") === "pb-retried");
    await settle();

    // A 4xx and a redirect are final at once; the redirect is not followed.
    for (const id of ["refusing", "moving"]) {
      expect(await logOf(id, "pb-retried")).toEqual([
        expect.objectContaining({ attempt: 1, verdict: "failed", final: true }),
      ]);
    }
    expect((await logOf("moving", "pb-retried"))[0]).toMatchObject({
      status: 302,
      error: "redirect not followed",
    });
    expect(mock.to("/a/redirected")).toEqual([]);

    // The 503: tried once, the next attempt due 15 minutes after it ended.
    const sendId = sendIdOf(sendConfigKey(APP, "partner", "flaky"), {
      kind: "install",
      serviceId: "pb-retried",
    });
    const first = await rt.stores.outbox.get(sendId);
    const [attempt1] = await logOf("flaky", "pb-retried");
    expect(first).toMatchObject({ state: "retrying", attempts: 1 });
    expect(Date.parse(first?.nextAttemptAt ?? "")).toBe(
      Date.parse(attempt1?.time ?? "") + 15 * MINUTE,
    );

    // The worker driven directly, its clock moved to each attempt's time rather than waited.
    let clock = Date.parse(first?.nextAttemptAt ?? "");
    const queued: { job: PostbackJob; delaySeconds: number | undefined }[] = [];
    const worker = createPostbackWorker({
      apps: rt.stores.apps,
      installs: rt.stores.installs,
      attributions: rt.stores.attributions,
      deletions: rt.stores.deletions,
      configs: rt.stores.postbackConfigs,
      outbox: rt.stores.outbox,
      log: rt.stores.deliveryLog,
      queue: {
        async send(jobs, options) {
          for (const job of jobs) queued.push({ job, delaySeconds: options?.delaySeconds });
        },
      },
      sender: createHttpSender({ allowLoopback: true }),
      keyWrapper: rt.keyWrapper,
      now: () => new Date(clock),
    });
    const message = (attempt: number): WorkMessage<PostbackJob> => ({
      id: `m${attempt}`,
      body: { appId: APP, sendId, attempt },
      attempt: 1,
    });
    for (let attempt = 2; attempt <= 5; attempt++) {
      await worker(message(attempt));
      const row = await rt.stores.outbox.get(sendId);
      if (attempt < 5) {
        expect(queued.at(-1)).toEqual({
          job: { appId: APP, sendId, attempt: attempt + 1 },
          delaySeconds: 900,
        });
        clock = Date.parse(row?.nextAttemptAt ?? "");
      }
    }
    expect(queued).toHaveLength(3);
    // The same message again, once its send is final: nothing.
    await worker(message(5));
    const tries = mock.to("/status/503").filter((r) => r.query.get("sid") === "pb-retried");
    expect(tries.map((r) => r.query.get("try"))).toEqual(["1", "2", "3", "4", "5"]);
    const log = (await logOf("flaky", "pb-retried")).reverse();
    expect(log.map((entry) => [entry.attempt, entry.retry, entry.verdict, entry.final])).toEqual([
      [1, false, "retry", false],
      [2, true, "retry", false],
      [3, true, "retry", false],
      [4, true, "retry", false],
      [5, true, "failed", true],
    ]);
    const times = log.map((entry) => Date.parse(entry.time));
    expect(times.slice(1).map((time, i) => time - (times[i] ?? 0))).toEqual([
      15 * MINUTE,
      15 * MINUTE,
      15 * MINUTE,
      15 * MINUTE,
    ]);
    expect(await rt.stores.outbox.get(sendId)).toMatchObject({ state: "failed", attempts: 5 });
    const counts = await rt.stores.deliveryLog.counts(APP, new Date(Date.now() - 86_400_000));
    const flaky = counts.filter((count) => count.configId === "flaky");
    expect(flaky.reduce((sum, count) => sum + count.retry, 0)).toBe(4);
    expect(flaky.reduce((sum, count) => sum + count.failed, 0)).toBe(1);

    // The API shows the same: the counts of the configuration, and every attempt in the log.
    const listed = (await (await rt.get("/v1/postbacks", keys.serverKey)).json()) as {
      counts: { config_id: string; retry: number; failed: number }[];
    };
    const listedFlaky = listed.counts.filter((count) => count.config_id === "flaky");
    expect(listedFlaky.reduce((sum, count) => sum + count.retry + count.failed, 0)).toBe(5);
    const page = (await (await rt.get("/v1/postbacks/log?limit=200", keys.serverKey)).json()) as {
      data: { config_id: string; service_id: string; attempt: number; retry: boolean }[];
    };
    const attempts = page.data.filter(
      (entry) => entry.config_id === "flaky" && entry.service_id === "pb-retried",
    );
    expect(attempts.map((entry) => entry.attempt).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(attempts.filter((entry) => entry.retry)).toHaveLength(4);
    // Page by page: the next page goes on from the cursor, and no attempt is on both.
    type LogPage = { data: unknown[]; next_cursor: string | null };
    const firstPage = (await (
      await rt.get("/v1/postbacks/log?limit=2", keys.serverKey)
    ).json()) as LogPage;
    expect(firstPage.data).toHaveLength(2);
    const cursor = encodeURIComponent(firstPage.next_cursor ?? "");
    const nextPage = (await (
      await rt.get(`/v1/postbacks/log?limit=2&cursor=${cursor}`, keys.serverKey)
    ).json()) as LogPage;
    expect(nextPage.data).toHaveLength(2);
    const onFirst = new Set(firstPage.data.map((entry) => JSON.stringify(entry)));
    expect(nextPage.data.filter((entry) => onFirst.has(JSON.stringify(entry)))).toEqual([]);
  });

  it("sends a test postback with a saved secret kept, shows it masked, and logs nothing", async () => {
    const token = "tok-3f9a0c7e";
    await putPartner("probe", {
      partner: "custom",
      template: {
        method: "GET",
        install: {
          url: `${mock.url}/probe/install?sid={service_id}&key={partner.key}&platform={platform}`,
        },
        event: {
          url: `${mock.url}/probe/event?name={event_name}&revenue={revenue}&platform={platform}`,
        },
      },
      media_sources: ["network_probe"],
      values: { key: token },
      secret_values: ["key"],
      events: { service_purchase: { name: "buy", revenue: true } },
    });
    // Saved again without the secret: it is kept, and never shown.
    const saved = await putPartner("probe", {
      partner: "custom",
      template: {
        method: "GET",
        install: {
          url: `${mock.url}/probe/install?sid={service_id}&key={partner.key}&platform={platform}`,
        },
        event: {
          url: `${mock.url}/probe/event?name={event_name}&revenue={revenue}&platform={platform}`,
        },
      },
      media_sources: ["network_probe"],
      secret_values: ["key"],
      events: {
        service_purchase: { name: "buy", revenue: true },
        service_level_complete: { name: "level", revenue: false },
      },
      enabled: false,
    });
    expect(saved).toMatchObject({ sealed_values: ["key"], values: {}, enabled: false });
    expect(JSON.stringify(saved)).not.toContain(token);

    const tested = await rt.post("/v1/postbacks/partners/probe/test", {}, keys.serverKey);
    expect(tested.status).toBe(200);
    const result = (await tested.json()) as {
      request: { url: string };
      response: { status: number };
      verdict: string;
    };
    expect(result.request.url).toContain("key=***");
    expect(result.request.url).not.toContain(token);
    expect(result).toMatchObject({ response: { status: 200 }, verdict: "delivered" });
    const [received] = mock.to("/probe/install");
    expect(received?.query.get("key")).toBe(token);

    const event = await rt.post(
      "/v1/postbacks/partners/probe/test",
      { kind: "event", platform: "ios" },
      keys.serverKey,
    );
    expect(event.status).toBe(200);
    expect(mock.to("/probe/event")[0]?.query.get("name")).toBe("buy");
    // The platform asked, else the app's own; the event named, else the first one mapped.
    expect(received?.query.get("platform")).toBe("android");
    expect(mock.to("/probe/event")[0]?.query.get("platform")).toBe("ios");
    const named = await rt.post(
      "/v1/postbacks/partners/probe/test",
      { kind: "event", event_name: "service_level_complete" },
      keys.serverKey,
    );
    expect(named.status).toBe(200);
    expect(mock.to("/probe/event")[1]?.query.get("name")).toBe("level");
    /** A test the configuration cannot make: refused, nothing sent. */
    const refusedTest = async (key: string, body: unknown) => {
      const response = await rt.post("/v1/postbacks/partners/probe/test", body, key);
      expect(response.status).toBe(422);
      return ((await response.json()) as { error: string; detail: string }).detail;
    };
    expect(
      await refusedTest(keys.serverKey, { kind: "event", event_name: "service_unmapped" }),
    ).toBe("body: service_unmapped is not mapped for the partner");
    expect(mock.to("/probe/event")).toHaveLength(2);
    // An iOS app's test is an iPhone's unless another platform is asked.
    const ios = await rt.createApp(`${APP}.ios`, "ios");
    /** The iOS app's probe: a custom template of its install request and any other given. */
    const putIosProbe = async (template: Record<string, unknown> = {}) => {
      const response = await rt.fetch(
        "/v1/postbacks/partners/probe",
        {
          method: "PUT",
          body: JSON.stringify({
            partner: "custom",
            template: {
              method: "GET",
              install: { url: `${mock.url}/probe/ios?platform={platform}` },
              ...template,
            },
            media_sources: ["network_probe"],
          }),
        },
        ios.serverKey,
      );
      expect(response.status).toBe(200);
    };
    await putIosProbe();
    const iosTest = await rt.post("/v1/postbacks/partners/probe/test", {}, ios.serverKey);
    expect(iosTest.status).toBe(200);
    expect(mock.to("/probe/ios")[0]?.query.get("platform")).toBe("ios");
    // Its template has no event request.
    expect(await refusedTest(ios.serverKey, { kind: "event" })).toBe(
      "body: the partner takes no event postbacks",
    );
    // An event request, and no event mapped to it yet.
    await putIosProbe({ event: { url: `${mock.url}/probe/ios-event?name={event_name}` } });
    expect(await refusedTest(ios.serverKey, { kind: "event" })).toBe(
      "body: no event is mapped for the partner: map one first",
    );
    expect(mock.to("/probe/ios-event")).toEqual([]);
    const { entries } = await rt.stores.deliveryLog.listByApp(APP, { limit: 1000 });
    expect(entries.filter((entry) => entry.configId === "probe")).toEqual([]);
    const removed = await rt.fetch(
      "/v1/postbacks/partners/probe",
      { method: "DELETE" },
      keys.serverKey,
    );
    expect(removed.status).toBe(204);
  });

  it("forgets an install's sends and its attempts' records when its data is deleted on request", async () => {
    await install(androidInstall("pb-forgotten", { maid: GAID }));
    expect(await attributionOf("pb-forgotten")).toMatchObject({ media_source: "organic" });
    await mock.waitFor((r) => r.path === "/b/install" && r.query.get("sid") === "pb-forgotten");
    await settle();
    expect(await logOf("net-b-all", "pb-forgotten")).toHaveLength(1);
    const sendId = sendIdOf(sendConfigKey(APP, "partner", "net-b-all"), {
      kind: "install",
      serviceId: "pb-forgotten",
    });
    expect(await rt.stores.outbox.get(sendId)).toMatchObject({
      sendId,
      configId: "net-b-all",
      state: "delivered",
      subject: { kind: "install", serviceId: "pb-forgotten" },
    });

    const deleted = await rt.fetch("/v1/installs/pb-forgotten", { method: "DELETE" }, keys.sdkKey);
    expect(deleted.status).toBe(202);
    const { request_id } = (await deleted.json()) as { request_id: string };
    let status = "";
    for (let attempt = 0; attempt < 200 && status !== "completed"; attempt++) {
      await sleep(100);
      const response = await rt.get(`/v1/deletions/${request_id}`, keys.serverKey);
      status = ((await response.json()) as { status: string }).status;
    }
    expect(status).toBe("completed");
    expect(await rt.stores.outbox.get(sendId)).toBeUndefined();
    expect(await logOf("net-b-all", "pb-forgotten")).toEqual([]);
  });

  it("signs a webhook so that the documented recipe verifies it", async () => {
    const saved = await rt.fetch(
      "/v1/postbacks/webhooks/backend",
      { method: "PUT", body: JSON.stringify({ url: `${mock.url}/hooks/attribution` }) },
      keys.serverKey,
    );
    expect(saved.status).toBe(200);
    // The secret is shown once, when it is made.
    const { secret } = (await saved.json()) as { secret: string };
    const listed = await (await rt.get("/v1/postbacks", keys.serverKey)).text();
    expect(listed).toContain("/hooks/attribution");
    expect(listed).not.toContain(secret);
    await install(androidInstall("pb-hooked"));
    expect(await attributionOf("pb-hooked")).toMatchObject({ media_source: "organic" });
    const [hook] = await mock.waitFor(
      (r) =>
        r.path === "/hooks/attribution" && r.body.toString().includes('"service_id":"pb-hooked"'),
    );
    const verify = await documentedVerifier();
    const header = String(hook?.headers["x-attribution-signature"]);
    expect(hook?.method).toBe("POST");
    expect(verify(secret, header, hook?.body ?? Buffer.alloc(0))).toBe(true);
    expect(verify(newWebhookSecret(), header, hook?.body ?? Buffer.alloc(0))).toBe(false);
    const body = JSON.parse(hook?.body.toString() ?? "{}");
    expect(body).toMatchObject({
      type: "install",
      app_id: APP,
      service_id: "pb-hooked",
      attribution: { service_match_status: "organic", media_source: "organic" },
    });
    expect(hook?.headers[DELIVERY_HEADER.toLowerCase()]).toBe(body.delivery_id);
    expect(hook?.headers["x-attribution-attempt"]).toBe("1");
    const removed = await rt.fetch(
      "/v1/postbacks/webhooks/backend",
      { method: "DELETE" },
      keys.serverKey,
    );
    expect(removed.status).toBe(204);
  });

  it("refuses a private or metadata address even with loopback allowed", async () => {
    // Saved through the stores as a name that answered a public address would be: the
    // sender's check is the one under test.
    for (const [id, url] of [
      ["private", "https://10.0.0.1/postback?sid={service_id}"],
      ["metadata", "https://169.254.169.254/latest/meta-data?sid={service_id}"],
    ] as const) {
      const config = parsePartnerConfig({
        id,
        appId: APP,
        partner: "custom",
        template: { method: "GET", install: { url } },
        mediaSources: ["network_x"],
        installs: "all",
      });
      // Saving checks it first.
      const refused = await putPartner(
        id,
        {
          partner: "custom",
          template: { method: "GET", install: { url } },
          media_sources: ["network_x"],
          installs: "all",
        },
        422,
      );
      expect(refused.detail).toMatch(/private|metadata|link-local/);
      await rt.stores.postbackConfigs.putPartner(await sealPartnerConfig(config, rt.keyWrapper));
    }
    await install(androidInstall("pb-ssrf"));
    expect(await attributionOf("pb-ssrf")).toMatchObject({ media_source: "organic" });
    await mock.waitFor((r) => r.path === "/b/install" && r.query.get("sid") === "pb-ssrf");
    await settle();
    expect(await logOf("private", "pb-ssrf")).toEqual([
      expect.objectContaining({
        verdict: "failed",
        final: true,
        status: null,
        error: expect.stringMatching(/^not sent: the URL points to a private address/),
      }),
    ]);
    expect((await logOf("metadata", "pb-ssrf"))[0]?.error).toMatch(/metadata address/);
    await rt.stores.postbackConfigs.delete(APP, "partner", "private");
    await rt.stores.postbackConfigs.delete(APP, "partner", "metadata");
  });
});

describe("postbacks to this machine without the loopback setting", () => {
  let rt: TestRuntime;
  let mock: MockNetwork;

  beforeAll(async () => {
    mock = await startMockNetwork();
    rt = await startTestRuntime({ trustProxy: true });
  });

  afterAll(async () => {
    await rt?.dispose();
    await mock?.close();
  });

  it("refuses 127.0.0.1 and a name that resolves to it, whoever saved them", async () => {
    const keys = await rt.createApp(APP, "android");
    const urls = {
      "literal-loopback": `https://127.0.0.1:${mock.port}/x?sid={service_id}`,
      "named-loopback": `https://localhost:${mock.port}/x?sid={service_id}`,
      "plain-loopback": `${mock.url}/x?sid={service_id}`,
    };
    for (const [id, url] of Object.entries(urls)) {
      const config = parsePartnerConfig({
        id,
        appId: APP,
        partner: "custom",
        template: { method: "GET", install: { url } },
        mediaSources: ["network_x"],
        installs: "all",
      });
      const refused = await rt.fetch(
        `/v1/postbacks/partners/${id}`,
        {
          method: "PUT",
          body: JSON.stringify({
            partner: "custom",
            template: { method: "GET", install: { url } },
            media_sources: ["network_x"],
            installs: "all",
          }),
        },
        keys.serverKey,
      );
      expect(refused.status).toBe(422);
      expect(await refused.text()).toMatch(/loopback|https/);
      await rt.stores.postbackConfigs.putPartner(await sealPartnerConfig(config, rt.keyWrapper));
    }
    const response = await rt.post("/v1/installs", androidInstall("pb-local"), keys.sdkKey, {
      "x-forwarded-for": "198.51.100.200",
    });
    expect(response.status).toBe(202);
    expect(await rt.attributionOf("pb-local", keys.sdkKey)).toMatchObject({
      media_source: "organic",
    });
    // Attributed, its three sends queued: once every worker is idle (the attribution's, then the
    // sends'), each attempt is logged, whatever the time it took.
    for (let round = 0; round < 3; round++) await rt.workers.idle();
    const { entries } = await rt.stores.deliveryLog.listByApp(APP, { limit: 10 });
    expect(entries).toHaveLength(3);
    const errorOf = (id: string) => entries.find((entry) => entry.configId === id)?.error;
    expect(errorOf("literal-loopback")).toMatch(/^not sent: the URL points to a loopback address/);
    expect(errorOf("named-loopback")).toMatch(
      /^not sent: localhost resolves to a loopback address/,
    );
    expect(errorOf("plain-loopback")).toMatch(/^not sent: the URL must be https/);
    expect(entries.every((entry) => entry.final && entry.verdict === "failed")).toBe(true);
    expect(mock.received).toEqual([]);
  });
});

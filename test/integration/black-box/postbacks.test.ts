/**
 * Postbacks on any target: partner and webhook configurations saved, read and removed over the
 * API, an unsafe URL refused; and where the target's postbacks can reach a mock network on
 * this machine, a tapped link's install and purchase posted back once each, a test postback,
 * and every attempt in the log.
 */
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { LinkAnswer } from "../../../src/links/links.ts";
import { PIXEL } from "../../support/agents.ts";
import { installRequest } from "../../support/installs.ts";
import { type MockNetwork, startMockNetwork } from "../../support/mock-network.ts";
import { itAll, itNeeds, type Keys, openTarget, type Target } from "../../support/target.ts";

/** An address, not a name: saving resolves a host, and public ones only may receive. */
const PUBLIC_ENDPOINT = "https://93.184.215.14/postbacks";

describe("postbacks", () => {
  let target: Target;
  let app: string;
  let keys: Keys;
  let mock: MockNetwork;

  const put = (path: string, body: unknown) =>
    target.fetch(
      path,
      {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      },
      keys.serverKey,
    );

  beforeAll(async () => {
    target = await openTarget();
    mock = await startMockNetwork();
    app = target.appId("com.example.bb_postbacks");
    keys = await target.createApp(app, "android");
  });

  afterAll(async () => {
    await mock?.close();
    await target?.dispose();
  });

  itAll("saves, lists and removes a partner without ever showing its secret", async () => {
    const saved = await put("/v1/postbacks/partners/public-net", {
      partner: "custom",
      template: {
        method: "GET",
        install: { url: `${PUBLIC_ENDPOINT}?sid={service_id}&key={partner.key}` },
      },
      media_sources: ["public_net"],
      values: { key: "bb-secret-7c1e" },
      secret_values: ["key"],
    });
    expect(saved.status).toBe(200);
    const listed = await target.get("/v1/postbacks", keys.serverKey);
    const text = await listed.text();
    expect(listed.status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({
      partners: [{ id: "public-net", sealed_values: ["key"], media_sources: ["public_net"] }],
    });
    expect(text).not.toContain("bb-secret-7c1e");

    const unsafe = await put("/v1/postbacks/partners/private-net", {
      partner: "generic",
      media_sources: ["private_net"],
      values: { endpoint: "https://10.0.0.1/postbacks" },
    });
    expect(unsafe.status).toBe(422);
    expect(((await unsafe.json()) as { detail: string }).detail).toMatch(/private/);

    const removed = await target.fetch(
      "/v1/postbacks/partners/public-net",
      { method: "DELETE" },
      keys.serverKey,
    );
    expect(removed.status).toBe(204);
    const after = (await (await target.get("/v1/postbacks", keys.serverKey)).json()) as {
      partners: unknown[];
    };
    expect(after.partners).toEqual([]);
  });

  itNeeds(
    ["loopbackPartner", "linkHost"],
    "posts a tapped link's install and purchase back once each, and logs every attempt",
    async () => {
      const saved = await put("/v1/postbacks/partners/mock-net", {
        partner: "custom",
        template: {
          method: "GET",
          install: { url: `${mock.url}/install?sid={service_id}&click={click.click_id}` },
          event: { url: `${mock.url}/event?sid={service_id}&name={event_name}&rev={revenue}` },
        },
        media_sources: ["mock_net"],
        events: { service_purchase: { name: "purchase", revenue: true } },
      });
      expect(saved.status).toBe(200);
      const tested = await target.post("/v1/postbacks/partners/mock-net/test", {}, keys.serverKey);
      expect(await tested.json()).toMatchObject({
        response: { status: 200 },
        verdict: "delivered",
      });

      const made = await target.post("/v1/links", { media_source: "mock_net" }, keys.serverKey);
      const link = (await made.json()) as LinkAnswer;
      const tapped = await target.tap(`/${link.deeplink_id}?click_id=net%201`, {
        "user-agent": PIXEL,
      });
      const referrer = new URL(tapped.headers.get("location") ?? "").searchParams.get("referrer");
      const serviceId = `bb-postback-${Date.now()}`;
      const installed = await target.post(
        "/v1/installs",
        installRequest(serviceId, {
          os: "android",
          os_version: "14",
          device_model: "Pixel 8",
          first_open_time: new Date().toISOString(),
          install_referrer: { referrer, click_timestamp: null, install_begin_timestamp: null },
        }),
        keys.sdkKey,
      );
      expect(installed.status).toBe(202);
      const purchase = {
        event_id: `${serviceId}-purchase`,
        service_id: serviceId,
        event_type: "PURCHASE",
        event_time: new Date().toISOString(),
        parameters: { revenue: 4.99, currency: "USD" },
      };
      await target.eventually("the install is posted back", async () => {
        expect(mock.to("/install").filter((r) => r.query.get("sid") === serviceId)).toHaveLength(1);
      });
      // Sent twice, as an SDK retries: one postback.
      for (let i = 0; i < 2; i++) {
        const sent = await target.post("/v1/events", { events: [purchase] }, keys.sdkKey);
        expect(sent.status).toBe(202);
      }
      await target.eventually("the purchase is posted back", async () => {
        const events = mock.to("/event").filter((r) => r.query.get("sid") === serviceId);
        expect(events).toHaveLength(1);
        expect(events[0]?.query.get("rev")).toBe("4.99");
      });
      const [install] = mock.to("/install").filter((r) => r.query.get("sid") === serviceId);
      expect(install?.target).toContain("click=net%201");

      const log = await target.eventually("both attempts are in the log", async () => {
        const response = await target.get("/v1/postbacks/log?limit=50", keys.serverKey);
        const page = (await response.json()) as {
          data: { service_id: string; kind: string; verdict: string }[];
        };
        const mine = page.data.filter((entry) => entry.service_id === serviceId);
        expect(mine).toHaveLength(2);
        return mine;
      });
      expect(log.map((entry) => [entry.kind, entry.verdict]).sort()).toEqual([
        ["event", "delivered"],
        ["install", "delivered"],
      ]);
    },
  );
});

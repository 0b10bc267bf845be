/**
 * The wire contract against the running service: every route of the embedded runtime called
 * over HTTP with valid input, its answer parsed with the success schema of its contract
 * (strict objects refuse any field the contract does not name), and every error status a
 * contract documents (but 500) provoked and parsed with the error schema.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { createKeyFileWrapper } from "../../src/adapters/key-file/key-file-wrapper.ts";
import { withEncryption } from "../../src/apps/app-config.ts";
import { KEY_KINDS, type Scope } from "../../src/domain/keys.ts";
import { dataPaths } from "../../src/embedded/data-dir.ts";
import { EXPORT_FORMATS } from "../../src/export/formats/index.ts";
import { SNAPSHOT_HEADER } from "../../src/export/paging.ts";
import {
  CONTRACTS,
  type ErrorStatus,
  EXPORT_DOWNLOADS,
  EXPORT_MEDIA_TYPES,
  errorBodySchema,
  exportRecordContractSchema,
  JSON_MEDIA_TYPE,
} from "../../src/http/contracts/index.ts";
import { buildOpenApiDocument } from "../../src/http/openapi.ts";
import { ROUTES, type RouteId } from "../../src/http/routes.ts";
import { COLUMN_NAMES } from "../../src/record/columns.ts";
import { type DashboardSession, signIn } from "../support/dashboard-session.ts";
import { installRequest } from "../support/installs.ts";
import { type MockNetwork, startMockNetwork } from "../support/mock-network.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.contract";
const SEALING_APP = "com.example.contract_sealed";
const USER = "user-contract-1";

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const today = () => new Date().toISOString().slice(0, 10);
const ANDROID_AGENT =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36";
const dayBefore = (day: string) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

const mediaTypeOf = (response: Response) => response.headers.get("content-type")?.split(";")[0];

describe("the wire contract, over HTTP", () => {
  let rt: TestRuntime;
  let keys: { sdkKey: string; serverKey: string };
  let sealingKeys: { sdkKey: string; serverKey: string };
  let owner: DashboardSession;
  let mock: MockNetwork;
  const serviceId = randomUUID();
  const DASHBOARD_APP = "com.example.contract-dashboard";
  const BIG_BODY = JSON.stringify({ pad: "x".repeat(1_100_000) });

  /** Checks status and media type against the route's contract, and returns the body's schema. */
  const successOf = (id: RouteId, response: Response, mediaType = JSON_MEDIA_TYPE): z.ZodType => {
    const { success } = CONTRACTS[id];
    expect(response.status, id).toBe(success.status);
    expect(mediaTypeOf(response), id).toBe(mediaType);
    const schema = success.content?.[mediaType];
    if (!schema) throw new Error(`${id} documents no ${mediaType} answer`);
    return schema;
  };

  /** Parses a JSON answer with the route's success schema and returns it. */
  const expectConforming = async (id: RouteId, response: Response): Promise<unknown> => {
    const schema = successOf(id, response);
    const body: unknown = await response.json();
    const parsed = schema.safeParse(body);
    expect(parsed.error?.issues ?? [], `${id}: ${JSON.stringify(body)}`).toEqual([]);
    return body;
  };

  const patchLink = (id: string, body: unknown, key = keys.serverKey) =>
    rt.fetch(`/v1/links/${id}`, { method: "PATCH", body: JSON.stringify(body) }, key);

  const put = (path: string, body: unknown, key = keys.serverKey) =>
    rt.fetch(path, { method: "PUT", body: JSON.stringify(body) }, key);

  /** A generic partner's configuration whose postbacks go to the mock network. */
  const putPartner = (id: string, extra: Record<string, unknown> = {}) =>
    put(`/v1/postbacks/partners/${id}`, {
      partner: "generic",
      media_sources: ["contractnet"],
      values: { endpoint: `${mock.url}/postback` },
      events: { service_purchase: { name: "purchase", revenue: true } },
      ...extra,
    });

  /** A person added by the owner on the People page's route: their email and password. */
  const newPerson = async (appIds: string[] = []) => {
    const email = `person-${randomUUID().slice(0, 8)}@example.com`;
    const response = await owner.send("POST", "/v1/users", { email, app_ids: appIds });
    expect(response.status).toBe(201);
    const { password } = (await response.json()) as { password: string };
    return { email, password };
  };
  const deleteInstall = (id: string, key = keys.sdkKey) =>
    rt.fetch(`/v1/installs/${encodeURIComponent(id)}`, { method: "DELETE" }, key);

  beforeAll(async () => {
    mock = await startMockNetwork();
    // The test postbacks go to the mock network on loopback.
    rt = await startTestRuntime({ postbacksAllowLoopback: true });
    keys = await rt.createApp(APP, "ios");
    if (!rt.owner) throw new Error("The first start made no owner account");
    owner = await signIn(rt.url, rt.owner.email, rt.owner.password);
    await owner.send("POST", "/v1/apps", {
      app_id: DASHBOARD_APP,
      name: "Dashboard contract",
      platform: "android",
    });
    sealingKeys = await rt.createApp(SEALING_APP, "android");
    const wrapper = createKeyFileWrapper(dataPaths(rt.config.dataDir).masterKey);
    await rt.stores.apps.update(SEALING_APP, (sealing) => withEncryption(sealing, true, wrapper));

    // An install with a user and an event, delivered to the lake, for the export.
    const installed = await rt.post(
      "/v1/installs",
      installRequest(serviceId, { customer_user_id: USER }),
      keys.sdkKey,
    );
    expect(installed.status).toBe(202);
    const sent = await rt.post(
      "/v1/events",
      {
        events: [
          {
            event_id: randomUUID(),
            service_id: serviceId,
            event_type: "PURCHASE",
            event_time: minutesAgo(30),
            parameters: { revenue: 4.99, currency: "EUR" },
          },
        ],
      },
      keys.sdkKey,
    );
    expect(((await sent.json()) as { accepted: number }).accepted).toBe(1);
    // The install's own row is written by the attribution worker, after its answer.
    await rt.workers.idle();
    await rt.flush();
  });

  afterAll(async () => {
    await rt.dispose();
    await mock.close();
  });

  /** One valid call per route, its answer held to the contract. Typed: a new route needs one. */
  const SUCCESS: { readonly [K in RouteId]: () => Promise<void> } = {
    config: async () => {
      const plain = await expectConforming("config", await rt.get("/v1/config", keys.sdkKey));
      expect(plain).toMatchObject({ encryption: { enabled: false } });
      const sealed = await expectConforming(
        "config",
        await rt.get("/v1/config", sealingKeys.sdkKey),
      );
      expect(sealed).toMatchObject({ encryption: { enabled: true } });
    },
    installs: async () => {
      const body = await expectConforming(
        "installs",
        await rt.post("/v1/installs", installRequest(randomUUID()), keys.sdkKey),
      );
      expect(body).toEqual({ service_id: expect.any(String) });
    },
    "app-sessions": async () => {
      const body = await expectConforming(
        "app-sessions",
        await rt.post(
          "/v1/sessions",
          {
            sent_at: new Date().toISOString(),
            sessions: [
              { session_id: randomUUID(), service_id: serviceId, started_at: minutesAgo(10) },
              // Rejected: no started_at.
              { session_id: randomUUID(), service_id: serviceId },
              // Rejected, retryable: the install is not recorded yet.
              { session_id: randomUUID(), service_id: randomUUID(), started_at: minutesAgo(5) },
            ],
          },
          keys.sdkKey,
        ),
      );
      expect(body).toMatchObject({
        accepted: 1,
        ignored: [],
        rejected: [
          { index: 1, retryable: false },
          { index: 2, error: "Conflict", retryable: true },
        ],
      });
    },
    events: async () => {
      const body = await expectConforming(
        "events",
        await rt.post(
          "/v1/events",
          {
            events: [
              {
                event_id: randomUUID(),
                service_id: serviceId,
                event_type: "CUSTOM",
                event_name: "Boss Defeated",
                event_time: minutesAgo(10),
                customer_user_id: USER,
              },
              // Ignored: installs come through POST /v1/installs.
              {
                event_id: randomUUID(),
                service_id: serviceId,
                event_type: "INSTALL",
                event_time: minutesAgo(10),
              },
              // Rejected: no event_time.
              { event_id: randomUUID(), service_id: serviceId, event_type: "LOGIN" },
              // Rejected, retryable: the install is not recorded yet.
              {
                event_id: randomUUID(),
                service_id: randomUUID(),
                event_type: "LOGIN",
                event_time: minutesAgo(10),
              },
            ],
          },
          keys.sdkKey,
        ),
      );
      expect(body).toMatchObject({
        accepted: 1,
        ignored: [{ index: 1 }],
        rejected: [
          { index: 2, retryable: false },
          { index: 3, retryable: true },
        ],
      });
    },
    "s2s-events": async () => {
      const body = await expectConforming(
        "s2s-events",
        await rt.post(
          "/v1/s2s/events",
          {
            events: [
              {
                event_id: randomUUID(),
                customer_user_id: USER,
                event_type: "SUBSCRIBE",
                event_time: minutesAgo(5),
                parameters: { revenue: "9.99", currency: "USD" },
              },
              {
                event_id: randomUUID(),
                customer_user_id: "nobody-we-know",
                event_type: "SUBSCRIBE",
                event_time: minutesAgo(5),
              },
            ],
          },
          keys.serverKey,
        ),
      );
      expect(body).toMatchObject({ accepted: 1, rejected: [{ index: 1, retryable: true }] });
    },
    consent: async () => {
      const consent = {
        gdpr_applies: true,
        ad_user_data: false,
        ad_personalization: null,
        tcf_string: "CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA",
      };
      const body = await expectConforming(
        "consent",
        await rt.post(
          `/v1/installs/${serviceId}/consent`,
          { sent_at: new Date().toISOString(), consent },
          keys.sdkKey,
        ),
      );
      expect(body).toEqual({
        service_id: serviceId,
        consent: { ...consent, updated_at: expect.any(String) },
      });
    },
    "delete-install": async () => {
      const doomed = randomUUID();
      await rt.post("/v1/installs", installRequest(doomed), keys.sdkKey);
      const body = await expectConforming("delete-install", await deleteInstall(doomed));
      expect(body).toMatchObject({ service_id: doomed, status: "pending", completed_at: null });
    },
    "request-deletion": async () => {
      const erased = randomUUID();
      await rt.post("/v1/installs", installRequest(erased), keys.sdkKey);
      const body = await expectConforming(
        "request-deletion",
        // A field it does not know is ignored, as in every body: an erasure in another
        // service's shape (OpenGDPR names its kind) is still made.
        await rt.post(
          "/v1/deletions",
          { service_id: erased, subject_request_type: "erasure" },
          keys.serverKey,
        ),
      );
      expect(body).toMatchObject({ service_id: erased, status: "pending", completed_at: null });
      // The same request the SDK's delete makes: asked again from the device, it is answered.
      const again = (await (await deleteInstall(erased)).json()) as { request_id: string };
      expect(again.request_id).toBe((body as { request_id: string }).request_id);
    },
    "deletion-status": async () => {
      const requested = (await (await deleteInstall(randomUUID())).json()) as {
        request_id: string;
      };
      const body = await expectConforming(
        "deletion-status",
        await rt.get(`/v1/deletions/${requested.request_id}`, keys.serverKey),
      );
      expect(body).toMatchObject({ request_id: requested.request_id });
    },
    export: async () => {
      const since = Math.floor(Date.now() / 1000) - 86_400;
      for (const format of EXPORT_FORMATS) {
        const response = await rt.get(
          `/api/v1/export?timestamp=${since}&format=${format}&limit=100`,
          keys.serverKey,
        );
        const schema = successOf("export", response, EXPORT_MEDIA_TYPES[format]);
        const headers = CONTRACTS.export.success.headers?.safeParse({
          "Content-Disposition": response.headers.get("content-disposition") ?? undefined,
          "Cache-Control": response.headers.get("cache-control") ?? undefined,
          [SNAPSHOT_HEADER]: response.headers.get(SNAPSHOT_HEADER) ?? undefined,
        });
        expect(headers?.error?.issues ?? [], format).toEqual([]);
        expect(response.headers.has("content-disposition"), format).toBe(
          EXPORT_DOWNLOADS.includes(format),
        );
        const bytes = Buffer.from(await response.arrayBuffer());
        const text = bytes.toString("utf8");
        // The text formats are documented as strings, the downloads as binary strings.
        if (format !== "json") schema.parse(text);
        if (format === "json") {
          const page = schema.parse(JSON.parse(text)) as { data: unknown[]; total_count: number };
          expect(page.data.length).toBeGreaterThan(0);
          expect(page.total_count).toBe(page.data.length);
        } else if (format === "ndjson") {
          const lines = text.split("\n").filter((line) => line !== "");
          expect(lines.length).toBeGreaterThan(0);
          for (const line of lines) exportRecordContractSchema.parse(JSON.parse(line));
        } else if (format === "csv" || format === "tsv") {
          const header = text.split("\n")[0];
          expect(header).toBe(COLUMN_NAMES.join(format === "csv" ? "," : "\t"));
        } else if (format === "xml") {
          expect(text).toMatch(/^<\?xml [^>]*\?>\s*<events[ >]/);
        } else {
          // Binary downloads: a zip (xlsx) and a Parquet file, by their magic bytes.
          expect(bytes.subarray(0, 4).toString("latin1"), format).toBe(
            format === "xlsx" ? "PK\u0003\u0004" : "PAR1",
          );
        }
      }
    },
    attribution: async () => {
      const body = await expectConforming(
        "attribution",
        await rt.get(`/v1/installs/${serviceId}/attribution?wait_seconds=10`, keys.sdkKey),
      );
      expect(body).toEqual({ service_match_status: "organic", media_source: "organic" });
    },
    touches: async () => {
      const body = await expectConforming(
        "touches",
        await rt.post(
          "/v1/touches",
          {
            touches: [
              {
                touch_type: "click",
                touch_time: minutesAgo(5),
                media_source: "net",
                click_id: "c1",
                cost_model: "CPC",
                cost_value: 0.12,
                cost_currency: "USD",
              },
              { touch_type: "nope" },
              {
                touch_type: "click",
                touch_time: minutesAgo(5),
                media_source: "net",
                cost_model: "CPC",
              },
            ],
          },
          keys.serverKey,
        ),
      );
      expect(body).toMatchObject({
        accepted: [{ index: 0 }],
        rejected: [
          { index: 1 },
          {
            index: 2,
            detail:
              "cost_value: is required with cost_model; cost_currency: is required with cost_model",
          },
        ],
      });
    },
    "create-link": async () => {
      const body = await expectConforming(
        "create-link",
        await rt.post(
          "/v1/links",
          {
            media_source: "net",
            deep_link_path: "/a",
            params: { promo: "X" },
            cost_model: "CPI",
            cost_value: 2.5,
            cost_currency: "EUR",
          },
          keys.serverKey,
        ),
      );
      expect(body).toMatchObject({
        media_source: "net",
        params: { promo: "X" },
        cost_model: "CPI",
        cost_value: 2.5,
        cost_currency: "EUR",
      });
    },
    "list-links": async () => {
      await rt.post("/v1/links", { media_source: "listed" }, keys.serverKey);
      const body = await expectConforming(
        "list-links",
        await rt.get("/v1/links?limit=1", keys.serverKey),
      );
      expect(body).toMatchObject({
        data: [{ media_source: "listed" }],
        next_cursor: expect.any(String),
      });
    },
    "get-link": async () => {
      const made = (await (
        await rt.post("/v1/links", { media_source: "read" }, keys.serverKey)
      ).json()) as { deeplink_id: string };
      const body = await expectConforming(
        "get-link",
        await rt.get(`/v1/links/${made.deeplink_id}`, keys.serverKey),
      );
      expect(body).toMatchObject({ deeplink_id: made.deeplink_id });
    },
    "update-link": async () => {
      const made = (await (
        await rt.post("/v1/links", { media_source: "paused" }, keys.serverKey)
      ).json()) as { deeplink_id: string };
      const body = await expectConforming(
        "update-link",
        await patchLink(made.deeplink_id, {
          disabled: true,
          cost_model: "CPM",
          cost_value: 3,
          cost_currency: "GBP",
        }),
      );
      expect(body).toMatchObject({
        deeplink_id: made.deeplink_id,
        disabled: true,
        cost_model: "CPM",
        cost_value: 3,
        cost_currency: "GBP",
      });
      const cleared = await expectConforming(
        "update-link",
        await patchLink(made.deeplink_id, {
          cost_model: null,
          cost_value: null,
          cost_currency: null,
        }),
      );
      expect(cleared).toMatchObject({ cost_model: null, cost_value: null, cost_currency: null });
    },
    "sign-in": async () => {
      if (!rt.owner) throw new Error("no owner");
      const response = await rt.post("/v1/session", {
        email: rt.owner.email.toUpperCase(),
        password: rt.owner.password,
      });
      const body = await expectConforming("sign-in", response);
      expect(body).toMatchObject({ user: { email: rt.owner.email, admin: true } });
      const cookie = response.headers.get("set-cookie") ?? "";
      expect(cookie).toMatch(
        /^attribution_session=[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/,
      );
    },
    session: async () => {
      const body = await expectConforming("session", await owner.get("/v1/session"));
      expect(body).toEqual({
        user: { email: owner.email, admin: true, viewer: false },
        csrf_token: owner.csrfToken,
      });
    },
    "sign-out": async () => {
      if (!rt.owner) throw new Error("no owner");
      const leaving = await signIn(rt.url, rt.owner.email, rt.owner.password);
      const response = await leaving.send("DELETE", "/v1/session");
      expect(response.status).toBe(CONTRACTS["sign-out"].success.status);
      expect(response.headers.get("set-cookie")).toContain("Max-Age=0");
      expect((await leaving.get("/v1/session")).status).toBe(401);
    },
    "list-apps": async () => {
      const body = await expectConforming("list-apps", await owner.get("/v1/apps"));
      expect((body as { apps: { app_id: string }[] }).apps.map((app) => app.app_id)).toContain(
        DASHBOARD_APP,
      );
    },
    "create-app": async () => {
      const appId = `com.example.made-${randomUUID().slice(0, 8)}`;
      const body = await expectConforming(
        "create-app",
        await owner.send("POST", "/v1/apps", { app_id: appId, name: "Made", platform: "ios" }),
      );
      expect(body).toMatchObject({ app: { app_id: appId, platform: "ios", enabled: true } });
    },
    "get-app": async () => {
      const body = await expectConforming("get-app", await owner.get(`/v1/apps/${DASHBOARD_APP}`));
      expect(body).toMatchObject({
        app: { app_id: DASHBOARD_APP, attribution: { click_window_days: 7 } },
      });
    },
    "update-app": async () => {
      const body = await expectConforming(
        "update-app",
        await owner.send("PATCH", `/v1/apps/${DASHBOARD_APP}`, {
          attribution: { click_window_days: 14 },
          links: { web_url: "https://example.com/" },
          encryption: { enabled: true },
        }),
      );
      expect(body).toMatchObject({
        app: {
          attribution: { click_window_days: 14 },
          links: { web_url: "https://example.com/" },
          encryption: { enabled: true, key_id: expect.any(String) },
        },
      });
    },
    "list-keys": async () => {
      await owner.send("POST", `/v1/apps/${DASHBOARD_APP}/keys`, { kind: "sdk" });
      const body = await expectConforming(
        "list-keys",
        await owner.get(`/v1/apps/${DASHBOARD_APP}/keys`),
      );
      expect((body as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
      expect(JSON.stringify(body)).not.toMatch(/"(key|hash)":/);
    },
    "create-key": async () => {
      const body = await expectConforming(
        "create-key",
        await owner.send("POST", `/v1/apps/${DASHBOARD_APP}/keys`, { kind: "server" }),
      );
      const { key } = body as { key: { key: string } };
      expect((await rt.get(`/v1/links?app_id=${DASHBOARD_APP}`, key.key)).status).toBe(200);
    },
    "revoke-key": async () => {
      const made = (await (
        await owner.send("POST", `/v1/apps/${DASHBOARD_APP}/keys`, { kind: "sdk" })
      ).json()) as { key: { key_id: string; key: string } };
      expect((await rt.get("/v1/config", made.key.key)).status).toBe(200);
      const body = await expectConforming(
        "revoke-key",
        await owner.send("DELETE", `/v1/apps/${DASHBOARD_APP}/keys/${made.key.key_id}`),
      );
      expect(body).toMatchObject({
        key: { key_id: made.key.key_id, revoked_at: expect.any(String) },
      });
      expect((await rt.get("/v1/config", made.key.key)).status).toBe(401);
    },
    "list-users": async () => {
      const body = await expectConforming("list-users", await owner.get("/v1/users"));
      expect((body as { users: unknown[] }).users).toContainEqual(
        expect.objectContaining({ email: owner.email, role: "admin" }),
      );
      expect(JSON.stringify(body)).not.toMatch(/hash|secret/i);
    },
    "create-user": async () => {
      const email = `made-${randomUUID().slice(0, 8)}@example.com`;
      const response = await owner.send("POST", "/v1/users", {
        email,
        role: "viewer",
        app_ids: [DASHBOARD_APP],
      });
      expect(response.headers.get("cache-control")).toBe("no-store");
      const body = await expectConforming("create-user", response);
      expect(body).toMatchObject({ user: { email, role: "viewer", app_ids: [DASHBOARD_APP] } });
      // The password answered is the person's.
      await signIn(rt.url, email, (body as { password: string }).password);
    },
    "reset-user-password": async () => {
      const { email, password } = await newPerson();
      const response = await owner.send("POST", `/v1/users/${encodeURIComponent(email)}/password`);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const body = (await expectConforming("reset-user-password", response)) as {
        password: string;
      };
      await expect(signIn(rt.url, email, password)).rejects.toThrow(/401/);
      await signIn(rt.url, email, body.password);
    },
    "remove-user": async () => {
      const { email } = await newPerson();
      const response = await owner.send("DELETE", `/v1/users/${encodeURIComponent(email)}`);
      expect(response.status).toBe(CONTRACTS["remove-user"].success.status);
      const listed = (await (await owner.get("/v1/users")).json()) as {
        users: { email: string }[];
      };
      expect(listed.users.map((user) => user.email)).not.toContain(email);
    },
    "grant-user-app": async () => {
      const { email } = await newPerson();
      const body = await expectConforming(
        "grant-user-app",
        await owner.send("PUT", `/v1/users/${encodeURIComponent(email)}/apps/${DASHBOARD_APP}`),
      );
      expect(body).toMatchObject({ user: { email, app_ids: [DASHBOARD_APP] } });
    },
    "revoke-user-app": async () => {
      const { email } = await newPerson([DASHBOARD_APP]);
      const body = await expectConforming(
        "revoke-user-app",
        await owner.send("DELETE", `/v1/users/${encodeURIComponent(email)}/apps/${DASHBOARD_APP}`),
      );
      expect(body).toMatchObject({ user: { email, app_ids: [] } });
    },
    "report-overview": async () => {
      const body = await expectConforming(
        "report-overview",
        await rt.get(
          `/v1/reports/overview?from=${dayBefore(today())}&to=${today()}`,
          keys.serverKey,
        ),
      );
      // The purchase sent before: 4.99 EUR in USD.
      expect(body).toMatchObject({
        totals: { events: expect.any(Number), revenue_usd: expect.any(Number) },
      });
      const { totals } = body as { totals: { events: number; revenue_usd: number } };
      expect(totals.events).toBeGreaterThanOrEqual(1);
      expect(totals.revenue_usd).toBeGreaterThan(4);
    },
    "report-cohorts": async () => {
      const body = await expectConforming(
        "report-cohorts",
        await rt.get(
          `/v1/reports/cohorts?from=${dayBefore(today())}&to=${today()}&group_by=country`,
          keys.serverKey,
        ),
      );
      expect(body).toMatchObject({ group_by: "country", totals: { installs: expect.any(Number) } });
      const { totals } = body as { totals: { installs: number; revenue_usd: number } };
      expect(totals.installs).toBeGreaterThanOrEqual(1);
      expect(totals.revenue_usd).toBeGreaterThan(4);
    },
    "report-link-clicks": async () => {
      // The Android app: a tap from an Android phone goes to its Play Store page.
      const made = (await (
        await rt.post("/v1/links", { media_source: "counted" }, sealingKeys.serverKey)
      ).json()) as { url: string; deeplink_id: string };
      const tapped = await fetch(`${rt.linkUrl}/${made.deeplink_id}`, {
        redirect: "manual",
        headers: { "user-agent": ANDROID_AGENT },
      });
      expect(tapped.status).toBe(302);
      await rt.flush();
      const body = await expectConforming(
        "report-link-clicks",
        await rt.get("/v1/reports/link-clicks", sealingKeys.serverKey),
      );
      expect(body).toMatchObject({ clicks: [{ deeplink_id: made.deeplink_id, clicks: 1 }] });
    },
    "report-latest-events": async () => {
      const body = await expectConforming(
        "report-latest-events",
        await rt.get("/v1/reports/latest-events?limit=5", keys.serverKey),
      );
      const { events } = body as { events: { event_name: string }[] };
      expect(events.length).toBeGreaterThanOrEqual(1);
    },
    "list-partners": async () => {
      const body = await expectConforming(
        "list-partners",
        await rt.get("/v1/partners", keys.serverKey),
      );
      const { data } = body as { data: { id: string }[] };
      expect(data.map((partner) => partner.id)).toContain("generic");
    },
    "list-postbacks": async () => {
      expect((await putPartner("listed")).status).toBe(200);
      const body = await expectConforming(
        "list-postbacks",
        await rt.get("/v1/postbacks", keys.serverKey),
      );
      expect(body).toMatchObject({
        partners: [{ id: "listed", partner: "generic" }],
        settings: { share_device_data_without_consent: false },
      });
    },
    "put-partner-postback": async () => {
      const body = await expectConforming("put-partner-postback", await putPartner("saved"));
      expect(body).toMatchObject({
        id: "saved",
        media_sources: ["contractnet"],
        values: { endpoint: `${mock.url}/postback` },
        event_window_days: 180,
        enabled: true,
      });
      // A custom partner's template is answered in the template's own shape, credentials masked.
      const custom = await expectConforming(
        "put-partner-postback",
        await put("/v1/postbacks/partners/custom-net", {
          partner: "custom",
          media_sources: ["customnet"],
          template: {
            method: "POST",
            install: {
              url: `${mock.url}/install?api_key=k-1&sid={service_id}`,
              headers: { "X-Api-Key": "k-2" },
              body: '{"id":"{service_id}"}',
            },
          },
        }),
      );
      expect(custom).toMatchObject({
        partner: "custom",
        template: {
          method: "POST",
          install: {
            url: `${mock.url}/install?api_key=***&sid={service_id}`,
            headers: { "X-Api-Key": "***" },
            body: '{"id":"{service_id}"}',
          },
        },
      });
    },
    "delete-partner-postback": async () => {
      await putPartner("deleted");
      const response = await rt.fetch(
        "/v1/postbacks/partners/deleted",
        { method: "DELETE" },
        keys.serverKey,
      );
      expect(response.status).toBe(CONTRACTS["delete-partner-postback"].success.status);
      const listed = (await (await rt.get("/v1/postbacks", keys.serverKey)).json()) as {
        partners: { id: string }[];
      };
      expect(listed.partners.map((partner) => partner.id)).not.toContain("deleted");
    },
    "test-partner-postback": async () => {
      await putPartner("tested");
      const body = await expectConforming(
        "test-partner-postback",
        await rt.post("/v1/postbacks/partners/tested/test", { kind: "event" }, keys.serverKey),
      );
      expect(body).toMatchObject({
        request: { method: "GET" },
        response: { status: 200 },
        verdict: "delivered",
      });
      const [received] = mock.to("/postback").filter((r) => r.query.get("event") === "purchase");
      expect(received?.query.get("media_source")).toBe("contractnet");
    },
    "put-webhook": async () => {
      const body = await expectConforming(
        "put-webhook",
        await put("/v1/postbacks/webhooks/backend", { url: `${mock.url}/hooks` }),
      );
      expect(body).toMatchObject({ id: "backend", secret: expect.stringMatching(/^whsec_/) });
    },
    "delete-webhook": async () => {
      await put("/v1/postbacks/webhooks/gone", { url: `${mock.url}/hooks` });
      const response = await rt.fetch(
        "/v1/postbacks/webhooks/gone",
        { method: "DELETE" },
        keys.serverKey,
      );
      expect(response.status).toBe(CONTRACTS["delete-webhook"].success.status);
      const again = await rt.fetch(
        "/v1/postbacks/webhooks/gone",
        { method: "DELETE" },
        keys.serverKey,
      );
      expect(again.status).toBe(404);
    },
    "test-webhook": async () => {
      await put("/v1/postbacks/webhooks/probe", { url: `${mock.url}/probe` });
      const body = await expectConforming(
        "test-webhook",
        await rt.post("/v1/postbacks/webhooks/probe/test", {}, keys.serverKey),
      );
      expect(body).toMatchObject({ request: { method: "POST" }, response: { status: 200 } });
      expect(mock.to("/probe")).toHaveLength(1);
    },
    "put-postback-settings": async () => {
      const body = await expectConforming(
        "put-postback-settings",
        await put("/v1/postbacks/settings", { share_device_data_without_consent: true }),
      );
      expect(body).toEqual({ share_device_data_without_consent: true });
    },
    "postback-log": async () => {
      const body = await expectConforming(
        "postback-log",
        await rt.get("/v1/postbacks/log?limit=10", keys.serverKey),
      );
      expect(body).toMatchObject({ data: expect.any(Array) });
    },
    "get-skadnetwork-schema": async () => {
      const body = await expectConforming(
        "get-skadnetwork-schema",
        await rt.get("/v1/skadnetwork/schema", keys.serverKey),
      );
      expect(body).toHaveProperty("schema");
    },
    "put-skadnetwork-schema": async () => {
      const body = await expectConforming(
        "put-skadnetwork-schema",
        await put("/v1/skadnetwork/schema", {
          windows: [
            { rules: [{ event: "service_purchase", fine: 20, coarse: "high" }] },
            { rules: [{ event: "service_purchase", coarse: "high" }] },
            { rules: [] },
          ],
        }),
      );
      expect(body).toMatchObject({ schema: { version: expect.any(Number) } });
      const config = await (await rt.get("/v1/config", keys.sdkKey)).json();
      expect(config).toMatchObject({ skadnetwork: { windows: expect.any(Array) } });
    },
    "get-skadnetwork-networks": async () => {
      const body = await expectConforming(
        "get-skadnetwork-networks",
        await rt.get("/v1/skadnetwork/networks", keys.serverKey),
      );
      expect(body).toMatchObject({
        networks: expect.arrayContaining([
          {
            ad_network_id: "cstr6suwn9.skadnetwork",
            media_source: "googleadwords_int",
            own: false,
          },
        ]),
      });
    },
    "put-skadnetwork-networks": async () => {
      const body = await expectConforming(
        "put-skadnetwork-networks",
        await put("/v1/skadnetwork/networks", {
          networks: { "abcd1234ef.skadnetwork": "examplenet" },
        }),
      );
      expect(body).toMatchObject({
        networks: expect.arrayContaining([
          { ad_network_id: "abcd1234ef.skadnetwork", media_source: "examplenet", own: true },
        ]),
      });
    },
    "report-skadnetwork": async () => {
      const body = await expectConforming(
        "report-skadnetwork",
        await rt.get(
          `/v1/skadnetwork/report?from=${dayBefore(today())}&to=${today()}`,
          keys.serverKey,
        ),
      );
      expect(body).toMatchObject({ postbacks: { received: expect.any(Number) } });
    },
    "list-skadnetwork-postbacks": async () => {
      const body = await expectConforming(
        "list-skadnetwork-postbacks",
        await rt.get(
          `/v1/skadnetwork/postbacks?from=${dayBefore(today())}&to=${today()}`,
          keys.serverKey,
        ),
      );
      expect(body).toMatchObject({ data: expect.any(Array), next_cursor: null });
    },
    "unknown-skadnetwork-postbacks": async () => {
      const body = await expectConforming(
        "unknown-skadnetwork-postbacks",
        await owner.get(`/v1/skadnetwork/unknown?from=${dayBefore(today())}&to=${today()}`),
      );
      expect(body).toMatchObject({ app_store_ids: expect.any(Array), truncated: false });
    },
    "put-costs": async () => {
      const row = {
        day: dayBefore(today()),
        media_source: "contractnet",
        campaign_id: "c1",
        amount: 100,
        currency: "USD",
      };
      const first = await expectConforming(
        "put-costs",
        await rt.post("/v1/costs", { rows: [row] }, keys.serverKey),
      );
      expect(first).toEqual({ accepted: 1, replaced: 0, warnings: [] });
      const again = await expectConforming(
        "put-costs",
        await rt.post("/v1/costs", { rows: [{ ...row, amount: 120 }] }, keys.serverKey),
      );
      expect(again).toEqual({ accepted: 1, replaced: 1, warnings: [] });
    },
    "list-costs": async () => {
      await rt.post(
        "/v1/costs",
        {
          rows: [
            {
              day: today(),
              media_source: "listed",
              campaign_id: "c2",
              amount: 5,
              currency: "USD",
              clicks: 10,
            },
          ],
        },
        keys.serverKey,
      );
      const body = await expectConforming(
        "list-costs",
        await rt.get(`/v1/costs?from=${today()}&to=${today()}`, keys.serverKey),
      );
      expect(body).toMatchObject({
        data: expect.arrayContaining([
          expect.objectContaining({ media_source: "listed", amount: 5, amount_usd: 5, clicks: 10 }),
        ]),
      });
    },
    openapi: async () => {
      // Public: no key, and a key that is not one does not matter either.
      for (const key of [undefined, "not-a-key"]) {
        const response = await rt.get("/v1/openapi.json", key);
        const body = await expectConforming("openapi", response);
        expect(body).toEqual(buildOpenApiDocument());
        expect(response.headers.get("cache-control")).toBe("public, max-age=300");
      }
    },
  };

  it.each(ROUTES.map((route) => [route.id, route] as const))(
    "%s answers valid input as its contract says",
    async (id) => {
      await SUCCESS[id]();
    },
  );

  /** A call provoking each documented error status but 500. */
  const ERRORS: {
    readonly [K in RouteId]: {
      readonly [S in Exclude<ErrorStatus, 500>]?: () => Promise<Response>;
    };
  } = {
    config: { 401: () => rt.get("/v1/config", keys.serverKey) },
    installs: {
      400: () => rt.post("/v1/installs", "{not json", keys.sdkKey),
      401: () => rt.post("/v1/installs", installRequest(randomUUID())),
      413: () =>
        rt.post(
          "/v1/installs",
          JSON.stringify(installRequest("x", { locale: "x".repeat(1_100_000) })),
          keys.sdkKey,
        ),
      422: () => rt.post("/v1/installs", installRequest("x", { os: "windows" }), keys.sdkKey),
    },
    events: {
      400: () => rt.post("/v1/events", "", keys.sdkKey),
      401: () => rt.post("/v1/events", { events: [] }, keys.serverKey),
      413: () => rt.post("/v1/events", JSON.stringify({ pad: "x".repeat(1_100_000) }), keys.sdkKey),
      422: () => rt.post("/v1/events", { events: [] }, keys.sdkKey),
    },
    "app-sessions": {
      400: () => rt.post("/v1/sessions", "{", keys.sdkKey),
      401: () => rt.post("/v1/sessions", { sessions: [] }, keys.serverKey),
      413: () =>
        rt.post("/v1/sessions", JSON.stringify({ pad: "x".repeat(1_100_000) }), keys.sdkKey),
      422: () => rt.post("/v1/sessions", { sessions: [] }, keys.sdkKey),
    },
    "s2s-events": {
      400: () => rt.post("/v1/s2s/events", "[", keys.serverKey),
      401: () => rt.post("/v1/s2s/events", { events: [] }, keys.sdkKey),
      413: () =>
        rt.post("/v1/s2s/events", JSON.stringify({ pad: "x".repeat(1_100_000) }), keys.serverKey),
      422: () => rt.post("/v1/s2s/events", { events: "none" }, keys.serverKey),
    },
    consent: {
      400: () => rt.post(`/v1/installs/${serviceId}/consent`, "{", keys.sdkKey),
      401: () => rt.post(`/v1/installs/${serviceId}/consent`, { consent: {} }, keys.serverKey),
      409: () => rt.post(`/v1/installs/${randomUUID()}/consent`, { consent: {} }, keys.sdkKey),
      413: () =>
        rt.post(
          `/v1/installs/${serviceId}/consent`,
          JSON.stringify({ pad: "x".repeat(1_100_000) }),
          keys.sdkKey,
        ),
      422: () =>
        rt.post(
          `/v1/installs/${serviceId}/consent`,
          { consent: { ad_user_data: "yes" } },
          keys.sdkKey,
        ),
    },
    "delete-install": {
      401: () => deleteInstall(serviceId, keys.serverKey),
      422: () => deleteInstall("not/an id"),
    },
    "request-deletion": {
      400: () => rt.post("/v1/deletions", "{not json", keys.serverKey),
      401: () => rt.post("/v1/deletions", { service_id: serviceId }, keys.sdkKey),
      413: () =>
        rt.post("/v1/deletions", JSON.stringify({ pad: "x".repeat(1_100_000) }), keys.serverKey),
      422: () => rt.post("/v1/deletions", { service_id: "not/an id" }, keys.serverKey),
    },
    "deletion-status": {
      401: () => rt.get(`/v1/deletions/${randomUUID()}`, keys.sdkKey),
      404: () => rt.get(`/v1/deletions/${randomUUID()}`, keys.serverKey),
      422: () => rt.get("/v1/deletions/not-a-uuid", keys.serverKey),
    },
    export: {
      401: () => rt.get("/api/v1/export?timestamp=0", keys.sdkKey),
      422: () => rt.get("/api/v1/export?timestamp=0&limit=0", keys.serverKey),
    },
    attribution: {
      401: () => rt.get(`/v1/installs/${serviceId}/attribution`, keys.serverKey),
      404: () => rt.get("/v1/installs/nobody/attribution", keys.sdkKey),
      422: () => rt.get(`/v1/installs/${serviceId}/attribution?wait_seconds=99`, keys.sdkKey),
    },
    touches: {
      400: () => rt.post("/v1/touches", "{", keys.serverKey),
      401: () => rt.post("/v1/touches", { touches: [] }, keys.sdkKey),
      413: () =>
        rt.post("/v1/touches", JSON.stringify({ pad: "x".repeat(1_100_000) }), keys.serverKey),
      422: () => rt.post("/v1/touches", { touches: [] }, keys.serverKey),
    },
    "create-link": {
      400: () => rt.post("/v1/links", "", keys.serverKey),
      401: () => rt.post("/v1/links", { media_source: "x" }, keys.sdkKey),
      413: () =>
        rt.post("/v1/links", JSON.stringify({ pad: "x".repeat(1_100_000) }), keys.serverKey),
      422: () => rt.post("/v1/links", { media_source: "x", cost_model: "CPI" }, keys.serverKey),
    },
    "list-links": {
      401: () => rt.get("/v1/links", keys.sdkKey),
      404: () => rt.get("/v1/links?app_id=com.example.other", keys.serverKey),
      422: () => rt.get("/v1/links?limit=1000", keys.serverKey),
    },
    "get-link": {
      401: () => rt.get("/v1/links/AAAAAAAAAAA", keys.sdkKey),
      404: () => rt.get("/v1/links/AAAAAAAAAAA", keys.serverKey),
      422: () => rt.get("/v1/links/x", keys.serverKey),
    },
    "update-link": {
      400: () => rt.fetch("/v1/links/AAAAAAAAAAA", { method: "PATCH", body: "{" }, keys.serverKey),
      401: () => patchLink("AAAAAAAAAAA", { disabled: true }, keys.sdkKey),
      404: () => patchLink("AAAAAAAAAAA", { disabled: true }),
      413: () =>
        rt.fetch(
          "/v1/links/AAAAAAAAAAA",
          { method: "PATCH", body: JSON.stringify({ pad: "x".repeat(1_100_000) }) },
          keys.serverKey,
        ),
      422: () => patchLink("AAAAAAAAAAA", { disabled: "no" }),
    },
    "sign-in": {
      400: () =>
        rt.post("/v1/session", { email: "a@b", password: "x" }, undefined, {
          "content-type": "text/plain",
        }),
      401: () => rt.post("/v1/session", { email: owner.email, password: "wrong password" }),
      413: () => rt.post("/v1/session", { email: owner.email, password: "x".repeat(5_000) }),
      422: () => rt.post("/v1/session", { email: owner.email }),
    },
    session: { 401: () => rt.get("/v1/session") },
    "sign-out": { 401: () => owner.fetch("/v1/session", { method: "DELETE", csrf: false }) },
    "list-apps": { 401: () => rt.get("/v1/apps", keys.serverKey) },
    "create-app": {
      400: () => owner.send("POST", "/v1/apps", "{"),
      401: () => owner.fetch("/v1/apps", { method: "POST", body: "{}", csrf: false }),
      409: () => owner.send("POST", "/v1/apps", { app_id: APP, name: "Again", platform: "ios" }),
      413: () => owner.send("POST", "/v1/apps", BIG_BODY),
      422: () =>
        owner.send("POST", "/v1/apps", { app_id: "no spaces", name: "x", platform: "ios" }),
    },
    "get-app": { 401: () => rt.get(`/v1/apps/${DASHBOARD_APP}`, keys.serverKey) },
    "update-app": {
      400: () => owner.send("PATCH", `/v1/apps/${DASHBOARD_APP}`, "{"),
      401: () =>
        owner.fetch(`/v1/apps/${DASHBOARD_APP}`, { method: "PATCH", body: "{}", csrf: false }),
      // The service's own link host, which no app may name.
      409: () =>
        owner.send("PATCH", `/v1/apps/${DASHBOARD_APP}`, {
          links: { hosts: [new URL(rt.linkUrl).host] },
        }),
      413: () => owner.send("PATCH", `/v1/apps/${DASHBOARD_APP}`, BIG_BODY),
      422: () =>
        owner.send("PATCH", `/v1/apps/${DASHBOARD_APP}`, {
          attribution: { click_window_days: 99 },
        }),
    },
    "list-keys": { 401: () => rt.get(`/v1/apps/${DASHBOARD_APP}/keys`, keys.serverKey) },
    "create-key": {
      400: () => owner.send("POST", `/v1/apps/${DASHBOARD_APP}/keys`, "{"),
      401: () =>
        owner.fetch(`/v1/apps/${DASHBOARD_APP}/keys`, {
          method: "POST",
          body: JSON.stringify({ kind: "sdk" }),
          csrf: false,
        }),
      413: () => owner.send("POST", `/v1/apps/${DASHBOARD_APP}/keys`, BIG_BODY),
      422: () => owner.send("POST", `/v1/apps/${DASHBOARD_APP}/keys`, { kind: "admin" }),
    },
    "revoke-key": {
      401: () =>
        rt.fetch(
          `/v1/apps/${DASHBOARD_APP}/keys/0000000000000000`,
          { method: "DELETE" },
          keys.serverKey,
        ),
      404: () => owner.send("DELETE", `/v1/apps/${DASHBOARD_APP}/keys/0000000000000000`),
      422: () => owner.send("DELETE", `/v1/apps/${DASHBOARD_APP}/keys/not-a-key`),
    },
    "list-users": { 401: () => rt.get("/v1/users", keys.serverKey) },
    "create-user": {
      400: () => owner.send("POST", "/v1/users", "{"),
      401: () =>
        owner.fetch("/v1/users", {
          method: "POST",
          body: JSON.stringify({ email: "someone@example.com" }),
          csrf: false,
        }),
      409: () => owner.send("POST", "/v1/users", { email: owner.email }),
      413: () => owner.send("POST", "/v1/users", BIG_BODY),
      422: () => owner.send("POST", "/v1/users", { email: "not an email", role: "owner" }),
    },
    "reset-user-password": {
      401: () =>
        owner.fetch("/v1/users/nobody%40example.com/password", { method: "POST", csrf: false }),
      404: () => owner.send("POST", "/v1/users/nobody%40example.com/password"),
      // The owner is the admin asking.
      409: () => owner.send("POST", `/v1/users/${encodeURIComponent(owner.email)}/password`),
      422: () => owner.send("POST", "/v1/users/x/password"),
    },
    "remove-user": {
      401: () => owner.fetch("/v1/users/nobody%40example.com", { method: "DELETE", csrf: false }),
      404: () => owner.send("DELETE", "/v1/users/nobody%40example.com"),
      // The owner is the admin asking.
      409: () => owner.send("DELETE", `/v1/users/${encodeURIComponent(owner.email)}`),
      422: () => owner.send("DELETE", "/v1/users/x"),
    },
    "grant-user-app": {
      401: () =>
        owner.fetch(`/v1/users/nobody%40example.com/apps/${DASHBOARD_APP}`, {
          method: "PUT",
          csrf: false,
        }),
      404: () => owner.send("PUT", `/v1/users/nobody%40example.com/apps/${DASHBOARD_APP}`),
      // An admin sees every app already.
      409: () =>
        owner.send("PUT", `/v1/users/${encodeURIComponent(owner.email)}/apps/${DASHBOARD_APP}`),
      422: () => owner.send("PUT", "/v1/users/nobody%40example.com/apps/no%20spaces"),
    },
    "revoke-user-app": {
      401: () =>
        owner.fetch(`/v1/users/nobody%40example.com/apps/${DASHBOARD_APP}`, {
          method: "DELETE",
          csrf: false,
        }),
      404: () => owner.send("DELETE", `/v1/users/nobody%40example.com/apps/${DASHBOARD_APP}`),
      409: () =>
        owner.send("DELETE", `/v1/users/${encodeURIComponent(owner.email)}/apps/${DASHBOARD_APP}`),
      422: () => owner.send("DELETE", "/v1/users/nobody%40example.com/apps/no%20spaces"),
    },
    "report-overview": {
      401: () => rt.get(`/v1/reports/overview?from=${today()}&to=${today()}`, keys.sdkKey),
      404: () =>
        rt.get(
          `/v1/reports/overview?app_id=com.example.other&from=${today()}&to=${today()}`,
          keys.serverKey,
        ),
      422: () => rt.get(`/v1/reports/overview?from=${today()}&to=2000-01-01`, keys.serverKey),
    },
    "report-cohorts": {
      401: () => rt.get(`/v1/reports/cohorts?from=${today()}&to=${today()}`, keys.sdkKey),
      404: () =>
        rt.get(
          `/v1/reports/cohorts?app_id=com.example.other&from=${today()}&to=${today()}`,
          keys.serverKey,
        ),
      422: () =>
        rt.get(`/v1/reports/cohorts?from=${today()}&to=${today()}&group_by=os`, keys.serverKey),
    },
    "report-link-clicks": {
      401: () => rt.get("/v1/reports/link-clicks", keys.sdkKey),
      404: () => rt.get("/v1/reports/link-clicks?app_id=com.example.other", keys.serverKey),
      422: () => rt.get("/v1/reports/link-clicks?link=x", keys.serverKey),
    },
    "report-latest-events": {
      401: () => rt.get("/v1/reports/latest-events", keys.sdkKey),
      404: () => rt.get("/v1/reports/latest-events?app_id=com.example.other", keys.serverKey),
      422: () => rt.get("/v1/reports/latest-events?limit=0", keys.serverKey),
    },
    "list-partners": { 401: () => rt.get("/v1/partners", keys.sdkKey) },
    "list-postbacks": { 401: () => rt.get("/v1/postbacks", keys.sdkKey) },
    "put-partner-postback": {
      400: () => rt.fetch("/v1/postbacks/partners/x", { method: "PUT", body: "{" }, keys.serverKey),
      401: () => put("/v1/postbacks/partners/x", { partner: "generic" }, keys.sdkKey),
      413: () =>
        rt.fetch("/v1/postbacks/partners/x", { method: "PUT", body: BIG_BODY }, keys.serverKey),
      422: () => put("/v1/postbacks/partners/x", { partner: "generic" }),
    },
    "delete-partner-postback": {
      401: () => rt.fetch("/v1/postbacks/partners/none", { method: "DELETE" }, keys.sdkKey),
      404: () => rt.fetch("/v1/postbacks/partners/none", { method: "DELETE" }, keys.serverKey),
      422: () => rt.fetch("/v1/postbacks/partners/a%20b", { method: "DELETE" }, keys.serverKey),
    },
    "test-partner-postback": {
      400: () => rt.post("/v1/postbacks/partners/none/test", "{", keys.serverKey),
      401: () => rt.post("/v1/postbacks/partners/none/test", {}, keys.sdkKey),
      404: () => rt.post("/v1/postbacks/partners/none/test", {}, keys.serverKey),
      413: () => rt.post("/v1/postbacks/partners/none/test", BIG_BODY, keys.serverKey),
      422: () => rt.post("/v1/postbacks/partners/none/test", { kind: "click" }, keys.serverKey),
    },
    "put-webhook": {
      400: () => rt.fetch("/v1/postbacks/webhooks/x", { method: "PUT", body: "{" }, keys.serverKey),
      401: () => put("/v1/postbacks/webhooks/x", { url: "https://example.com/" }, keys.sdkKey),
      413: () =>
        rt.fetch("/v1/postbacks/webhooks/x", { method: "PUT", body: BIG_BODY }, keys.serverKey),
      422: () => put("/v1/postbacks/webhooks/x", { url: "https://10.0.0.1/" }),
    },
    "delete-webhook": {
      401: () => rt.fetch("/v1/postbacks/webhooks/none", { method: "DELETE" }, keys.sdkKey),
      404: () => rt.fetch("/v1/postbacks/webhooks/none", { method: "DELETE" }, keys.serverKey),
      422: () => rt.fetch("/v1/postbacks/webhooks/a%20b", { method: "DELETE" }, keys.serverKey),
    },
    "test-webhook": {
      400: () => rt.post("/v1/postbacks/webhooks/none/test", "{", keys.serverKey),
      401: () => rt.post("/v1/postbacks/webhooks/none/test", {}, keys.sdkKey),
      404: () => rt.post("/v1/postbacks/webhooks/none/test", {}, keys.serverKey),
      413: () => rt.post("/v1/postbacks/webhooks/none/test", BIG_BODY, keys.serverKey),
      422: () => rt.post("/v1/postbacks/webhooks/none/test", { platform: "web" }, keys.serverKey),
    },
    "put-postback-settings": {
      400: () => rt.fetch("/v1/postbacks/settings", { method: "PUT", body: "{" }, keys.serverKey),
      401: () => put("/v1/postbacks/settings", {}, keys.sdkKey),
      413: () =>
        rt.fetch("/v1/postbacks/settings", { method: "PUT", body: BIG_BODY }, keys.serverKey),
      422: () => put("/v1/postbacks/settings", { share_device_data_without_consent: "yes" }),
    },
    "postback-log": {
      401: () => rt.get("/v1/postbacks/log", keys.sdkKey),
      404: () => rt.get("/v1/postbacks/log?app_id=com.example.other", keys.serverKey),
      422: () => rt.get("/v1/postbacks/log?limit=0", keys.serverKey),
    },
    "get-skadnetwork-schema": { 401: () => rt.get("/v1/skadnetwork/schema", keys.sdkKey) },
    "put-skadnetwork-schema": {
      400: () => rt.fetch("/v1/skadnetwork/schema", { method: "PUT", body: "{" }, keys.serverKey),
      401: () => put("/v1/skadnetwork/schema", { windows: [] }, keys.sdkKey),
      413: () =>
        rt.fetch("/v1/skadnetwork/schema", { method: "PUT", body: BIG_BODY }, keys.serverKey),
      422: () => put("/v1/skadnetwork/schema", { windows: [] }),
    },
    "get-skadnetwork-networks": { 401: () => rt.get("/v1/skadnetwork/networks", keys.sdkKey) },
    "put-skadnetwork-networks": {
      400: () => rt.fetch("/v1/skadnetwork/networks", { method: "PUT", body: "{" }, keys.serverKey),
      401: () => put("/v1/skadnetwork/networks", { networks: {} }, keys.sdkKey),
      413: () =>
        rt.fetch("/v1/skadnetwork/networks", { method: "PUT", body: BIG_BODY }, keys.serverKey),
      422: () => put("/v1/skadnetwork/networks", { networks: { "not an id": "x" } }),
    },
    "report-skadnetwork": {
      401: () => rt.get(`/v1/skadnetwork/report?from=${today()}&to=${today()}`, keys.sdkKey),
      404: () =>
        rt.get(
          `/v1/skadnetwork/report?app_id=com.example.other&from=${today()}&to=${today()}`,
          keys.serverKey,
        ),
      422: () =>
        rt.get(`/v1/skadnetwork/report?from=${today()}&to=${today()}&include=all`, keys.serverKey),
    },
    "list-skadnetwork-postbacks": {
      401: () => rt.get(`/v1/skadnetwork/postbacks?from=${today()}&to=${today()}`, keys.sdkKey),
      404: () =>
        rt.get(
          `/v1/skadnetwork/postbacks?app_id=com.example.other&from=${today()}&to=${today()}`,
          keys.serverKey,
        ),
      422: () => rt.get(`/v1/skadnetwork/postbacks?from=${today()}&to=2000-01-01`, keys.serverKey),
    },
    "unknown-skadnetwork-postbacks": {
      // A key is no session, and so no admin.
      401: () => rt.get(`/v1/skadnetwork/unknown?from=${today()}&to=${today()}`, keys.serverKey),
      422: () => owner.get(`/v1/skadnetwork/unknown?from=${today()}&to=2000-01-01`),
    },
    "put-costs": {
      400: () => rt.post("/v1/costs", "{", keys.serverKey),
      401: () => rt.post("/v1/costs", { rows: [] }, keys.sdkKey),
      413: () => rt.post("/v1/costs", BIG_BODY, keys.serverKey),
      422: () =>
        rt.post(
          "/v1/costs",
          {
            rows: [
              {
                day: "2000-01-01",
                media_source: "x",
                campaign_id: "c",
                amount: 1,
                currency: "USD",
              },
            ],
          },
          keys.serverKey,
        ),
    },
    "list-costs": {
      401: () => rt.get(`/v1/costs?from=${today()}&to=${today()}`, keys.sdkKey),
      404: () =>
        rt.get(`/v1/costs?app_id=com.example.other&from=${today()}&to=${today()}`, keys.serverKey),
      422: () => rt.get(`/v1/costs?from=${today()}&to=2000-01-01`, keys.serverKey),
    },
    openapi: {},
  };

  it.each(ROUTES.map((route) => [route.id, route] as const))(
    "%s answers each error its contract documents with the error schema",
    async (id) => {
      // A 503 needs a runtime whose disk budget is spent: export-disk.test.ts answers it.
      const documented = Object.keys(CONTRACTS[id].errors).filter(
        (status) => status !== "500" && status !== "503",
      );
      expect(Object.keys(ERRORS[id]).sort()).toEqual(documented.sort());
      for (const [status, call] of Object.entries(ERRORS[id])) {
        const response = await call();
        expect(response.status, `${id} ${status}`).toBe(Number(status));
        expect(mediaTypeOf(response)).toBe(JSON_MEDIA_TYPE);
        errorBodySchema.parse(await response.json());
      }
    },
  );

  it("lets an SDK key, public in every copy of the app, reach the SDK's own routes and no other", () => {
    const reached = ROUTES.filter(
      (route) =>
        route.scope !== null && (KEY_KINDS.sdk.scopes as readonly Scope[]).includes(route.scope),
    ).map((route) => `${route.method} ${route.path}`);
    expect(reached.sort()).toEqual(
      [
        "GET /v1/config",
        "POST /v1/installs",
        "POST /v1/events",
        "POST /v1/sessions",
        "DELETE /v1/installs/{service_id}",
        "POST /v1/installs/{service_id}/consent",
        "GET /v1/installs/{service_id}/attribution",
      ].sort(),
    );
  });

  /** The kinds of key that do not hold a scope. */
  const lacking = (scope: Scope) =>
    (["sdk", "server"] as const).filter(
      (kind) => !(KEY_KINDS[kind].scopes as readonly Scope[]).includes(scope),
    );

  it.each(
    ROUTES.flatMap((route) =>
      route.scope === null ? [] : [[route.id, route.scope, route] as const],
    ),
  )("%s refuses a key of its own app that lacks its scope (%s)", async (id, scope, route) => {
    const path = route.path.replaceAll(/\{[^}]+\}/g, "x");
    const keyOf = { sdk: keys.sdkKey, server: keys.serverKey };
    expect(lacking(scope).length).toBeGreaterThan(0);
    for (const kind of lacking(scope)) {
      // A route that takes no body (a GET, a DELETE, a reset) is sent none: the gateway refuses one.
      const withBody = CONTRACTS[id].request?.body !== undefined;
      const response = await rt.fetch(
        `${path}?app_id=${APP}`,
        { method: route.method, ...(withBody && { body: "{}" }) },
        keyOf[kind],
      );
      expect(response.status, `${id} with the ${kind} key`).toBe(401);
      errorBodySchema.parse(await response.json());
    }
  });
});

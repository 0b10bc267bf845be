/**
 * Object.prototype's names (`__proto__`, `constructor`, `toString`, …) where requests become
 * objects: query parameters, header names, path parameters and the keys of every body map, on
 * every route of both listeners (fast-check). Never a 5xx, and every refusal in the spec's
 * error shape. Typed over the route tables, so a new route needs its valid request here.
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorBodySchema } from "../../src/http/contracts/index.ts";
import { linkNotFound } from "../../src/http/handlers/link-host.ts";
import type { LinkHostRouteId, RouteId } from "../../src/http/routes.ts";
import { SKAN_4_FINE } from "../../src/skadnetwork/apple-samples.test-support.ts";
import { type DashboardSession, signIn } from "../support/dashboard-session.ts";
import { installRequest } from "../support/installs.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

/** Every own property of Object.prototype, and the two names that reach it. */
const PROTOTYPE_NAMES = [
  ...Object.getOwnPropertyNames(Object.prototype),
  "prototype",
  "__proto__",
] as const;

const name = fc.constantFrom(...PROTOTYPE_NAMES);
const value = fc.oneof(fc.constantFrom("1", "", "x", "[object Object]"), name);

interface Request {
  readonly method: string;
  /** The path with `{name}` where a path parameter goes. */
  readonly path: string;
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** `session`: a signed-in person's cookie and CSRF token, as the dashboard sends them. */
  readonly key: "sdk" | "server" | "session" | "none";
}

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

/**
 * A JSON body's text with one hostile key added to every map at every level. Written by hand:
 * an object cannot hold a `__proto__` key that JSON.stringify would write.
 */
const withNames = (body: unknown, names: readonly string[], values: readonly string[]) => {
  let turn = 0;
  const write = (node: unknown): string => {
    if (Array.isArray(node)) return `[${node.map(write).join(",")}]`;
    if (typeof node !== "object" || node === null) return JSON.stringify(node);
    turn += 1;
    const key = names[turn % names.length] ?? "__proto__";
    const added = values[turn % values.length] ?? "1";
    const members = Object.entries(node).map(([k, v]) => `${JSON.stringify(k)}:${write(v)}`);
    return `{${[...members, `${JSON.stringify(key)}:${JSON.stringify(added)}`].join(",")}}`;
  };
  return write(body);
};

describe("Object.prototype's names in requests", () => {
  let rt: TestRuntime;
  let keys: { sdkKey: string; serverKey: string };
  const serviceId = randomUUID();
  let deeplinkId = "";
  let owner: DashboardSession;
  let keyId = "";
  const APP = "com.example.prototype";

  const API: { readonly [K in RouteId]: () => Request } = {
    config: () => ({ method: "GET", path: "/v1/config", key: "sdk" }),
    installs: () => ({
      method: "POST",
      path: "/v1/installs",
      key: "sdk",
      body: installRequest(randomUUID(), { customer_user_id: "user-1" }),
    }),
    events: () => ({
      method: "POST",
      path: "/v1/events",
      key: "sdk",
      body: {
        events: [
          {
            event_id: randomUUID(),
            service_id: serviceId,
            event_type: "PURCHASE",
            event_time: minutesAgo(5),
            parameters: { revenue: 1.5, currency: "EUR", extra: { nested: "yes" } },
          },
        ],
      },
    }),
    "app-sessions": () => ({
      method: "POST",
      path: "/v1/sessions",
      key: "sdk",
      body: {
        sessions: [{ session_id: randomUUID(), service_id: serviceId, started_at: minutesAgo(5) }],
      },
    }),
    "s2s-events": () => ({
      method: "POST",
      path: "/v1/s2s/events",
      key: "server",
      body: {
        events: [
          {
            event_id: randomUUID(),
            customer_user_id: "user-1",
            event_type: "SUBSCRIBE",
            event_time: minutesAgo(5),
            parameters: { revenue: "9.99", currency: "USD" },
          },
        ],
      },
    }),
    consent: () => ({
      method: "POST",
      path: "/v1/installs/{service_id}/consent",
      params: { service_id: serviceId },
      key: "sdk",
      body: {
        sent_at: new Date().toISOString(),
        consent: { gdpr_applies: true, ad_user_data: true, ad_personalization: false },
      },
    }),
    "delete-install": () => ({
      method: "DELETE",
      path: "/v1/installs/{service_id}",
      params: { service_id: randomUUID() },
      key: "sdk",
    }),
    "request-deletion": () => ({
      method: "POST",
      path: "/v1/deletions",
      key: "server",
      body: { service_id: randomUUID() },
    }),
    "deletion-status": () => ({
      method: "GET",
      path: "/v1/deletions/{request_id}",
      params: { request_id: randomUUID() },
      key: "server",
    }),
    export: () => ({
      method: "GET",
      path: "/api/v1/export",
      query: { timestamp: "0", limit: "5" },
      key: "server",
    }),
    attribution: () => ({
      method: "GET",
      path: "/v1/installs/{service_id}/attribution",
      params: { service_id: serviceId },
      key: "sdk",
    }),
    touches: () => ({
      method: "POST",
      path: "/v1/touches",
      key: "server",
      body: {
        touches: [
          {
            touch_type: "click",
            touch_time: minutesAgo(5),
            media_source: "net",
            click_id: randomUUID(),
            params: { sub1: "a" },
          },
        ],
      },
    }),
    "create-link": () => ({
      method: "POST",
      path: "/v1/links",
      key: "server",
      body: { media_source: "net", deep_link_path: "/a", params: { promo: "X" } },
    }),
    "list-links": () => ({
      method: "GET",
      path: "/v1/links",
      query: { limit: "2" },
      key: "server",
    }),
    "get-link": () => ({
      method: "GET",
      path: "/v1/links/{deeplink_id}",
      params: { deeplink_id: deeplinkId },
      key: "server",
    }),
    "update-link": () => ({
      method: "PATCH",
      path: "/v1/links/{deeplink_id}",
      params: { deeplink_id: deeplinkId },
      key: "server",
      body: { disabled: false, params: { promo: "Y" } },
    }),
    "sign-in": () => ({
      method: "POST",
      path: "/v1/session",
      key: "none",
      body: { email: owner.email, password: "not the password" },
    }),
    session: () => ({ method: "GET", path: "/v1/session", key: "session" }),
    // Signing out ends the session the other requests use: a fresh one is made for it.
    "sign-out": () => ({ method: "DELETE", path: "/v1/session", key: "none" }),
    "list-apps": () => ({ method: "GET", path: "/v1/apps", key: "session" }),
    "create-app": () => ({
      method: "POST",
      path: "/v1/apps",
      key: "session",
      body: { app_id: `com.example.p${randomUUID().slice(0, 8)}`, name: "P", platform: "ios" },
    }),
    "get-app": () => ({
      method: "GET",
      path: "/v1/apps/{app_id}",
      params: { app_id: APP },
      key: "session",
    }),
    "update-app": () => ({
      method: "PATCH",
      path: "/v1/apps/{app_id}",
      params: { app_id: APP },
      key: "session",
      body: { attribution: { probabilistic: { android: true } }, links: { hosts: [] } },
    }),
    "list-keys": () => ({
      method: "GET",
      path: "/v1/apps/{app_id}/keys",
      params: { app_id: APP },
      key: "session",
    }),
    "create-key": () => ({
      method: "POST",
      path: "/v1/apps/{app_id}/keys",
      params: { app_id: APP },
      key: "session",
      body: { kind: "sdk" },
    }),
    "revoke-key": () => ({
      method: "DELETE",
      path: "/v1/apps/{app_id}/keys/{key_id}",
      params: { app_id: APP, key_id: keyId },
      key: "session",
    }),
    "list-users": () => ({ method: "GET", path: "/v1/users", key: "session" }),
    "create-user": () => ({
      method: "POST",
      path: "/v1/users",
      key: "session",
      body: { email: `p${randomUUID().slice(0, 8)}@example.com`, role: "viewer", app_ids: [APP] },
    }),
    // Nobody: the owner's session, which the other requests use, must not end.
    "reset-user-password": () => ({
      method: "POST",
      path: "/v1/users/{email}/password",
      params: { email: "nobody@example.com" },
      key: "session",
    }),
    "remove-user": () => ({
      method: "DELETE",
      path: "/v1/users/{email}",
      params: { email: "nobody@example.com" },
      key: "session",
    }),
    "grant-user-app": () => ({
      method: "PUT",
      path: "/v1/users/{email}/apps/{app_id}",
      params: { email: "nobody@example.com", app_id: APP },
      key: "session",
    }),
    "revoke-user-app": () => ({
      method: "DELETE",
      path: "/v1/users/{email}/apps/{app_id}",
      params: { email: "nobody@example.com", app_id: APP },
      key: "session",
    }),
    "report-overview": () => ({
      method: "GET",
      path: "/v1/reports/overview",
      query: { from: "2026-01-01", to: "2026-01-31" },
      key: "server",
    }),
    "report-cohorts": () => ({
      method: "GET",
      path: "/v1/reports/cohorts",
      query: { from: "2026-01-01", to: "2026-01-31", campaign: "constructor" },
      key: "server",
    }),
    "report-link-clicks": () => ({ method: "GET", path: "/v1/reports/link-clicks", key: "server" }),
    "report-latest-events": () => ({
      method: "GET",
      path: "/v1/reports/latest-events",
      query: { limit: "3" },
      key: "session",
    }),
    "list-partners": () => ({ method: "GET", path: "/v1/partners", key: "server" }),
    "list-postbacks": () => ({ method: "GET", path: "/v1/postbacks", key: "session" }),
    // An address, not a name: saving resolves the host, and this machine resolves none.
    "put-partner-postback": () => ({
      method: "PUT",
      path: "/v1/postbacks/partners/{config_id}",
      params: { config_id: "net" },
      key: "server",
      body: {
        partner: "generic",
        media_sources: ["net"],
        values: { endpoint: "https://93.184.215.14/postbacks" },
        events: { service_purchase: { name: "purchase", revenue: true } },
      },
    }),
    "delete-partner-postback": () => ({
      method: "DELETE",
      path: "/v1/postbacks/partners/{config_id}",
      params: { config_id: "none" },
      key: "server",
    }),
    "test-partner-postback": () => ({
      method: "POST",
      path: "/v1/postbacks/partners/{config_id}/test",
      params: { config_id: "none" },
      key: "server",
      body: { kind: "event", event_name: "service_purchase" },
    }),
    "put-webhook": () => ({
      method: "PUT",
      path: "/v1/postbacks/webhooks/{config_id}",
      params: { config_id: "backend" },
      key: "session",
      body: { url: "https://93.184.215.14/hooks", enabled: true },
    }),
    "delete-webhook": () => ({
      method: "DELETE",
      path: "/v1/postbacks/webhooks/{config_id}",
      params: { config_id: "none" },
      key: "server",
    }),
    "test-webhook": () => ({
      method: "POST",
      path: "/v1/postbacks/webhooks/{config_id}/test",
      params: { config_id: "none" },
      key: "server",
      body: { kind: "install", platform: "ios" },
    }),
    "put-postback-settings": () => ({
      method: "PUT",
      path: "/v1/postbacks/settings",
      key: "server",
      body: { share_device_data_without_consent: false },
    }),
    "postback-log": () => ({
      method: "GET",
      path: "/v1/postbacks/log",
      query: { limit: "5" },
      key: "server",
    }),
    "get-skadnetwork-schema": () => ({
      method: "GET",
      path: "/v1/skadnetwork/schema",
      key: "server",
    }),
    "put-skadnetwork-schema": () => ({
      method: "PUT",
      path: "/v1/skadnetwork/schema",
      key: "server",
      body: {
        windows: [
          {
            rules: [
              { event: "service_purchase", fine: 20, coarse: "high", revenue_usd: { min: 1 } },
            ],
          },
          { rules: [] },
          { rules: [] },
        ],
      },
    }),
    "get-skadnetwork-networks": () => ({
      method: "GET",
      path: "/v1/skadnetwork/networks",
      key: "session",
    }),
    "put-skadnetwork-networks": () => ({
      method: "PUT",
      path: "/v1/skadnetwork/networks",
      key: "server",
      body: { networks: { "abcd1234ef.skadnetwork": "examplenet" } },
    }),
    "report-skadnetwork": () => ({
      method: "GET",
      path: "/v1/skadnetwork/report",
      query: { from: "2026-01-01", to: "2026-01-31", include: "development" },
      key: "session",
    }),
    "unknown-skadnetwork-postbacks": () => ({
      method: "GET",
      path: "/v1/skadnetwork/unknown",
      query: { from: "2026-01-01", to: "2026-01-31" },
      key: "session",
    }),
    "list-skadnetwork-postbacks": () => ({
      method: "GET",
      path: "/v1/skadnetwork/postbacks",
      query: { from: "2026-01-01", to: "2026-01-31" },
      key: "server",
    }),
    "put-costs": () => ({
      method: "POST",
      path: "/v1/costs",
      key: "server",
      body: {
        rows: [
          {
            day: new Date().toISOString().slice(0, 10),
            media_source: "net",
            campaign_id: "c1",
            country: "DE",
            amount: 12.5,
            currency: "EUR",
            impressions: 1000,
          },
        ],
      },
    }),
    "list-costs": () => ({
      method: "GET",
      path: "/v1/costs",
      query: { from: "2026-01-01", to: "2026-01-31" },
      key: "session",
    }),
    openapi: () => ({ method: "GET", path: "/v1/openapi.json", key: "none" }),
  };

  const LINK_HOST: { readonly [K in LinkHostRouteId]: () => Request } = {
    click: () => ({
      method: "GET",
      path: "/{deeplink_id}",
      params: { deeplink_id: deeplinkId },
      query: { sub1: "a" },
      key: "none",
    }),
    "apple-app-site-association": () => ({
      method: "GET",
      path: "/.well-known/apple-app-site-association",
      key: "none",
    }),
    assetlinks: () => ({ method: "GET", path: "/.well-known/assetlinks.json", key: "none" }),
    "apple-postback": () => ({
      method: "POST",
      path: "/.well-known/{framework}/report-attribution/",
      params: { framework: "skadnetwork" },
      key: "none",
      body: { ...SKAN_4_FINE, "transaction-id": randomUUID() },
    }),
  };

  /** Where the hostile names go in one request. */
  const placements = fc.record({
    query: fc.array(fc.tuple(name, value), { maxLength: 3 }),
    headers: fc.array(fc.tuple(name, value), { maxLength: 3 }),
    pathParam: fc.option(name, { nil: undefined }),
    bodyNames: fc.array(name, { minLength: 1, maxLength: 4 }),
    bodyValues: fc.array(value, { minLength: 1, maxLength: 4 }),
  });

  const send = async (base: string, request: Request, hostile: Placement) => {
    let path = request.path;
    for (const [param, given] of Object.entries(request.params ?? {})) {
      path = path.replace(`{${param}}`, encodeURIComponent(hostile.pathParam ?? given));
    }
    const query = new URLSearchParams(Object.entries(request.query ?? {}));
    for (const [k, v] of hostile.query) query.append(k, v);
    const headers = new Headers();
    for (const [k, v] of hostile.headers) headers.append(k, v);
    if (request.key === "session") {
      headers.set("cookie", owner.cookie);
      headers.set("x-csrf-token", owner.csrfToken);
    } else if (request.key !== "none") {
      headers.set("authorization", request.key === "sdk" ? keys.sdkKey : keys.serverKey);
    }
    headers.set("user-agent", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36");
    let body: string | undefined;
    if (request.body !== undefined) {
      headers.set("content-type", "application/json");
      body = withNames(request.body, hostile.bodyNames, hostile.bodyValues);
    }
    const search = query.size > 0 ? `?${query}` : "";
    return fetch(`${base}${path}${search}`, {
      method: request.method,
      headers,
      body,
      redirect: "manual",
    });
  };

  type Placement = typeof placements extends fc.Arbitrary<infer T> ? T : never;

  const holds = async (base: string, build: () => Request) => {
    await fc.assert(
      fc.asyncProperty(placements, async (hostile) => {
        const request = build();
        const response = await send(base, request, hostile);
        const text = await response.text();
        const context = `${request.method} ${request.path} ${JSON.stringify(hostile)}: ${response.status} ${text.slice(0, 300)}`;
        expect(response.status, context).toBeLessThan(500);
        if (response.status >= 400 && response.headers.get("content-type")?.includes("html")) {
          // The link host's page for a link that does not exist, for the person who tapped it.
          expect([response.status, text], context).toEqual([404, linkNotFound().body]);
        } else if (response.status >= 400) {
          expect(errorBodySchema.safeParse(JSON.parse(text)).success, context).toBe(true);
        }
      }),
      { numRuns: 40 },
    );
  };

  beforeAll(async () => {
    rt = await startTestRuntime();
    keys = await rt.createApp(APP, "android");
    if (!rt.owner) throw new Error("The first start made no owner account");
    owner = await signIn(rt.url, rt.owner.email, rt.owner.password);
    const key = await owner.send("POST", `/v1/apps/${APP}/keys`, { kind: "server" });
    keyId = ((await key.json()) as { key: { key_id: string } }).key.key_id;
    const installed = await rt.post(
      "/v1/installs",
      installRequest(serviceId, { customer_user_id: "user-1" }),
      keys.sdkKey,
    );
    expect(installed.status).toBe(202);
    const link = await rt.post(
      "/v1/links",
      { media_source: "net", params: { promo: "X" } },
      keys.serverKey,
    );
    deeplinkId = ((await link.json()) as { deeplink_id: string }).deeplink_id;
  });

  afterAll(async () => {
    await rt.dispose();
  });

  it.each(Object.entries(API))("API %s: never a 5xx", async (_id, build) => {
    await holds(rt.url, build);
  });

  it.each(Object.entries(LINK_HOST))("link host %s: never a 5xx", async (_id, build) => {
    await holds(rt.linkUrl, build);
  });

  it("keeps such names as a link's parameters, and refuses __proto__, which no object keeps", async () => {
    const create = (params: string) =>
      rt.fetch(
        "/v1/links",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: `{"media_source":"net","params":${params}}`,
        },
        keys.serverKey,
      );
    const created = await create('{"constructor":"v","toString":"w","valueOf":"x"}');
    expect(created.status).toBe(201);
    const link = (await created.json()) as { deeplink_id: string; params: Record<string, string> };
    expect(Object.entries(link.params)).toEqual([
      ["constructor", "v"],
      ["toString", "w"],
      ["valueOf", "x"],
    ]);
    const read = await rt.get(`/v1/links/${link.deeplink_id}`, keys.serverKey);
    expect(((await read.json()) as typeof link).params).toEqual(link.params);

    const refused = await create('{"__proto__":"v"}');
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      error: "Unprocessable Entity",
      detail: expect.stringContaining("__proto__"),
    });

    const tap = await fetch(`${rt.linkUrl}/${link.deeplink_id}?__proto__=1&toString=2`, {
      redirect: "manual",
      headers: { "user-agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8)" },
    });
    expect(tap.status).toBe(302);
  });
});

/**
 * Each handler's middy chain called in process with API Gateway-shaped events and ports in
 * memory: what it answers on success and on each error, without a gateway or a runtime.
 */
import { Readable } from "node:stream";
import type { APIGatewayRequestAuthorizerEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { everyInstallStored, installRequest } from "../../../test/support/installs.ts";
import { staticKeyring } from "../../crypto/keyring.ts";
import { generateKey } from "../../domain/keys.ts";
import { memoryCatalog } from "../../export/memory-catalog.test-support.ts";
import { parseEcbRates } from "../../fx/ecb-rates.ts";
import type { LakeRecord } from "../../lake/lake-tables.ts";
import type { App, AppStore, KeyStore, StoredKey } from "../../ports/apps.ts";
import type { DeletionRequest, DeletionStore } from "../../ports/deletions.ts";
import type { Install } from "../../ports/installs.ts";
import type { LakeQueryEngine } from "../../ports/lake.ts";
import type { SessionStore, UserStore } from "../../ports/users.ts";
import { apiEvent, CONTEXT, principal } from "../api-event.test-support.ts";
import type { HttpResponse } from "../middleware.ts";
import { usageKeyValue, usageSlotOf } from "../usage-keys.ts";
import { createAuthorizerHandler, UNAUTHORIZED } from "./authorizer.ts";
import { createConfigHandler } from "./config.ts";
import { createDeleteInstallHandler, createDeletionStatusHandler } from "./deletions.ts";
import { createExportHandler } from "./export.ts";
import { createIngestHandlers } from "./ingest.ts";
import { createOpenApiHandler } from "./openapi.ts";

/** An SDK event of an install, sent a minute ago. */
const sdkEventOf = (serviceId: string) => ({
  service_id: serviceId,
  event_type: "LEVEL_COMPLETE",
  event_time: new Date(Date.now() - 60_000).toISOString(),
});

const APP: App = {
  appId: "com.example.game",
  name: "Game",
  platform: "android",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
};

const appsOf = (...apps: App[]): AppStore => ({
  create: async () => undefined,
  get: async (appId) => apps.find((app) => app.appId === appId),
  list: async () => apps,
  // Changes are let go, as the apps are the test's.
  update: async (appId, change) => {
    const app = apps.find((found) => found.appId === appId);
    if (!app) throw new Error(`No app ${appId}`);
    return change(app);
  },
});

const json = (response: HttpResponse) => JSON.parse(String(response.body));

const memoryDeletions = (): DeletionStore & { requests: DeletionRequest[] } => {
  const requests: DeletionRequest[] = [];
  return {
    requests,
    create: async (request) => {
      if (requests.some((r) => r.requestId === request.requestId)) return false;
      requests.push(request);
      return true;
    },
    markTombstone: async () => undefined,
    clearTombstone: async () => undefined,
    tombstones: async () => ({ serviceIds: [], version: 0 }),
    get: async (requestId) => requests.find((r) => r.requestId === requestId),
    listByApp: async (appId) => requests.filter((r) => r.appId === appId),
    listByInstall: async (appId, serviceId) =>
      requests.filter((r) => r.appId === appId && r.serviceId === serviceId),
    listOpen: async () => requests.filter((r) => r.status !== "completed"),
    setStatus: async () => undefined,
    savedPass: async () => undefined,
    savePass: async () => undefined,
    clearPass: async () => undefined,
  };
};

describe("GET /v1/config", () => {
  const handler = createConfigHandler({
    apps: appsOf(APP),
    fx: parseEcbRates("Date,USD,JPY,\n2026-11-01,1.1,165,\n"),
  });

  it("answers the key's app's remote configuration", async () => {
    const response = await handler(
      apiEvent({ authorizer: principal(APP.appId, ["config"]) }),
      CONTEXT,
    );
    expect(response.statusCode).toBe(200);
    expect(json(response)).toMatchObject({
      enabled: true,
      encryption: { enabled: false },
      skadnetwork: null,
    });
  });

  it("carries the app's conversion value schema, with USD rates for its revenue rules", async () => {
    const windows = [
      {
        rules: [
          {
            event: "service_purchase",
            min_count: 1,
            fine: 5,
            coarse: "high" as const,
            lock: false,
          },
        ],
      },
      { rules: [] },
      { rules: [] },
    ];
    const withSchema = {
      ...APP,
      skadnetwork: { schema: { version: 2, updated_at: "2026-11-29T10:00:00.000Z", windows } },
    };
    const response = await createConfigHandler({
      apps: appsOf(withSchema),
      fx: parseEcbRates("Date,USD,JPY,IDR,\n2026-11-01,1.1,165,18432.77,\n"),
    })(apiEvent({ authorizer: principal(APP.appId, ["config"]) }), CONTEXT);
    const { skadnetwork } = json(response) as {
      skadnetwork: { version: number; windows: unknown; usd_rates: Record<string, number> };
    };
    expect(skadnetwork.version).toBe(2);
    expect(skadnetwork.windows).toEqual(windows);
    // EUR is 1.1 USD and JPY 165 to the euro, on the table's newest day.
    expect(skadnetwork.usd_rates).toMatchObject({ USD: 1, EUR: 1.1 });
    expect(skadnetwork.usd_rates.JPY).toBeCloseTo(1.1 / 165, 6);
    // A unit of a small currency keeps its precision, not just six decimals of a dollar.
    expect((skadnetwork.usd_rates.IDR ?? 0) / (1.1 / 18432.77)).toBeCloseTo(1, 6);
  });

  it("answers 401 to a key without the scope, and to one whose app is gone", async () => {
    for (const authorizer of [
      principal(APP.appId, ["export"]),
      principal("com.example.gone", ["config"]),
      undefined,
    ]) {
      const response = await handler(apiEvent({ authorizer }), CONTEXT);
      expect(response.statusCode).toBe(401);
      expect(json(response).error).toBe("Unauthorized");
    }
  });
});

describe("the deletion routes", () => {
  it("records a request for the install, then tells its status to the app's server", async () => {
    const deletions = memoryDeletions();
    let told = 0;
    const handlers = {
      deleteInstall: createDeleteInstallHandler({
        deletions,
        installs: everyInstallStored,
        onRequested: () => {
          told += 1;
        },
      }),
      deletionStatus: createDeletionStatusHandler({ deletions }),
    };
    const requested = await handlers.deleteInstall(
      apiEvent({
        authorizer: principal(APP.appId, ["ingest"]),
        params: { service_id: "device-1" },
      }),
      CONTEXT,
    );
    expect(requested.statusCode).toBe(202);
    const answer = json(requested);
    expect(answer).toMatchObject({ service_id: "device-1", status: "pending" });
    expect(told).toBe(1);

    const status = await handlers.deletionStatus(
      apiEvent({
        authorizer: principal(APP.appId, ["deletions"]),
        params: { request_id: answer.request_id },
      }),
      CONTEXT,
    );
    expect(status.statusCode).toBe(200);
    expect(json(status)).toEqual(answer);
    // Another app's key knows no such request.
    const stranger = await handlers.deletionStatus(
      apiEvent({
        authorizer: principal("com.example.other", ["deletions"]),
        params: { request_id: answer.request_id },
      }),
      CONTEXT,
    );
    expect(stranger.statusCode).toBe(404);
  });

  it("answers 422 naming the path parameter at fault", async () => {
    const deletions = memoryDeletions();
    const handlers = {
      deleteInstall: createDeleteInstallHandler({ deletions, installs: everyInstallStored }),
      deletionStatus: createDeletionStatusHandler({ deletions }),
    };
    const badInstall = await handlers.deleteInstall(
      apiEvent({ authorizer: principal(APP.appId, ["ingest"]), params: { service_id: "a b" } }),
      CONTEXT,
    );
    expect(badInstall.statusCode).toBe(422);
    expect(json(badInstall).detail).toMatch(/^service_id: /);
    const badRequest = await handlers.deletionStatus(
      apiEvent({ authorizer: principal(APP.appId, ["deletions"]), params: { request_id: "x" } }),
      CONTEXT,
    );
    expect(badRequest.statusCode).toBe(422);
    expect(json(badRequest).detail).toMatch(/^request_id: /);
  });
});

describe("GET /api/v1/export", () => {
  const catalog = memoryCatalog();
  const engine: LakeQueryEngine = {
    materialize: async ({ snapshotId }) => ({ location: snapshotId, rowCount: 0 }),
    async *readPage() {},
  };
  const handler = createExportHandler({
    engine,
    catalog,
    deletions: memoryDeletions(),
    snapshotTtlSeconds: 60,
  });
  const exportOf = (query: Record<string, string>, scopes = ["export" as const]) =>
    handler(apiEvent({ authorizer: principal(APP.appId, scopes), query }), CONTEXT);

  it("streams a download with its file name, and json inline without one", async () => {
    const csv = await exportOf({ timestamp: "1790000000", format: "csv", limit: "10" });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers["content-type"]).toMatch(/^text\/csv/);
    expect(csv.headers["cache-control"]).toBe("no-store");
    expect(csv.headers["content-disposition"]).toMatch(
      /^attachment; filename="com\.example\.game_/,
    );
    const page = await exportOf({ timestamp: "1790000000" });
    expect(page.headers["content-disposition"]).toBeUndefined();
    const body =
      page.body instanceof Readable
        ? Buffer.concat(await page.body.toArray()).toString()
        : String(page.body);
    expect(JSON.parse(body)).toEqual({ data: [], total_count: 0 });
  });

  it("answers 422 naming each bad parameter, and 401 to a key without the export scope", async () => {
    const bad = await exportOf({ format: "pdf", limit: "0" });
    expect(bad.statusCode).toBe(422);
    const { detail } = json(bad);
    expect(detail).toContain("timestamp: is required");
    expect(detail).toContain("format: must be one of json");
    expect(detail).toContain("limit: must be an integer from 1 to 10000");
    const sdk = await handler(
      apiEvent({ authorizer: principal(APP.appId, ["ingest"]), query: { timestamp: "0" } }),
      CONTEXT,
    );
    expect(sdk.statusCode).toBe(401);
  });
});

describe("GET /v1/openapi.json", () => {
  it("answers the document, cacheable, without a key", async () => {
    const response = await createOpenApiHandler()(apiEvent(), CONTEXT);
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toBe("public, max-age=300");
    expect(json(response)).toMatchObject({ openapi: "3.1.0" });
  });
});

describe("the authorizer", () => {
  const key = generateKey("server");
  const { keyId } = key;
  const stored: StoredKey = {
    keyId,
    appId: APP.appId,
    kind: key.kind,
    scopes: key.scopes,
    hash: key.hash,
    createdAt: "2026-11-01T00:00:00.000Z",
  };
  const keys: KeyStore = {
    put: async () => undefined,
    get: async (id) => (id === keyId ? stored : undefined),
    listByApp: async () => [stored],
    revoke: async () => undefined,
  };
  // Keys only: no one is signed in.
  const sessions: SessionStore = {
    put: async () => undefined,
    get: async () => undefined,
    remove: async () => undefined,
    putPending: async () => undefined,
    getPending: async () => undefined,
    removePending: async () => undefined,
    reap: async () => 0,
  };
  const users = { get: async () => undefined } as unknown as UserStore;
  const authorizer = createAuthorizerHandler({ apps: appsOf(APP), keys, users, sessions });
  const methodArn = "arn:aws:execute-api:eu-west-1:123456789012:api/prod/GET/api/v1/export";

  it("allows a valid key its scopes' routes and passes its app on", async () => {
    const result = await authorizer(
      { type: "TOKEN", authorizationToken: key.plaintext, methodArn },
      CONTEXT,
    );
    expect(result.principalId).toBe(keyId);
    expect(result.context).toMatchObject({ appId: APP.appId, scopes: key.scopes.join(" ") });
    expect(JSON.stringify(result.policyDocument)).toContain("/GET/api/v1/export");
    // Its app's usage-plan key, which the stack made for this API (lib/usage-plans.ts).
    expect(result.usageIdentifierKey).toBe(usageKeyValue("api", usageSlotOf(`app:${APP.appId}`)));
  });

  it("refuses an unknown key with API Gateway's Unauthorized", async () => {
    await expect(
      authorizer({ type: "TOKEN", authorizationToken: "srv_nope", methodArn }, CONTEXT),
    ).rejects.toThrow(UNAUTHORIZED);
  });

  /** A REQUEST event, as API Gateway sends one for a route the dashboard calls too. */
  const requestEvent = (headers: Record<string, string>) =>
    ({
      type: "REQUEST",
      methodArn,
      httpMethod: "GET",
      headers,
      pathParameters: null,
      queryStringParameters: null,
    }) as unknown as APIGatewayRequestAuthorizerEvent;

  it("takes a key from a request's Authorization header, in the case the client wrote it", async () => {
    const result = await authorizer(requestEvent({ Authorization: key.plaintext }), CONTEXT);
    expect(result.principalId).toBe(keyId);
    expect(result.context).toMatchObject({ appId: APP.appId });
    // Neither a key nor a session cookie: refused.
    await expect(authorizer(requestEvent({ Accept: "*/*" }), CONTEXT)).rejects.toThrow(
      UNAUTHORIZED,
    );
    await expect(
      authorizer(requestEvent({ Cookie: "attribution_session=unknown" }), CONTEXT),
    ).rejects.toThrow(UNAUTHORIZED);
  });
});

describe("the ingestion routes", () => {
  const installs = new Map<string, Install>();
  const records: LakeRecord[] = [];
  const pending = new Map<string, string | null>();
  const queued: string[] = [];
  const handlers = createIngestHandlers({
    apps: appsOf(APP),
    installs: {
      putIfAbsent: async (install) => {
        const key = `${install.appId}#${install.serviceId}`;
        const kept = installs.get(key);
        if (kept) return { install: kept, created: false };
        installs.set(key, install);
        return { install, created: true };
      },
      get: async (appId, serviceId) => installs.get(`${appId}#${serviceId}`),
      update: async () => undefined,
      delete: async () => undefined,
    },
    customerUsers: {
      put: async (_appId, _user, serviceId, seenAt) => ({ serviceId, seenAt }),
      get: async () => undefined,
      otherInstalls: async () => [],
      deleteInstall: async () => undefined,
    },
    events: { put: async (batch) => void records.push(...batch) },
    countries: { countryOf: () => "DE" },
    fx: parseEcbRates("Date,USD,\n2026-11-01,1.1,\n"),
    keyrings: async () => staticKeyring({}),
    deletions: { listByInstall: async () => [] },
    attribution: {
      store: {
        createPending: async ({ appId, serviceId, facts }) => {
          if (pending.has(`${appId}#${serviceId}`)) return false;
          pending.set(`${appId}#${serviceId}`, facts.ip);
          return true;
        },
      },
      queue: { send: async (jobs) => void queued.push(...jobs.map((job) => job.serviceId)) },
    },
    sightings: { recordSightings: async () => undefined },
  });
  const sdk = principal(APP.appId, ["ingest"]);

  it("records an install, then takes in its events with a verdict each", async () => {
    const install = await handlers.installs(
      apiEvent({ authorizer: sdk, body: JSON.stringify(installRequest("device-1")) }),
      CONTEXT,
    );
    expect(install.statusCode).toBe(202);
    expect(json(install)).toEqual({ service_id: "device-1" });
    // Its attribution is pending, with the caller's address, and its job queued once.
    const again = await handlers.installs(
      apiEvent({ authorizer: sdk, body: JSON.stringify(installRequest("device-1")) }),
      CONTEXT,
    );
    expect(json(again)).toEqual({ service_id: "device-1" });
    expect(pending.get(`${APP.appId}#device-1`)).toBe("81.2.69.142");
    expect(queued).toEqual(["device-1"]);
    const events = await handlers.events(
      apiEvent({
        authorizer: sdk,
        body: JSON.stringify({
          events: [
            { ...sdkEventOf("device-1"), event_id: "e1" },
            { ...sdkEventOf("device-2"), event_id: "e2" },
          ],
        }),
      }),
      CONTEXT,
    );
    expect(events.statusCode).toBe(202);
    expect(json(events)).toMatchObject({
      accepted: 1,
      rejected: [{ index: 1, error: "Conflict" }],
    });
    expect(records.map((record) => record.event_id)).toEqual(["e1"]);
  });

  it("answers 400 to a body that is not JSON and 413 to one over 1 MiB, storing nothing", async () => {
    const before = records.length;
    const notJson = await handlers.events(apiEvent({ authorizer: sdk, body: "{" }), CONTEXT);
    expect(notJson.statusCode).toBe(400);
    const tooLarge = await handlers.events(
      apiEvent({ authorizer: sdk, body: `{"events":[${" ".repeat(1_048_577)}]}` }),
      CONTEXT,
    );
    expect(tooLarge.statusCode).toBe(413);
    expect(records.length).toBe(before);
  });

  it("keeps server-to-server events to server keys", async () => {
    const refused = await handlers.s2sEvents(
      apiEvent({ authorizer: sdk, body: JSON.stringify({ events: [] }) }),
      CONTEXT,
    );
    expect(refused.statusCode).toBe(401);
  });
});

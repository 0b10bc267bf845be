/**
 * The Lambda entry points, as lambdas/entries.ts writes them from the manifest, load with the
 * environment the stack gives them, and refuse to load, naming the variable, without it; a
 * route group's entry routes each request to its route's handler.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseHandlerRef } from "../src/functions/handler-ref.ts";
import { FUNCTIONS, type FunctionId, functionOf } from "../src/functions/manifest.ts";
import { sampleEnv } from "../src/functions/sample-env.ts";
import { apiEvent, CONTEXT, principal } from "../src/http/api-event.test-support.ts";
import { GATEWAY_ERRORS } from "../src/http/gateway-errors.ts";
import type { HttpResponse } from "../src/http/middleware.ts";
import { writeEntry } from "./entries.ts";

const loader = (id: FunctionId) => {
  const url = pathToFileURL(writeEntry(id)).href;
  return () => import(url);
};

/** Every deployable function of the manifest, loaded as the stack deploys it. */
const ENTRIES = Object.fromEntries(
  FUNCTIONS.map((row) => [
    row.id,
    { load: loader(row.id as FunctionId), env: sampleEnv(row.uses) },
  ]),
);

// The ingestion functions share one environment, with the files shipped in their assets.
const INGEST_ENV = sampleEnv(functionOf("events").uses);
const EXPORT = { load: loader("export"), env: sampleEnv(functionOf("export").uses) };
const PURGE = { load: loader("purge"), env: sampleEnv(functionOf("purge").uses) };
const INSTALLS = loader("installs");
const EVENTS = loader("events");

const stubEnv = (env: Record<string, string>) => {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
};

beforeEach(() => {
  // Each import runs the module's start-up again.
  vi.resetModules();
  vi.stubEnv("AWS_REGION", "eu-west-1");
  // The Lambda runtime's global, which response streaming wraps the handler with.
  vi.stubGlobal("awslambda", {
    streamifyResponse: <T>(handler: T) => handler,
    HttpResponseStream: { from: <T>(stream: T) => stream },
  });
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

describe.each(Object.entries(ENTRIES))("the %s function's entry", (_, entry) => {
  it("exports a handler when its environment is valid", async () => {
    stubEnv(entry.env);
    const { handler } = await entry.load();
    expect(typeof handler).toBe("function");
  });

  it.each(Object.keys(entry.env))("refuses to load without %s, naming it", async (missing) => {
    stubEnv(entry.env);
    vi.stubEnv(missing, undefined);
    await expect(entry.load()).rejects.toThrow(new RegExp(`Invalid environment: .*${missing}`));
  });
});

describe("the ingestion entries (installs, events, s2s-events)", () => {
  it("refuses a relative data file path, naming it", async () => {
    stubEnv({ ...INGEST_ENV, GEOIP_DB_FILE: "geo-whois-asn-country.mmdb" });
    await expect(INSTALLS()).rejects.toThrow(/GEOIP_DB_FILE: must be an absolute/);
  });

  it("refuses to load when a data file is not where the environment says", async () => {
    stubEnv({ ...INGEST_ENV, FX_RATES_FILE: "/nonexistent/ecb-eurofxref-hist.csv" });
    await expect(EVENTS()).rejects.toThrow(/ENOENT.*ecb-eurofxref-hist\.csv/);
  });
});

describe("the export function's entry", () => {
  it("refuses an out-of-range SNAPSHOT_TTL_SECONDS, naming it", async () => {
    stubEnv({ ...EXPORT.env, SNAPSHOT_TTL_SECONDS: "5" });
    await expect(EXPORT.load()).rejects.toThrow(/SNAPSHOT_TTL_SECONDS/);
  });
});

describe("the purge function's entry", () => {
  it("refuses a MIN_REQUEST_AGE_SECONDS under a minute, naming it", async () => {
    stubEnv({ ...PURGE.env, MIN_REQUEST_AGE_SECONDS: "30" });
    await expect(PURGE.load()).rejects.toThrow(/MIN_REQUEST_AGE_SECONDS/);
  });
});

describe("a route group's entry (postbacks)", () => {
  const group = functionOf("postbacks");
  const POSTBACKS = { load: loader("postbacks"), env: sampleEnv(group.uses) };
  type Handler = (event: APIGatewayProxyEvent, context: typeof CONTEXT) => Promise<HttpResponse>;

  /** A request as API Gateway hands it to the group: its method and its route's resource. */
  const request = (method: string, resource: string, path: string): APIGatewayProxyEvent => ({
    ...apiEvent({ path, authorizer: principal("com.example.app", ["postbacks"]) }),
    httpMethod: method,
    resource,
  });

  it("imports every route's composition and hands them to one wrapper", () => {
    if (group.kind !== "route-group") throw new Error("postbacks is not a route group");
    const source = readFileSync(writeEntry("postbacks"), "utf8");
    expect(source).toContain("lambdaRoutes([");
    for (const route of group.routes) {
      expect(source, route.id).toContain(parseHandlerRef(route.handler).name);
    }
  });

  it("routes each request to its route's handler, by method and resource", async () => {
    stubEnv(POSTBACKS.env);
    const { handler } = (await POSTBACKS.load()) as { handler: Handler };
    // The partner catalog: no store read.
    const catalog = await handler(request("GET", "/v1/partners", "/v1/partners"), CONTEXT);
    expect(catalog.statusCode).toBe(200);
    expect(JSON.parse(String(catalog.body))).toHaveProperty("data");
    // Another route of the group, refusing a configuration id before any store is read.
    const refused = await handler(
      {
        ...request("PUT", "/v1/postbacks/partners/{config_id}", "/v1/postbacks/partners/a%20b"),
        pathParameters: { config_id: "a b" },
      },
      CONTEXT,
    );
    expect(refused.statusCode).toBe(422);
    expect(String(refused.body)).toContain("config_id");
  });

  it("answers a method and resource it does not serve as the gateway's 404", async () => {
    stubEnv(POSTBACKS.env);
    const { handler } = (await POSTBACKS.load()) as { handler: Handler };
    for (const [method, resource] of [
      ["DELETE", "/v1/partners"],
      ["GET", "/v1/postbacks/partners/a"],
      ["GET", "/v1/links"],
    ] as const) {
      const answer = await handler(request(method, resource, resource), CONTEXT);
      expect(answer.statusCode, `${method} ${resource}`).toBe(404);
      expect(JSON.parse(String(answer.body))).toEqual({
        error: "Not Found",
        detail: GATEWAY_ERRORS.noRoute.detail,
      });
    }
  });
});

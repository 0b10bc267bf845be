import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import * as z from "zod";
import pkg from "../../package.json" with { type: "json" };
import { EXPORT_FORMATS, FORMATS } from "../export/formats/index.ts";
import { exportParamsSchema } from "../export/params.ts";
import {
  CONTRACTS,
  ERROR_STATUSES,
  EXPORT_DOWNLOADS,
  EXPORT_MEDIA_TYPES,
  exportQuerySchema,
} from "./contracts/index.ts";
import {
  API_KEY_SCHEME,
  buildOpenApiDocument,
  OPENAPI_FILE,
  serializeOpenApiDocument,
  TAGS,
} from "./openapi.ts";
import { OPENAPI_TYPES_FILE, openApiTypes } from "./openapi-types.ts";
import { ROUTES } from "./routes.ts";

const document = buildOpenApiDocument();

// ---------------------------------------------------------------------------------------
// The parts of OpenAPI 3.1 this document uses, strictly: an unexpected key fails.

const jsonSchema = z.record(z.string(), z.unknown());
const ref = z.strictObject({ $ref: z.string().regex(/^#\/components\/schemas\/[A-Za-z0-9._-]+$/) });
const mediaType = z.strictObject({
  schema: z.union([ref, jsonSchema]),
  example: z.unknown().optional(),
});
const response = z.strictObject({
  description: z.string().min(1),
  headers: z
    .record(
      z.string(),
      z.strictObject({
        schema: jsonSchema,
        required: z.boolean().optional(),
        description: z.string().optional(),
      }),
    )
    .optional(),
  content: z.record(z.string().regex(/^[a-z]+\/[a-z0-9.+-]+$/), mediaType).optional(),
});
const parameter = z.strictObject({
  name: z.string().min(1),
  in: z.enum(["query", "header", "path", "cookie"]),
  description: z.string().min(1),
  required: z.boolean(),
  schema: jsonSchema,
});
const operation = z.strictObject({
  operationId: z.string().min(1),
  summary: z.string().min(1),
  description: z.string().min(1),
  tags: z.array(z.string()).length(1),
  security: z.array(z.record(z.string(), z.array(z.string()))),
  parameters: z.array(parameter).optional(),
  requestBody: z
    .strictObject({
      description: z.string().min(1),
      required: z.literal(true),
      content: z.record(z.string(), mediaType),
    })
    .optional(),
  responses: z.record(z.string().regex(/^[1-5]\d\d$/), response),
});
const openApi31 = z.strictObject({
  openapi: z.literal("3.1.0"),
  info: z.strictObject({
    title: z.string().min(1),
    version: z.string().min(1),
    description: z.string().min(1),
    license: z.strictObject({ name: z.string(), identifier: z.string() }),
  }),
  servers: z
    .array(
      z.strictObject({
        url: z.string().min(1),
        description: z.string().optional(),
        variables: z
          .record(
            z.string(),
            z.strictObject({ default: z.string(), description: z.string().optional() }),
          )
          .optional(),
      }),
    )
    .min(1),
  tags: z.array(z.strictObject({ name: z.string(), description: z.string() })),
  components: z.strictObject({
    schemas: z.record(z.string().regex(/^[A-Za-z0-9._-]+$/), jsonSchema),
    parameters: z.record(z.string(), z.unknown()),
    securitySchemes: z.record(
      z.string(),
      z.strictObject({
        type: z.literal("apiKey"),
        in: z.enum(["header", "cookie"]),
        name: z.string(),
        description: z.string(),
      }),
    ),
  }),
  paths: z.record(
    z.string().startsWith("/"),
    z.partialRecord(z.enum(["get", "put", "post", "delete", "patch"]), operation),
  ),
  webhooks: z.record(z.string(), z.unknown()),
});

type Operation = z.infer<typeof operation>;

/** Every value under `value`, depth first, with its key. */
function* walk(value: unknown, key = ""): Generator<[string, unknown]> {
  yield [key, value];
  if (typeof value !== "object" || value === null) return;
  for (const [k, v] of Object.entries(value)) yield* walk(v, k);
}

const operationOf = (route: (typeof ROUTES)[number]): Operation => {
  const found =
    openApi31.parse(document).paths[route.path]?.[
      route.method.toLowerCase() as "get" | "post" | "delete"
    ];
  if (!found) throw new Error(`no operation for ${route.method} ${route.path}`);
  return found;
};

describe("the OpenAPI document", () => {
  it("is an OpenAPI 3.1 document in the structure it is meant to have", () => {
    expect(() => openApi31.parse(document)).not.toThrow();
    expect(document.info.version).toBe(pkg.version);
  });

  it("has one operation per route, named by the route id, and nothing else", () => {
    const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    for (const route of ROUTES) expect(operationOf(route).operationId).toBe(route.id);
  });

  it("asks every keyed route for the API key with its scope, and nothing of a public one", () => {
    expect(document.components?.securitySchemes?.[API_KEY_SCHEME]).toEqual(
      expect.objectContaining({ type: "apiKey", in: "header", name: "Authorization" }),
    );
    for (const route of ROUTES) {
      const security = operationOf(route).security;
      if (route.scope === null) expect(security, route.id).toEqual([]);
      else if (route.scope === "apps" || route.scope === "users") {
        expect(security, route.id).toEqual([{ Session: [] }]);
      } else expect(security, route.id).toContainEqual({ [API_KEY_SCHEME]: [route.scope] });
    }
  });

  it("tags every operation with a declared tag", () => {
    expect(document.tags?.map((t) => t.name)).toEqual(Object.keys(TAGS));
    const used = ROUTES.map((route) => operationOf(route).tags[0]);
    expect(new Set(used)).toEqual(new Set(Object.keys(TAGS)));
    expect(operationOf(ROUTES.find((r) => r.id === "export") ?? ROUTES[0]).tags).toEqual([
      "Export",
    ]);
  });

  it("declares exactly the path parameters of each path, all required", () => {
    for (const route of ROUTES) {
      const inPath = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (operationOf(route).parameters ?? []).filter((p) => p.in === "path");
      expect(declared.map((p) => p.name)).toEqual(inPath);
      for (const p of declared) expect(p.required).toBe(true);
    }
  });

  it("answers every error with the {error, detail} schema", () => {
    expect(document.components?.schemas?.Error).toEqual({
      type: "object",
      properties: {
        error: expect.objectContaining({ type: "string" }),
        detail: expect.objectContaining({ type: "string" }),
      },
      required: ["error", "detail"],
      additionalProperties: false,
      description: expect.any(String),
    });
    for (const route of ROUTES) {
      const responses = operationOf(route).responses;
      const errors = Object.keys(responses).filter((status) => Number(status) >= 400);
      expect(errors.map(Number), route.id).toEqual(
        Object.keys(CONTRACTS[route.id].errors).map(Number),
      );
      for (const status of errors) {
        expect(Object.keys(responses[status]?.content ?? {}), `${route.id} ${status}`).toEqual([
          "application/json",
        ]);
        expect(responses[status]?.content?.["application/json"]?.schema).toEqual({
          $ref: "#/components/schemas/Error",
        });
      }
    }
  });

  it("documents only the service's error statuses: 500 everywhere, 401 wherever a key is needed", () => {
    for (const route of ROUTES) {
      const statuses = Object.keys(CONTRACTS[route.id].errors).map(Number);
      for (const status of statuses) expect(ERROR_STATUSES).toContain(status);
      expect(statuses, route.id).toContain(500);
      // The session routes are public at the gateway and refuse a missing session themselves.
      expect(statuses.includes(401), route.id).toBe(
        route.scope !== null || route.path === "/v1/session",
      );
    }
  });

  it("has one success answer per route, and a request body only on POST, PUT and PATCH", () => {
    // Changes whose path names all they act on: a person's password reset, an app granted.
    const bodiless = new Set<string>(["reset-user-password", "grant-user-app"]);
    for (const route of ROUTES) {
      const op = operationOf(route);
      const successes = Object.keys(op.responses).filter((s) => Number(s) < 400);
      expect(successes, route.id).toEqual([String(CONTRACTS[route.id].success.status)]);
      expect(op.requestBody !== undefined, route.id).toBe(
        (route.method === "POST" || route.method === "PUT" || route.method === "PATCH") &&
          !bodiless.has(route.id),
      );
    }
  });

  it("resolves every reference, and names unique operations", () => {
    const schemas = document.components?.schemas ?? {};
    for (const [key, value] of walk(document)) {
      if (key !== "$ref") continue;
      const name = String(value).replace("#/components/schemas/", "");
      expect(schemas[name], String(value)).toBeDefined();
    }
    const ids = ROUTES.map((route) => operationOf(route).operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("uses JSON Schema 2020-12 as OpenAPI 3.1 does: no 3.0 `nullable`", () => {
    for (const [key] of walk(document.components?.schemas)) expect(key).not.toBe("nullable");
    // Nullable fields are type arrays instead.
    expect(JSON.stringify(document.components?.schemas?.ExportRecord)).toContain(
      '["string","null"]',
    );
  });

  it("gives each component name to one schema: a second would take the first one's place", async () => {
    // The generator keys components by `.meta({ id })`, the last schema given a name winning
    // silently: every schema the contracts name is counted as the modules make it.
    const registry = z.globalRegistry;
    const named = new Map<string, Set<unknown>>();
    const add = registry.add;
    registry.add = function (this: typeof registry, schema, ...meta) {
      const id = meta[0]?.id;
      if (id !== undefined) named.set(id, (named.get(id) ?? new Set()).add(schema));
      return add.call(this, schema, ...meta);
    } as typeof registry.add;
    try {
      vi.resetModules();
      await import("./contracts/index.ts");
    } finally {
      registry.add = add;
    }
    const shared = [...named].filter(([, schemas]) => schemas.size > 1).map(([id]) => id);
    expect(shared).toEqual([]);
    expect(named.size).toBeGreaterThanOrEqual(
      Object.keys(document.components?.schemas ?? {}).length,
    );
  });

  it("names the request and answer schemas as components", () => {
    expect(Object.keys(document.components?.schemas ?? {})).toEqual(
      expect.arrayContaining([
        "InstallRequest",
        "EventsRequest",
        "S2sEventsRequest",
        "Event",
        "S2sEvent",
        "InstallAnswer",
        "EventsAnswer",
        "RemoteConfig",
        "DeletionAnswer",
        "ExportPage",
        "ExportRecord",
        "Error",
      ]),
    );
  });

  it("carries the rules the handlers check as schema keywords, such as a path's leading /", () => {
    const link = document.components?.schemas?.LinkRequest as {
      properties: Record<string, { pattern?: string }>;
    };
    const pattern = link.properties.deep_link_path?.pattern;
    expect(pattern).toBeDefined();
    expect(new RegExp(pattern ?? "").test("/levels/7")).toBe(true);
    expect(new RegExp(pattern ?? "").test("levels/7")).toBe(false);
  });

  it("puts the given server URL in servers, and a base_url variable otherwise", () => {
    expect(buildOpenApiDocument({ serverUrl: "https://api.example.com/prod" }).servers).toEqual([
      { url: "https://api.example.com/prod" },
    ]);
    expect(document.servers?.[0]?.url).toBe("{base_url}");
  });

  it("describes authentication, limits, event names, revenue, sealing and deletion", () => {
    const description = document.info.description ?? "";
    for (const text of [
      "`Authorization`",
      "`sdk_…`",
      "`srv_…`",
      "1048576 bytes",
      "`service_<snake case>`",
      "`service_boss_defeated`",
      "ISO 4217",
      "(./encryption-test-vectors.json)",
      "## Deletion",
    ]) {
      expect(description).toContain(text);
    }
  });
});

describe("spec/openapi.json", () => {
  it("is the generated document: run `npm run openapi` after changing the contract", () => {
    const committed = readFileSync(new URL(`../../${OPENAPI_FILE}`, import.meta.url), "utf8");
    expect(committed).toBe(serializeOpenApiDocument(document));
  });
});

describe(OPENAPI_TYPES_FILE, () => {
  it("is generated from the document: run `npm run openapi` after changing the contract", async () => {
    const committed = readFileSync(new URL(`../../${OPENAPI_TYPES_FILE}`, import.meta.url), "utf8");
    expect(committed).toBe(await openApiTypes(document));
  });

  it("names every component schema, each as the dashboard imports it", async () => {
    const types = await openApiTypes(document);
    for (const name of Object.keys(document.components?.schemas ?? {})) {
      expect(types, name).toMatch(new RegExp(`^  ${name}: \\w+;$`, "m"));
    }
  });
});

describe("the export contract", () => {
  it("names each format's media type and disposition as its writer sends them", () => {
    for (const format of EXPORT_FORMATS) {
      const writer = FORMATS[format];
      expect(writer.contentType.split(";")[0], format).toBe(EXPORT_MEDIA_TYPES[format]);
      expect(EXPORT_DOWNLOADS.includes(format), format).toBe(writer.attachment);
      expect(Object.keys(CONTRACTS.export.success.content ?? {})).toContain(
        EXPORT_MEDIA_TYPES[format],
      );
    }
  });

  it.each([
    [{ timestamp: "0" }],
    [{ timestamp: "1793491200", format: "csv", limit: "500", offset: "1500" }],
    [{ timestamp: "1", limit: "1", offset: "0" }],
    [{ timestamp: "1", limit: "10000", offset: String(Number.MAX_SAFE_INTEGER) }],
  ])("documents the query the handler accepts: %o", (query) => {
    const numeric = Object.fromEntries(
      Object.entries(query).map(([k, v]) => [k, k === "format" ? v : Number(v)]),
    );
    expect(exportQuerySchema.parse(numeric)).toEqual(exportParamsSchema.parse(query));
  });

  it.each([
    [{}],
    [{ timestamp: "1.5" }],
    [{ timestamp: "0", limit: "0" }],
    [{ timestamp: "0", limit: "10001" }],
    [{ timestamp: "0", offset: "-1" }],
    [{ timestamp: "0", format: "pdf" }],
  ])("documents the query the handler refuses: %o", (query) => {
    const numeric = Object.fromEntries(
      Object.entries(query).map(([k, v]) => [k, k === "format" ? v : Number(v)]),
    );
    expect(exportParamsSchema.safeParse(query).success).toBe(false);
    expect(exportQuerySchema.safeParse(numeric).success).toBe(false);
  });
});

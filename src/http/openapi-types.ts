/**
 * The dashboard's types of the API's bodies, generated from the OpenAPI document's component
 * schemas, so that the dashboard reads each body as the contract defines it instead of a copy
 * written by hand. Written by `npm run openapi` beside spec/openapi.json; src/http/openapi.test.ts
 * fails while the committed file differs from what this generates.
 */
import { compile, type JSONSchema } from "json-schema-to-typescript";
import type { OpenApiDocument } from "./openapi.ts";

export const OPENAPI_TYPES_FILE = "dashboard/src/api-schema.ts";

const BANNER =
  "/* Generated from spec/openapi.json by `npm run openapi` (src/http/openapi-types.ts): do not edit. */";

const PROSE = new Set(["description", "example", "examples"]);

/**
 * A schema without what only documents it (descriptions, examples): the contract and the API
 * docs hold them, and the types are the same without them. A property of that name stays.
 */
const withoutProse = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(withoutProse);
  if (schema === null || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !PROSE.has(key))
      .map(([key, inner]) => [
        key,
        key === "properties" ? eachWithoutProse(inner) : withoutProse(inner),
      ]),
  );
};

/** A map of names to schemas (a schema's `properties`, the components): each schema without prose. */
const eachWithoutProse = (schemas: unknown): unknown =>
  schemas !== null && typeof schemas === "object"
    ? Object.fromEntries(
        Object.entries(schemas).map(([name, inner]) => [name, withoutProse(inner)]),
      )
    : schemas;

/** One interface or type per component schema, named as the component is. */
export const openApiTypes = async (document: OpenApiDocument): Promise<string> => {
  const schemas = eachWithoutProse(document.components?.schemas ?? {}) as Record<
    string,
    JSONSchema
  >;
  const names = Object.keys(schemas);
  // A root that names every component, so that each is emitted under its own name; the root
  // itself (ApiSchemas) maps the names to them.
  const root: JSONSchema = {
    title: "ApiSchemas",
    type: "object",
    properties: Object.fromEntries(
      names.map((name) => [name, { $ref: `#/components/schemas/${name}` }]),
    ),
    required: names,
    additionalProperties: false,
    components: { schemas },
  };
  return compile(root, "ApiSchemas", {
    bannerComment: BANNER,
    additionalProperties: false,
    format: true,
    // Arrays as arrays, whatever their bound: never a union of tuples of each length.
    maxItems: -1,
    style: { printWidth: 100 },
  });
};

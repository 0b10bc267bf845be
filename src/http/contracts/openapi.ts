/** The contract of the OpenAPI document's own route. */
import * as z from "zod";
import { INTERNAL, JSON_MEDIA_TYPE, type RouteContract } from "./shared.ts";

export const openApiDocumentSchema = z
  .looseObject({
    openapi: z.literal("3.1.0"),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "OpenApiDocument", description: "An OpenAPI 3.1 document: this one." });

export const OPENAPI_CONTRACTS = {
  openapi: {
    summary: "Get this document",
    description:
      "The OpenAPI 3.1 document of this API, generated from the service's own schemas. " +
      "Public: no key needed. The repository holds the same document as spec/openapi.json.",
    success: {
      status: 200,
      description: "The document.",
      content: { [JSON_MEDIA_TYPE]: openApiDocumentSchema },
    },
    errors: { 500: INTERNAL },
  },
} as const satisfies Record<string, RouteContract>;

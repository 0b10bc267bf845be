/**
 * `npm run openapi`: writes spec/openapi.json, the committed copy of the API's OpenAPI
 * document, and the dashboard's types of its bodies generated from it. src/http/openapi.test.ts
 * fails while either file differs from what is generated.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildOpenApiDocument, OPENAPI_FILE, serializeOpenApiDocument } from "../http/openapi.ts";
import { OPENAPI_TYPES_FILE, openApiTypes } from "../http/openapi-types.ts";

const pathOf = (file: string) => fileURLToPath(new URL(`../../${file}`, import.meta.url));
const document = buildOpenApiDocument();
writeFileSync(pathOf(OPENAPI_FILE), serializeOpenApiDocument(document));
writeFileSync(pathOf(OPENAPI_TYPES_FILE), await openApiTypes(document));
console.log(`wrote ${OPENAPI_FILE} and ${OPENAPI_TYPES_FILE}`);

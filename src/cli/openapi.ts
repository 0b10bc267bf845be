/**
 * `npm run openapi`: writes spec/openapi.json, the committed copy of the API's OpenAPI
 * document. src/http/openapi.test.ts fails while the file differs from the generated document.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildOpenApiDocument, OPENAPI_FILE, serializeOpenApiDocument } from "../http/openapi.ts";

const file = fileURLToPath(new URL(`../../${OPENAPI_FILE}`, import.meta.url));
writeFileSync(file, serializeOpenApiDocument(buildOpenApiDocument()));
console.log(`wrote ${OPENAPI_FILE}`);

/** `GET /v1/openapi.json` on AWS: the API's OpenAPI document, public, built from the code. */
import { openapiEnv, parseEnv } from "../src/config/aws-env.ts";
import { createOpenApiHandler } from "../src/http/handlers/openapi.ts";
import { logged } from "./logged.ts";

// Nothing to read, but parsed like every entry's, so the contract stays uniform.
parseEnv(openapiEnv, process.env);

export const handler = logged(createOpenApiHandler());

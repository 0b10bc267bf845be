/** `GET /v1/openapi.json` on AWS: the API's OpenAPI document, public, built from the code. */
import { functionEnv } from "../src/functions/env.ts";
import { createOpenApiHandler } from "../src/http/handlers/openapi.ts";
import { routeOf } from "../src/http/routes.ts";
import { logged } from "./logged.ts";

// Nothing to read, but parsed like every entry's, so the contract stays uniform.
functionEnv(routeOf("openapi"));

export const handler = logged(createOpenApiHandler());

/** `GET /v1/openapi.json` on AWS: the API's OpenAPI document, public, built from the code. */
import { lambda } from "../src/aws/lambda.ts";
import { openApiFunction } from "../src/http/handlers/openapi.ts";

export const handler = await lambda(openApiFunction, {});

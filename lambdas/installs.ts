/** `POST /v1/installs` on AWS: installs into DynamoDB, idempotent on service_id. */
import { INGEST_PROVIDERS } from "../src/aws/ingest-providers.ts";
import { lambda } from "../src/aws/lambda.ts";
import { installsFunction } from "../src/http/handlers/ingest.ts";

export const handler = await lambda(installsFunction, INGEST_PROVIDERS);

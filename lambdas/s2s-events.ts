/** `POST /v1/s2s/events` on AWS: server-to-server event batches into the events stream. */
import { INGEST_PROVIDERS } from "../src/aws/ingest-providers.ts";
import { lambda } from "../src/aws/lambda.ts";
import { s2sEventsFunction } from "../src/http/handlers/ingest.ts";

export const handler = await lambda(s2sEventsFunction, INGEST_PROVIDERS);

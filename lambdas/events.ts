/** `POST /v1/events` on AWS: SDK event batches, judged one by one, into the events stream. */
import { INGEST_PROVIDERS } from "../src/aws/ingest-providers.ts";
import { lambda } from "../src/aws/lambda.ts";
import { eventsFunction } from "../src/http/handlers/ingest.ts";

export const handler = await lambda(eventsFunction, INGEST_PROVIDERS);

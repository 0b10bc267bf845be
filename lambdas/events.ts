/** `POST /v1/events` on AWS: SDK event batches, judged one by one, into the events stream. */
import { handlers } from "./ingestion.ts";
import { logged } from "./logged.ts";

export const handler = logged(handlers.events);

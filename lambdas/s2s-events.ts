/** `POST /v1/s2s/events` on AWS: server-to-server event batches into the events stream. */
import { handlers } from "./ingestion.ts";
import { logged } from "./logged.ts";

export const handler = logged(handlers.s2sEvents);

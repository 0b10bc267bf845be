/** `POST /v1/s2s/events` on AWS: server-to-server event batches into the events stream. */
import { handlers } from "./ingestion.ts";

export const handler = handlers.s2sEvents;

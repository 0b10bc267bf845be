/** `POST /v1/installs` on AWS: installs into DynamoDB, idempotent on service_id. */
import { handlers } from "./ingestion.ts";

export const handler = handlers.installs;

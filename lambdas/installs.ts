/** `POST /v1/installs` on AWS: installs into DynamoDB, idempotent on service_id. */
import { handlers } from "./ingestion.ts";
import { logged } from "./logged.ts";

export const handler = logged(handlers.installs);

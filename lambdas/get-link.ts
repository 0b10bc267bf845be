/** `GET /v1/links/{deeplink_id}` on AWS: one of the app's links. */
import { handlers } from "./links.ts";
import { logged } from "./logged.ts";

export const handler = logged(handlers.getLink);

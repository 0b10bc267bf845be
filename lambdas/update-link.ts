/** `PATCH /v1/links/{deeplink_id}` on AWS: disables or enables a link. */
import { handlers } from "./links.ts";
import { logged } from "./logged.ts";

export const handler = logged(handlers.updateLink);

/** `GET /v1/links` on AWS: the app's links, a page at a time. */
import { handlers } from "./links.ts";
import { logged } from "./logged.ts";

export const handler = logged(handlers.listLinks);

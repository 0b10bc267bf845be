/** `POST /v1/links` on AWS: makes a link for ads. */
import { handlers } from "./links.ts";
import { logged } from "./logged.ts";

export const handler = logged(handlers.createLink);

/** `GET /.well-known/assetlinks.json` on the link host's API: Android App Links. */
import { logged } from "./logged.ts";
import { handlers } from "./well-known.ts";

export const handler = logged(handlers.assetLinks);

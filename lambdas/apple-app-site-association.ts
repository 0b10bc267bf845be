/** `GET /.well-known/apple-app-site-association` on the link host's API: Universal Links. */
import { logged } from "./logged.ts";
import { handlers } from "./well-known.ts";

export const handler = logged(handlers.appleAppSiteAssociation);

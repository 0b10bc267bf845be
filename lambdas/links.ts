/**
 * What the four link routes of the API share: the links and apps tables, and the link host's
 * URL that new links name. The environment is parsed first, so a bad deployment fails on its
 * first cold start naming the variable.
 */
import { createLinkStore } from "../src/adapters/dynamodb/links.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { functionEnv } from "../src/functions/env.ts";
import { createLinkHandlers } from "../src/http/handlers/links.ts";
import { routeOf } from "../src/http/routes.ts";
import { dynamoDocument } from "./clients.ts";

const env = functionEnv(routeOf("create-link"));

export const handlers = createLinkHandlers({
  links: createLinkStore(dynamoDocument, env.LINKS_TABLE),
  apps: createAppStore(dynamoDocument, env.APPS_TABLE),
  linkBaseUrl: () => env.LINK_BASE_URL,
});

/**
 * What the link host's two `.well-known` files share: every app's link settings, read at most
 * once a minute by a warm function (Apple's and Google's fetchers cache the files themselves).
 */
import { cachedValue } from "../src/adapters/cache/cached-value.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { functionEnv } from "../src/functions/env.ts";
import { createWellKnownHandlers } from "../src/http/handlers/link-host.ts";
import { routeOf } from "../src/http/routes.ts";
import { dynamoDocument } from "./clients.ts";

const env = functionEnv(routeOf("assetlinks"));
const apps = createAppStore(dynamoDocument, env.APPS_TABLE);

export const handlers = createWellKnownHandlers({
  allApps: cachedValue(() => apps.list(), 60_000),
});

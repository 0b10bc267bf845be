/**
 * What the two functions that record touches share (the link host's tap route and
 * `POST /v1/touches`): the links, apps and touches tables, the touches delivery stream and the
 * country database shipped in the asset, loaded at start-up (top-level await) so no request
 * pays for it. Links and apps are read through short caches: a warm function serves an ad's
 * burst of taps from memory.
 */
import { cachedAppStore } from "../src/adapters/cache/cached-apps.ts";
import { cachedLinkStore } from "../src/adapters/cache/cached-links.ts";
import { createLinkStore } from "../src/adapters/dynamodb/links.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { createTouchStore } from "../src/adapters/dynamodb/touches.ts";
import { createFirehoseStream } from "../src/adapters/firehose/record-stream.ts";
import { createCountryResolver } from "../src/adapters/geoip/country-resolver.ts";
import { DEFAULT_APP_CACHE_MS } from "../src/config/defaults.ts";
import { functionEnv } from "../src/functions/env.ts";
import { routeOf } from "../src/http/routes.ts";
import { TOUCHES_TABLE } from "../src/lake/tables.ts";
import { dynamoDocument, firehose } from "./clients.ts";

const env = functionEnv(routeOf("click"));

export const touchDeps = {
  apps: cachedAppStore(createAppStore(dynamoDocument, env.APPS_TABLE), DEFAULT_APP_CACHE_MS),
  links: cachedLinkStore(createLinkStore(dynamoDocument, env.LINKS_TABLE), DEFAULT_APP_CACHE_MS),
  touches: createTouchStore(dynamoDocument, env.TOUCHES_TABLE),
  stream: createFirehoseStream({ firehose, streamName: env.TOUCHES_STREAM, table: TOUCHES_TABLE }),
  // The link host's API passes the caller's address; no viewer-country header is trusted.
  countries: await createCountryResolver(env.GEOIP_DB_FILE, { trustViewerCountry: false }),
};

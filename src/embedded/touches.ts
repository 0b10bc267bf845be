/**
 * The touch side of the embedded runtime: the link routes of the API, the link host's
 * handlers, `POST /v1/touches`, and the sweep that forgets expired touches (DynamoDB's TTL
 * does it on AWS).
 */
import { coalescedWrites } from "../adapters/batching/coalesced-writes.ts";
import { cachedLinkStore } from "../adapters/cache/cached-links.ts";
import { cachedValue } from "../adapters/cache/cached-value.ts";
import type { createDynamoStores } from "../adapters/dynamodb/stores.ts";
import { createClickHandler, createWellKnownHandlers } from "../http/handlers/link-host.ts";
import { createLinkHandlers } from "../http/handlers/links.ts";
import { createTouchesHandler } from "../http/handlers/touches.ts";
import type { LinkHostRouteId } from "../http/routes.ts";
import { jobOf } from "../jobs/jobs.ts";
import { logger } from "../logging/logger.ts";
import type { AppStore } from "../ports/apps.ts";
import type { CountryResolver } from "../ports/geo.ts";
import type { RecordStream } from "../ports/lake.ts";
import { startJob } from "./background-job.ts";
import type { RouteHandler } from "./gateway.ts";

export const startTouches = (deps: {
  readonly stores: ReturnType<typeof createDynamoStores>;
  readonly apps: AppStore;
  readonly stream: RecordStream;
  readonly countries: CountryResolver;
  readonly cacheMs: number;
  /** Moves when the CLI changes an app (see ./admin-changes.ts). */
  readonly revision: () => string;
  /** The service's own link host, once its listener is up. */
  readonly linkBaseUrl: () => string;
}) => {
  const { stores, apps } = deps;
  // Links change only through this process (the API) or the CLI.
  const links = cachedLinkStore(stores.links, deps.cacheMs);
  const linkApi = createLinkHandlers({ links, apps, linkBaseUrl: deps.linkBaseUrl });
  const wellKnown = createWellKnownHandlers({
    // The CLI changes link settings: its mark reads them again at the next request.
    allApps: cachedValue(() => stores.apps.list(), 60_000, { revision: deps.revision }),
  });
  const click = createClickHandler({
    links,
    apps,
    // Taps that arrive together are stored together: the local store's cost is mostly per
    // request, and it runs in this process, so one batch at a time serves best.
    touches: {
      put: coalescedWrites((touches) => stores.touches.put(touches), {
        maxBatch: 25,
        maxInFlight: 1,
      }),
    },
    stream: deps.stream,
    countries: deps.countries,
    onRecordFailure: (error, touch) =>
      logger.error("click not recorded", { appId: touch.appId, clickId: touch.clickId, error }),
  });
  // Touches expire after the longest click window.
  const reaper = startJob(jobOf("reap-touches"), () => stores.touches.reap(new Date()));
  const linkHost: Record<LinkHostRouteId, RouteHandler> = {
    click,
    "apple-app-site-association": wellKnown.appleAppSiteAssociation,
    assetlinks: wellKnown.assetLinks,
  };
  return {
    /** The API's link and touch routes. */
    routes: {
      touches: createTouchesHandler({
        ...stores,
        apps,
        links,
        stream: deps.stream,
        countries: deps.countries,
      }),
      "create-link": linkApi.createLink,
      "list-links": linkApi.listLinks,
      "get-link": linkApi.getLink,
      "update-link": linkApi.updateLink,
    },
    linkHost,
    stop: () => reaper.stop(),
  };
};

import type { APIGatewayProxyEvent } from "aws-lambda";
import { type Adapters, composition, type Runtime, sharedBy } from "../../functions/adapters.ts";
import { appsOfHost } from "../../links/app-settings.ts";
import {
  escapeHtml,
  PAGE_HEADERS,
  renderLandingPage,
  renderPreviewPage,
} from "../../links/landing-page.ts";
import { appleAppSiteAssociation, assetLinks } from "../../links/well-known.ts";
import { logger } from "../../logging/logger.ts";
import type { App } from "../../ports/apps.ts";
import { type ClickDeps, createClickRecorder } from "../../touches/clicks.ts";
import { DEVICE_HINTS } from "../../touches/user-agent.ts";
import { type HttpResponse, httpRoute, lowerCaseHeaders } from "../middleware.ts";
import { routeOf } from "../routes.ts";
import { callerAddress } from "../viewer-address.ts";

/** What every link host answer says of caching: a tap must reach the host every time. */
const NO_STORE = "no-store";

/**
 * Every answer to a tap asks for the hints that tell what Chrome's reduced agent hides, so a
 * browser that keeps the wish for the host sends them with its next tap from the start.
 */
const HINT_HEADERS = {
  "accept-ch": DEVICE_HINTS.join(", "),
  // The answer depends on them: a cache in front must not give one phone's to another.
  vary: ["User-Agent", ...DEVICE_HINTS].join(", "),
  "cache-control": NO_STORE,
};

/**
 * The plain page of an unknown link (also the link host's answer to any other path), under the
 * same policy as the link host's other pages.
 */
export const linkNotFound = (): HttpResponse => ({
  statusCode: 404,
  headers: { ...PAGE_HEADERS, "cache-control": NO_STORE },
  body:
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Link not found</title></head>' +
    "<body><h1>Link not found</h1><p>This link does not exist or has expired.</p></body></html>\n",
});

/**
 * The page of what the link host's listener refuses before any link is read (headers too large
 * for it, a request it cannot parse): a person who tapped reads a page, not the API's JSON.
 */
export const linkHostRefusal = (error: { status: number; detail: string }): HttpResponse => ({
  statusCode: error.status,
  headers: { ...PAGE_HEADERS, "cache-control": NO_STORE },
  body:
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>This link could not be opened</title></head>' +
    `<body><h1>This link could not be opened</h1><p>${escapeHtml(error.detail)}</p></body></html>\n`,
});

const jsonFile = (body: unknown): HttpResponse => ({
  statusCode: 200,
  // Apple requires application/json and no redirect; both files may be cached for a while.
  headers: { "content-type": "application/json", "cache-control": "public, max-age=300" },
  body: JSON.stringify(body),
});

/**
 * The link a path names when no route took it (AWS's catch-all): `/<id>/`, as a link pasted with
 * a final slash arrives, which API Gateway's `/{deeplink_id}` route may not match (the embedded
 * gateway does). Any other path names no link.
 */
const linkOfPath = (path: string | undefined): string =>
  /^\/([^/]+)\/$/.exec(path ?? "")?.[1] ?? "";

/**
 * The last value of each repeated name, as the SDKs read a link's parameters. Taken from every
 * value the gateway passed: which one a gateway's single-value map keeps is its own choice
 * (the link host's HTTP API and the embedded gateway may differ).
 */
const lastOfEach = (
  all: Readonly<Record<string, readonly string[] | undefined>> | null | undefined,
): Record<string, string> | undefined => {
  if (!all) return undefined;
  const last: Record<string, string> = {};
  for (const [name, values] of Object.entries(all)) {
    const value = values?.at(-1);
    if (value !== undefined) last[name] = value;
  }
  return last;
};

/**
 * `GET /{deeplink_id}`: the tap recorded, then a redirect or the link's landing page; a
 * crawler's fetch, the link's preview; Chrome's reduced agent without its hints, a request for
 * them first (src/touches/clicks.ts); an unknown link, the plain 404. `HEAD` gets the same
 * answer, its body dropped by the gateway in front, and records nothing. The caller's address
 * is the viewer's that CloudFront forwards when `trustViewerAddress` says the link host stands
 * behind the distribution (on AWS), else the one API Gateway saw.
 */
export const createClickHandler = (deps: ClickDeps & { readonly trustViewerAddress?: boolean }) => {
  const tap = createClickRecorder(deps);
  return httpRoute(async (event) => {
    const headers = lowerCaseHeaders(event.headers);
    const answer = await tap({
      deeplinkId: event.pathParameters?.deeplink_id ?? linkOfPath(event.path),
      query: lastOfEach(event.multiValueQueryStringParameters) ?? {
        ...event.queryStringParameters,
      },
      allQuery: event.multiValueQueryStringParameters,
      sourceIp: callerAddress(
        headers,
        event.requestContext?.identity?.sourceIp ?? null,
        deps.trustViewerAddress === true,
      ),
      headers,
      head: event.httpMethod === "HEAD",
    });
    switch (answer.kind) {
      case "not-found":
        return linkNotFound();
      case "prefetch":
        // A prefetch answered with an error is not used for the navigation: the tap, if it
        // comes, asks again, and is counted then. A 4xx, Too Early (ask again when it is meant),
        // not a 5xx: in-app browsers preload every link of a feed, and the link host's 5xx
        // alarm is for the service's own failures.
        return {
          statusCode: 425,
          headers: { "cache-control": NO_STORE, "content-type": "text/plain; charset=utf-8" },
          body: "Not prefetched: open the link to follow it.\n",
        };
      case "redirect":
        return {
          statusCode: 302,
          headers: { location: answer.location, ...HINT_HEADERS },
          body: "",
        };
      case "ask-hints":
        // Chrome takes a redirect's Accept-CH for the request it redirects to, so it follows
        // this one to the same link with the hints; a browser that does not send them still
        // lands there, marked so that it is not asked again. No Critical-CH: Chrome restarts
        // a navigation it names from the top of its redirect chain, and a tap that came
        // through an ad network's click tracker would pass through the tracker twice.
        return {
          statusCode: 302,
          headers: { location: answer.location, ...HINT_HEADERS },
          body: "",
        };
      case "landing":
        return {
          statusCode: 200,
          headers: { ...PAGE_HEADERS, ...HINT_HEADERS },
          body: await renderLandingPage({ ...answer, acceptLanguage: headers["accept-language"] }),
        };
      case "preview":
        return {
          statusCode: 200,
          headers: { ...PAGE_HEADERS, ...HINT_HEADERS },
          body: renderPreviewPage(answer.app, answer.link, headers["accept-language"]),
        };
    }
  });
};

/**
 * The `.well-known` files of the host asked (its `Host` header), from every app's settings
 * (`allApps` may be a short cache: the files change when an app's settings do).
 */
export const createWellKnownHandlers = (deps: { allApps: () => Promise<App[]> }) => {
  const hostApps = async (event: APIGatewayProxyEvent) =>
    appsOfHost(await deps.allApps(), lowerCaseHeaders(event.headers).host);
  return {
    appleAppSiteAssociation: httpRoute(async (event) =>
      jsonFile(appleAppSiteAssociation(await hostApps(event))),
    ),
    assetLinks: httpRoute(async (event) => jsonFile(assetLinks(await hostApps(event)))),
  };
};

/** A tap: recorded through the hot path's caches, then redirected. */
export const clickFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("click"),
  ({ tables, countries, settings }, runtime) =>
    createClickHandler({
      apps: runtime.hotApps(tables.apps),
      allApps: runtime.allApps(tables.apps),
      links: runtime.hotLinks(tables.links),
      clicks: runtime.clicks(tables.touches),
      countries,
      trustViewerAddress: settings.trustViewerAddress,
      onRecordFailure: (error, touch) =>
        logger.error("click not recorded", { appId: touch.appId, clickId: touch.clickId, error }),
    }),
);

/** The two `.well-known` files share every app's link settings. */
const wellKnownHandlers = /* @__PURE__ */ sharedBy(
  (adapters: Adapters<ReturnType<typeof routeOf<"assetlinks">>["uses"]>, runtime: Runtime) =>
    createWellKnownHandlers({ allApps: runtime.allApps(adapters.tables.apps) }),
);

export const appleAppSiteAssociationFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("apple-app-site-association"),
  (adapters, runtime) => wellKnownHandlers(adapters, runtime).appleAppSiteAssociation,
);

export const assetLinksFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("assetlinks"),
  (adapters, runtime) => wellKnownHandlers(adapters, runtime).assetLinks,
);

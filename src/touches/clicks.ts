/**
 * A tap on a link, as the link host takes it: the link and its app are looked up, the tap is
 * recorded as a click (unless the link is disabled or the caller is a bot or a preview
 * fetcher), and the caller is sent on by its platform, or shown the link's landing page where
 * its platform has nowhere to go (or the link asks for the page). A chat's or a feed's crawler
 * gets the link's preview. A tap is never refused for a failure to record it: the person who
 * tapped still reaches the store, and the failure is logged. The answer then carries no click
 * id: one sent to the store would come back with the install naming a click never stored.
 *
 * Chrome on Android hides the phone's model and OS version from its agent. A tap from it that
 * lacks the client hints telling them is first answered with a request for them (`Accept-CH`)
 * and a redirect to the same link with a mark in its query, and nothing is recorded: Chrome
 * follows the redirect with the hints, and that tap is recorded once. A browser that does not
 * send them lands there too, and is recorded and sent on without being asked again.
 *
 * A HEAD request (link checkers, some crawlers) is answered as its GET would be, and records
 * nothing: no person tapped, so its answer carries no click id either.
 */

import type { DevicePlatform } from "../domain/touch.ts";
import { hostServesApp } from "../links/app-settings.ts";
import { LINK_LIMITS } from "../links/link-limits.ts";
import { QR_TAP_PARAM } from "../links/link-qr.ts";
import type { App, AppStore } from "../ports/apps.ts";
import type { ClickSink } from "../ports/clicks.ts";
import type { CountryResolver } from "../ports/geo.ts";
import type { Link, LinkStore } from "../ports/links.ts";
import type { Touch } from "../ports/touches.ts";
import {
  androidOpenerOf,
  destinationOf,
  type StoreButton,
  storesOf,
  webDestinationOf,
  withParamsLacking,
} from "./destination.ts";
import { isEmbedded, isPrefetch } from "./fetch-purpose.ts";
import { deeplinkIdOfPath, newClickId } from "./ids.ts";
import { normalizeIp } from "./ip.ts";
import { type PreviewFetcher, previewFetcherOf } from "./preview-fetchers.ts";
import { adFieldsOf, firstLanguage } from "./touch.ts";
import { TOUCH_LIMITS } from "./touch-request.ts";
import { type DeviceTraits, deviceTraits, sentDeviceHints } from "./user-agent.ts";

/**
 * The query key the request for client hints redirects with: a tap that carries it was asked
 * already, and is never asked again. It is not one of the tap's recorded parameters.
 */
export const HINTS_ASKED_PARAM = "service_hints";

export interface Tap {
  readonly deeplinkId: string;
  /** The tapped URL's query, a repeated name's last value. */
  readonly query: Readonly<Record<string, string | undefined>>;
  /** The tapped URL's query with every value of a repeated name, where the gateway gives it. */
  readonly allQuery?: Readonly<Record<string, readonly string[] | undefined>> | null;
  readonly sourceIp: string | null;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** A HEAD request: the GET's answer, nothing recorded. */
  readonly head?: boolean;
}

/** What the link's landing page shows a tapper. */
export interface LandingAnswer {
  readonly kind: "landing";
  readonly app: App;
  readonly link: Link;
  readonly platform: DevicePlatform;
  /** The stores the app is in, the tapper's first, the Play Store's with the click's referrer. */
  readonly stores: readonly StoreButton[];
  readonly webUrl: string | null;
  readonly clickId: string | null;
  /**
   * The link as the desktop's QR code gives it to a phone: with the tapped URL's own parameters
   * (a network's click id, its sub-parameters), so that the phone's tap, the one an install
   * matches, carries them too.
   */
  readonly qrUrl: string;
  /**
   * The link as the app is given it when the page opens it (the Android "Open" button, iOS
   * Safari's Smart App Banner): with the tapped URL's own parameters, as an App Link gives it.
   */
  readonly openUrl: string;
  /** The Android "Open" button's link (`androidOpenerOf`): an Android tapper's, of a live link. */
  readonly androidOpener: string | null;
}

/** Longest QR link with the tap's parameters; past it, the link alone (a code stays scannable). */
const MAX_QR_URL_LENGTH = 1_000;

/** The link's URL with the tapped URL's parameters it does not have itself, marked as a QR's. */
const qrUrlOf = (link: Link, tapped: Readonly<Record<string, string>>): string => {
  const marked = (href: string) => {
    const url = URL.parse(href);
    url?.searchParams.set(QR_TAP_PARAM, "1");
    return url?.href ?? href;
  };
  const full = marked(withParamsLacking(link.url, tapped));
  return full.length <= MAX_QR_URL_LENGTH ? full : marked(link.url);
};

export type TapAnswer =
  | { readonly kind: "redirect"; readonly location: string; readonly clickId: string | null }
  | LandingAnswer
  /** A chat's or a feed's crawler: the link's preview, never counted. */
  | {
      readonly kind: "preview";
      readonly app: App;
      readonly link: Link;
      readonly fetcher: PreviewFetcher;
    }
  /** Chrome's reduced agent without its hints: asked for them, redirected to `location`. */
  | { readonly kind: "ask-hints"; readonly location: string }
  /**
   * A browser fetching the link before any tap (a feed's or a search page's prefetch): refused,
   * never counted, so that the tap, if it comes, is a request of its own, recorded then.
   */
  | { readonly kind: "prefetch" }
  | { readonly kind: "not-found" };

export interface ClickDeps {
  readonly links: Pick<LinkStore, "get">;
  readonly apps: Pick<AppStore, "get">;
  /** Every app (a short cache will do): whose link hosts a tap's `Host` is. */
  readonly allApps: () => Promise<readonly App[]>;
  readonly clicks: ClickSink;
  readonly countries: CountryResolver;
  readonly onRecordFailure: (error: unknown, touch: Touch) => void;
  readonly now?: () => Date;
}

/** The tapped URL's parameters, kept under the limits of a link's own. */
const keptParams = (query: Tap["query"]): Record<string, string> => {
  // No prototype: a tapped URL's `__proto__=…` is a parameter like any other.
  const kept: Record<string, string> = Object.create(null);
  let count = 0;
  for (const [key, value] of Object.entries(query)) {
    if (
      value === undefined ||
      key.length === 0 ||
      key.length > LINK_LIMITS.maxParamKeyLength ||
      key === HINTS_ASKED_PARAM ||
      key === QR_TAP_PARAM
    ) {
      continue;
    }
    if (++count > LINK_LIMITS.maxParams) break;
    kept[key] = value.slice(0, LINK_LIMITS.maxParamValueLength);
  }
  return kept;
};

const clickOf = (
  link: Link,
  tap: Tap,
  traits: DeviceTraits,
  clickId: string,
  tapped: Readonly<Record<string, string>>,
  deps: ClickDeps,
  at: Date,
): Touch => ({
  clickId,
  appId: link.appId,
  touchType: "click",
  source: "link",
  touchTime: at.toISOString(),
  receivedAt: at.toISOString(),
  deeplinkId: link.deeplinkId,
  ...adFieldsOf(link),
  networkClickId: null,
  ip: normalizeIp(tap.sourceIp),
  userAgent: tap.headers["user-agent"]?.slice(0, TOUCH_LIMITS.maxUserAgentLength) ?? null,
  platform: traits.platform,
  osVersion: traits.osVersion,
  deviceModel: traits.deviceModel,
  language: firstLanguage(tap.headers["accept-language"]),
  country: deps.countries.countryOf(tap),
  maid: null,
  params: {
    ...link.params,
    ...(link.deepLinkPath === null ? {} : { deep_link_path: link.deepLinkPath }),
  },
  urlParams: tapped,
  // The link's cost goes on each of its clicks, but for a QR code's per-click or per-impression
  // price: the desktop's tap was the one charged (a per-install price it keeps: its install is
  // the one the link's price is for). The mark is not one of the tap's recorded parameters.
  cost: tap.query[QR_TAP_PARAM] !== undefined && link.cost?.model !== "CPI" ? null : link.cost,
});

export const createClickRecorder = (deps: ClickDeps) => {
  const now = deps.now ?? (() => new Date());

  /** Whether the click is stored (or, on the embedded runtime, in its durable log). */
  const record = async (click: Touch): Promise<boolean> => {
    try {
      await deps.clicks.record(click);
      return true;
    } catch (error) {
      deps.onRecordFailure(error, click);
      return false;
    }
  };

  return async (tap: Tap): Promise<TapAnswer> => {
    const deeplinkId = deeplinkIdOfPath(tap.deeplinkId);
    if (deeplinkId === null) return { kind: "not-found" };
    const link = await deps.links.get(deeplinkId);
    const app = link && (await deps.apps.get(link.appId));
    if (!link || !app) return { kind: "not-found" };
    if (!hostServesApp(await deps.allApps(), tap.headers.host, app)) {
      return { kind: "not-found" };
    }
    if (isPrefetch(tap.headers)) return { kind: "prefetch" };
    const agent = tap.headers["user-agent"];
    const fetcher = previewFetcherOf(agent);
    if (fetcher) return { kind: "preview", app, link, fetcher };
    const traits = deviceTraits(agent, tap.headers);
    const counted = !link.disabled && !traits.isBot && !isEmbedded(tap.headers);
    if (counted && hintsWanted(tap, traits)) {
      return { kind: "ask-hints", location: askedAgain(tap) };
    }
    // The tapped URL's own parameters: the click's, the web destination's, the QR code's.
    const tapped = keptParams(tap.query);
    const newId = counted && tap.head !== true ? newClickId() : null;
    const clickId =
      newId !== null && (await record(clickOf(link, tap, traits, newId, tapped, deps, now())))
        ? newId
        : null;
    const { platform } = traits;
    // What a web destination is given of them, unless the link sends it as written.
    const forwarded = link.forwardParams ? tapped : {};
    // A disabled link sends every tap to the web, as if from a desktop (its page, where it has
    // no web, is still the one for the tapper's device).
    const location = link.disabled
      ? destinationOf("other", app, link, null, forwarded)
      : link.landingPage
        ? null
        : destinationOf(platform, app, link, clickId, forwarded, !traits.withoutGooglePlay);
    if (location === null) {
      const stores = storesOf(platform, app, link, clickId, !traits.withoutGooglePlay);
      const openUrl = withParamsLacking(link.url, tapped);
      const androidStore = stores.find((store) => store.platform === "android")?.url ?? null;
      return {
        kind: "landing",
        app,
        link,
        platform,
        stores,
        webUrl: webDestinationOf(app, link, forwarded),
        clickId,
        qrUrl: qrUrlOf(link, tapped),
        openUrl,
        androidOpener:
          platform === "android" && !link.disabled
            ? androidOpenerOf(app, openUrl, androidStore)
            : null,
      };
    }
    return { kind: "redirect", location, clickId };
  };
};

/**
 * Whether to ask for the hints first: Chrome's reduced agent, from a browser that sends the
 * client hints every Chromium browser sends by default (`Sec-CH-UA`, so it can send the others),
 * without the two that tell the phone, and not asked before.
 */
const hintsWanted = (tap: Tap, traits: DeviceTraits): boolean =>
  traits.reducedAgent &&
  tap.headers["sec-ch-ua"] !== undefined &&
  !sentDeviceHints(tap.headers) &&
  tap.query[HINTS_ASKED_PARAM] === undefined;

/**
 * The tapped link again, marked as asked: a reference of its query alone, which keeps the path
 * the browser tapped, whatever a proxy in front of the link host took off it (a base URL's
 * `/go/` prefix, a trailing slash).
 */
const askedAgain = (tap: Tap): string => {
  const query = new URLSearchParams();
  // Every value of a repeated name, as tapped, where the gateway gives them.
  for (const [key, values] of Object.entries(tap.allQuery ?? {})) {
    for (const value of values ?? []) query.append(key, value);
  }
  for (const [key, value] of Object.entries(tap.query)) {
    if (value !== undefined && !query.has(key)) query.set(key, value);
  }
  query.set(HINTS_ASKED_PARAM, "1");
  return `?${query.toString()}`;
};

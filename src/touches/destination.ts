/**
 * Where the link host sends a tap, by the platform its user agent names: Android to the Play
 * Store with an install referrer that carries the click id (Play hands it to the app on first
 * launch, so the install names its click), iOS to the App Store, anything else to the web.
 * A link's own destination for a platform wins over the app's store page; a Play Store
 * destination always gets the referrer. A phone whose store does not have the app goes to the
 * web; a device with nowhere to go gets the link's landing page, which has a button for each
 * platform the link or its app has somewhere to go (`storesOf`).
 */

import type { DevicePlatform } from "../domain/touch.ts";
import { PLAY_PACKAGE_PATTERN } from "../links/app-settings.ts";
import type { App, Platform } from "../ports/apps.ts";
import { CLICK_ID_PATTERN } from "./ids.ts";

/** The install referrer's key for the click id: the matcher reads it back from the install. */
export const REFERRER_CLICK_ID = "service_click_id";

/** The app's side: its id is the Play package of an Android app; its settings name the rest. */
export type AppDestinations = Pick<App, "appId" | "platform" | "links">;

export interface LinkDestinations {
  readonly androidUrl?: string | null;
  readonly iosUrl?: string | null;
  readonly webUrl?: string | null;
  readonly mediaSource: string;
  readonly campaignName?: string | null;
}

const PLAY_HOST = "play.google.com";

/**
 * The install referrer a click puts in the Play Store URL: the click id, and the link's source
 * and campaign as UTM parameters, within the referrer the link's own Play URL may carry (a
 * marketer's `utm_medium` or `gclid`, which Play Console and Google Ads read), whose own UTM
 * values are kept.
 */
export const installReferrer = (
  clickId: string,
  link: LinkDestinations,
  own: string | null = null,
): string => {
  const referrer = new URLSearchParams(own ?? "");
  referrer.delete(REFERRER_CLICK_ID);
  const kept = [...referrer];
  const made = new URLSearchParams({ [REFERRER_CLICK_ID]: clickId });
  if (!referrer.has("utm_source")) made.set("utm_source", link.mediaSource);
  if (link.campaignName && !referrer.has("utm_campaign")) {
    made.set("utm_campaign", link.campaignName);
  }
  for (const [key, value] of kept) made.append(key, value);
  return made.toString();
};

/** Decodes percent-escapes once, or null when the text holds a broken one. */
const decodedOnce = (text: string): string | null => {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
};

/**
 * The click id an install referrer carries, if a click through the link host put one there.
 * Play hands the referrer over decoded (`service_click_id=…&utm_source=…`), but a client may
 * pass it on as it stood in the Play URL, encoded once more (`service_click_id%3D…`), or send
 * the Play URL's whole query (`id=com.app&referrer=…`): both still name the click. What is no
 * click id of the link host's shape is none.
 */
export const clickIdOfReferrer = (referrer: string | null | undefined): string | null => {
  const found = referrerParamOf(referrer, REFERRER_CLICK_ID);
  return found !== null && CLICK_ID_PATTERN.test(found) ? found : null;
};

/**
 * One parameter of an install referrer (a Google Ads click's `gclid`, the link host's click
 * id), read through the same encodings `clickIdOfReferrer` names; null when absent or empty.
 */
export const referrerParamOf = (
  referrer: string | null | undefined,
  name: string,
): string | null => {
  if (!referrer) return null;
  const read = (text: string, depth: number): string | null => {
    const params = new URLSearchParams(text);
    const found = params.get(name);
    if (found !== null) return found === "" ? null : found;
    if (depth === 0) return null;
    const inner = params.get("referrer");
    if (inner) return read(inner, depth - 1);
    const decoded = text.includes("=") ? null : decodedOnce(text);
    return decoded && decoded !== text ? read(decoded, depth - 1) : null;
  };
  return read(referrer, 2);
};

const playStorePage = (packageName: string) =>
  `https://${PLAY_HOST}/store/apps/details?id=${encodeURIComponent(packageName)}`;

const appStorePage = (appStoreId: string) =>
  `https://apps.apple.com/app/id${encodeURIComponent(appStoreId)}`;

/** The package of the app's Android build: an Android app's id, an iOS app's setting. */
const playPackageOf = (app: AppDestinations): string | null => {
  const packageName = app.platform === "android" ? app.appId : app.links?.playPackage;
  return packageName && PLAY_PACKAGE_PATTERN.test(packageName) ? packageName : null;
};

/**
 * The app's Play Store page: an Android app's id is its package; an iOS app's Android build's.
 * An Android app registered under an id no package can have (`game-android`) has none: Play
 * would show "not found", where the web URL or the landing page still serves the tap.
 */
const playPageOf = (app: AppDestinations): string | null => {
  const packageName = playPackageOf(app);
  return packageName === null ? null : playStorePage(packageName);
};

/**
 * A link that opens `url` in the app's Android build, or, where it is not installed, goes to
 * `fallback` (the landing page's Android button, the Play Store page with the click's referrer):
 * an Android intent URL (`intent://host/path?query#Intent;scheme=https;package=…;end`) for the
 * landing page's "Open" button. No App Link opens from the link host's own page (a link to its
 * own host), nor from most apps' web views; an intent link names the app by its package, and
 * the app gets `url` as an App Link would give it. Null for an app with no Android package, or
 * a URL an intent cannot carry.
 */
export const androidOpenerOf = (
  app: AppDestinations,
  url: string,
  fallback: string | null,
): string | null => {
  const packageName = playPackageOf(app);
  const parsed = URL.parse(url);
  if (packageName === null || parsed === null || !/^https?:$/.test(parsed.protocol)) return null;
  const extras = [
    `scheme=${parsed.protocol.slice(0, -1)}`,
    `package=${packageName}`,
    ...(fallback === null ? [] : [`S.browser_fallback_url=${encodeURIComponent(fallback)}`]),
  ];
  return `intent://${parsed.host}${parsed.pathname}${parsed.search}#Intent;${extras.join(";")};end`;
};

/** The app's App Store page: an iOS app's, or an Android app's iOS build's. */
const appStorePageOf = (app: AppDestinations): string | null => {
  const appStoreId = app.links?.appStoreId;
  return appStoreId ? appStorePage(appStoreId) : null;
};

/** Where a phone of the platform goes: the link's own page for it, else the app's store page. */
const phoneDestinationOf = (
  platform: Platform,
  app: AppDestinations,
  link: LinkDestinations,
): string | null =>
  platform === "android"
    ? (link.androidUrl ?? playPageOf(app))
    : (link.iosUrl ?? appStorePageOf(app));

/** Google Play's host, as a marketer may write it (`www.` or not). */
const isPlayHost = (host: string | undefined) => host === PLAY_HOST || host === `www.${PLAY_HOST}`;

const isPlayPage = (url: string) => isPlayHost(URL.parse(url)?.hostname);

export type Store = "google-play" | "app-store";

/** A button of the landing page: where a phone of its platform would have been sent. */
export interface StoreButton {
  readonly platform: Platform;
  /** The store its page is in; null for a link's own page elsewhere (another store, a site). */
  readonly store: Store | null;
  readonly url: string;
}

const STORE_HOSTS: ReadonlyMap<string, Store> = new Map([
  [PLAY_HOST, "google-play"],
  [`www.${PLAY_HOST}`, "google-play"],
  ["apps.apple.com", "app-store"],
  ["itunes.apple.com", "app-store"],
]);

/**
 * A button for each platform the link or its app has a destination for, as a redirect would
 * send a phone of that platform (the link's own page first, else the app's store page), the
 * tapper's platform first; a Play Store page carries the click's install referrer. An Android
 * device without Google Play gets no Play Store button, which it could not open (as its
 * redirect would not send it there).
 */
export const storesOf = (
  platform: DevicePlatform,
  app: AppDestinations,
  link: LinkDestinations,
  clickId: string | null,
  /** False for an Android device without Google Play (a Fire tablet, a Huawei phone). */
  googlePlay = true,
): StoreButton[] => {
  const button = (target: Platform, url: string | null): StoreButton[] => {
    if (url === null) return [];
    const location = asLocation(url, clickId, link);
    const store = STORE_HOSTS.get(URL.parse(location)?.hostname ?? "") ?? null;
    return [{ platform: target, store, url: location }];
  };
  const stores = [
    ...button("android", phoneDestinationOf("android", app, link)),
    ...button("ios", phoneDestinationOf("ios", app, link)),
  ].filter((store) => googlePlay || store.store !== "google-play");
  return platform === "ios" ? stores.reverse() : stores;
};

/**
 * A destination as a `Location` header can carry it: serialised as browsers do, the host in
 * punycode and any other non-ASCII character percent-encoded (`https://b.example/ü` becomes
 * `https://b.example/%C3%BC`). A Play Store destination gets the click's install referrer.
 */
const asLocation = (url: string, clickId: string | null, link: LinkDestinations): string => {
  const parsed = URL.parse(url);
  if (parsed === null) return encodeURI(url);
  if (isPlayHost(parsed.hostname) && clickId !== null) {
    parsed.searchParams.set(
      "referrer",
      installReferrer(clickId, link, parsed.searchParams.get("referrer")),
    );
  }
  return parsed.href;
};

/**
 * The link's web destination, else the app's web site, with the tapped URL's own parameters it
 * has none of by their name (`forwarded`: a campaign's `utm_*`, a network's `gclid`), so that
 * the site's analytics see the tap's campaign; its own are kept as they are written.
 */
export const webDestinationOf = (
  app: AppDestinations,
  link: LinkDestinations,
  forwarded: Readonly<Record<string, string>> = {},
): string | null => {
  const web = link.webUrl ?? app.links?.webUrl ?? null;
  return web === null ? null : withParamsLacking(web, forwarded);
};

/** `href` with the parameters of `params` it has none of by name; its own query as written. */
export const withParamsLacking = (
  href: string,
  params: Readonly<Record<string, string>>,
): string => {
  const parsed = URL.parse(href);
  if (parsed === null) return href;
  const lacking = new URLSearchParams(
    Object.entries(params).filter(([name]) => !parsed.searchParams.has(name)),
  ).toString();
  if (lacking === "") return href;
  parsed.search = parsed.search === "" ? lacking : `${parsed.search}&${lacking}`;
  return parsed.href;
};

/**
 * The URL a tap goes to; null when neither the link nor the app names one for the platform or
 * the web (the tap then gets the landing page). `clickId` is null for a tap that is not
 * counted (a bot, a disabled link); `forwarded`, the tapped URL's parameters a web destination
 * is given.
 */
export const destinationOf = (
  platform: DevicePlatform,
  app: AppDestinations,
  link: LinkDestinations,
  clickId: string | null,
  forwarded: Readonly<Record<string, string>> = {},
  /** False for an Android device without Google Play (a Fire tablet, a Huawei phone). */
  googlePlay = true,
): string | null => {
  const phone = platform === "other" ? null : phoneDestinationOf(platform, app, link);
  // A phone whose store has not the app goes to the web, as any device with nowhere to go: a
  // Play page it cannot open would be a tap lost. A link's own Android URL elsewhere (the
  // app's AppGallery or Amazon page) is its.
  const reachable = phone !== null && !googlePlay && isPlayPage(phone) ? null : phone;
  const chosen = reachable ?? webDestinationOf(app, link, forwarded);
  return chosen === null ? null : asLocation(chosen, clickId, link);
};

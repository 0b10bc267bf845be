/**
 * A tap on a link, as the link host takes it: the link and its app are looked up, the tap is
 * recorded as a click (unless the link is disabled or the caller is a bot or a preview
 * fetcher), and the caller is sent on by its platform. A tap is never refused for a failure to
 * record it: the person who tapped still reaches the store, and the failure is logged.
 */

import { LINK_LIMITS } from "../links/link-request.ts";
import type { AppStore } from "../ports/apps.ts";
import type { ClickSink } from "../ports/clicks.ts";
import type { CountryResolver } from "../ports/geo.ts";
import type { Link, LinkStore } from "../ports/links.ts";
import type { Touch } from "../ports/touches.ts";
import { destinationOf } from "./destination.ts";
import { DEEPLINK_ID_PATTERN, newClickId } from "./ids.ts";
import { normalizeIp } from "./ip.ts";
import { adFieldsOf, firstLanguage } from "./touch.ts";
import { TOUCH_LIMITS } from "./touch-request.ts";
import { type DeviceTraits, deviceTraits } from "./user-agent.ts";

export interface Tap {
  readonly deeplinkId: string;
  /** The tapped URL's query, a repeated name's last value. */
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly sourceIp: string | null;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

export type TapAnswer =
  | { readonly kind: "redirect"; readonly location: string; readonly clickId: string | null }
  | { readonly kind: "not-found" };

export interface ClickDeps {
  readonly links: Pick<LinkStore, "get">;
  readonly apps: Pick<AppStore, "get">;
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
    if (value === undefined || key.length === 0 || key.length > LINK_LIMITS.maxParamKeyLength) {
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
  urlParams: keptParams(tap.query),
});

export const createClickRecorder = (deps: ClickDeps) => {
  const now = deps.now ?? (() => new Date());

  const record = async (click: Touch) => {
    try {
      await deps.clicks.record(click);
    } catch (error) {
      deps.onRecordFailure(error, click);
    }
  };

  return async (tap: Tap): Promise<TapAnswer> => {
    if (!DEEPLINK_ID_PATTERN.test(tap.deeplinkId)) return { kind: "not-found" };
    const link = await deps.links.get(tap.deeplinkId);
    const app = link && (await deps.apps.get(link.appId));
    if (!link || !app) return { kind: "not-found" };
    const traits = deviceTraits(tap.headers["user-agent"]);
    const counted = !link.disabled && !traits.isBot;
    const clickId = counted ? newClickId() : null;
    // A disabled link sends every tap to the web, as if from a desktop.
    const platform = link.disabled ? "other" : traits.platform;
    const location = destinationOf(platform, app, link, clickId);
    if (location === null) return { kind: "not-found" };
    if (clickId !== null) await record(clickOf(link, tap, traits, clickId, deps, now()));
    return { kind: "redirect", location, clickId };
  };
};

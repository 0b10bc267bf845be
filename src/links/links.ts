/**
 * Making and managing an app's links. A link's URL is `<link host>/<deeplink_id>` with its
 * `deep_link_path` and custom parameters in the query, so that the SDKs, which parse a tapped
 * link from its URL alone, hand the app both (sdk/conformance/links.json). The link host is
 * the app's first own host name when it has one, else the service's.
 */
import { costColumns, costOfFields } from "../costs/touch-cost.ts";
import { NotFoundError, UnauthorizedError, ValidationError } from "../domain/errors.ts";
import type { CostModel } from "../domain/touch.ts";
import type { AppStore } from "../ports/apps.ts";
import type { Link, LinkChange, LinkStore } from "../ports/links.ts";
import { newDeeplinkId } from "../touches/ids.ts";
import { checked } from "../validation/issues.ts";
import { linkHostsOf } from "./app-settings.ts";
import { LINK_LIMITS } from "./link-limits.ts";
import { type LinkRequest, linkRequestSchema, linkUpdateSchema } from "./link-request.ts";

/** A link as the API answers it. */
export interface LinkAnswer {
  deeplink_id: string;
  url: string;
  media_source: string;
  campaign_id: string | null;
  campaign_name: string | null;
  adset_id: string | null;
  adset_name: string | null;
  ad_id: string | null;
  ad_name: string | null;
  deep_link_path: string | null;
  params: Record<string, string>;
  android_url: string | null;
  ios_url: string | null;
  web_url: string | null;
  disabled: boolean;
  landing_page: boolean;
  forward_params: boolean;
  preview_title: string | null;
  preview_description: string | null;
  preview_image_url: string | null;
  cost_model: CostModel | null;
  cost_value: number | null;
  cost_currency: string | null;
  created_at: string;
}

export const linkAnswer = (link: Link): LinkAnswer => ({
  deeplink_id: link.deeplinkId,
  url: link.url,
  media_source: link.mediaSource,
  campaign_id: link.campaignId,
  campaign_name: link.campaignName,
  adset_id: link.adsetId,
  adset_name: link.adsetName,
  ad_id: link.adId,
  ad_name: link.adName,
  deep_link_path: link.deepLinkPath,
  params: { ...link.params },
  android_url: link.androidUrl,
  ios_url: link.iosUrl,
  web_url: link.webUrl,
  disabled: link.disabled,
  landing_page: link.landingPage,
  forward_params: link.forwardParams,
  preview_title: link.previewTitle,
  preview_description: link.previewDescription,
  preview_image_url: link.previewImageUrl,
  ...costColumns(link.cost),
  created_at: link.createdAt,
});

/** The URL of a link: its host, its id, and what the app reads from its query. */
export const linkUrl = (
  base: string,
  deeplinkId: string,
  query: { deepLinkPath: string | null; params: Readonly<Record<string, string>> },
): string => {
  const url = new URL(`${base.replace(/\/+$/, "")}/${deeplinkId}`);
  if (query.deepLinkPath !== null) url.searchParams.set("deep_link_path", query.deepLinkPath);
  for (const [key, value] of Object.entries(query.params)) url.searchParams.set(key, value);
  return url.toString();
};

export const LINK_PAGE_LIMITS = { defaultLimit: 50, maxLimit: 200 } as const;

export interface LinksDeps {
  readonly links: LinkStore;
  readonly apps: Pick<AppStore, "get">;
  /**
   * The service's own link host, for an app with none of its own: `https://go.example.com`
   * (a function: the embedded one is known once its listener is up).
   */
  readonly linkBaseUrl: () => string;
  readonly now?: () => Date;
  readonly newId?: () => string;
}

/** How many fresh ids to try before a collision (2^-65 each) is taken for a broken generator. */
const ID_ATTEMPTS = 3;

/**
 * The scheme of a link on an app's own host: https, a domain's, but for a host with a port,
 * which only a link host of one's own machine has (the embedded one, plain HTTP): that of the
 * service's own link host.
 */
const schemeOf = (host: string, linkBaseUrl: string): string =>
  host.includes(":") ? new URL(linkBaseUrl).protocol : "https:";

export const createLinks = (deps: LinksDeps) => {
  const now = deps.now ?? (() => new Date());
  const newId = deps.newId ?? newDeeplinkId;

  const find = async (appId: string, deeplinkId: string): Promise<Link> => {
    const link = await deps.links.get(deeplinkId);
    // Another app's link is as unknown as one that does not exist.
    if (!link || link.appId !== appId) throw new NotFoundError(`No link ${deeplinkId}.`);
    return link;
  };

  return {
    async create(appId: string, body: unknown): Promise<Link> {
      const request = checked(linkRequestSchema, body, "body");
      const app = await deps.apps.get(appId);
      if (!app) throw new UnauthorizedError();
      const host = linkHostsOf(app)[0];
      const base = host ? `${schemeOf(host, deps.linkBaseUrl())}//${host}` : deps.linkBaseUrl();
      for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
        const link = newLink(appId, request, newId(), base, now());
        // Every id has the same length: the first says whether the URL fits.
        if (link.url.length > LINK_LIMITS.maxLinkUrlLength) {
          throw new ValidationError(
            `body: the link's URL would be ${link.url.length} characters, over the ${LINK_LIMITS.maxLinkUrlLength} a link may have; shorten its params or deep_link_path`,
          );
        }
        if (await deps.links.create(link)) return link;
      }
      throw new Error("Could not find a free deep link id");
    },
    get: find,
    list: (appId: string, page: { limit: number; after?: string }) =>
      deps.links.listByApp(appId, page),
    /** A `PATCH` body (src/links/link-request.ts); a ValidationError names a bad field. */
    async update(appId: string, deeplinkId: string, body: unknown): Promise<Link> {
      const update = checked(linkUpdateSchema, body, "body");
      // null clears a preview field (the app's default shows again); absent leaves it.
      const change: LinkChange = {
        disabled: update.disabled,
        // null clears a destination (the app's store page or web URL again); absent leaves it.
        androidUrl: update.android_url,
        iosUrl: update.ios_url,
        webUrl: update.web_url,
        landingPage: update.landing_page ?? undefined,
        forwardParams: update.forward_params ?? undefined,
        previewTitle: update.preview_title,
        previewDescription: update.preview_description,
        previewImageUrl: update.preview_image_url,
        // All three, or all three null to clear it; none leaves it.
        cost: costOfFields(update),
      };
      const link = await deps.links.update(appId, deeplinkId, change);
      if (!link) throw new NotFoundError(`No link ${deeplinkId}.`);
      return link;
    },
  };
};

const newLink = (
  appId: string,
  request: LinkRequest,
  deeplinkId: string,
  base: string,
  createdAt: Date,
): Link => {
  const deepLinkPath = request.deep_link_path ?? null;
  const params = request.params ?? {};
  return {
    deeplinkId,
    appId,
    url: linkUrl(base, deeplinkId, { deepLinkPath, params }),
    mediaSource: request.media_source,
    campaignId: request.campaign_id ?? null,
    campaignName: request.campaign_name ?? null,
    adsetId: request.adset_id ?? null,
    adsetName: request.adset_name ?? null,
    adId: request.ad_id ?? null,
    adName: request.ad_name ?? null,
    deepLinkPath,
    params,
    androidUrl: request.android_url ?? null,
    iosUrl: request.ios_url ?? null,
    webUrl: request.web_url ?? null,
    disabled: false,
    landingPage: request.landing_page ?? false,
    forwardParams: request.forward_params ?? true,
    previewTitle: request.preview_title ?? null,
    previewDescription: request.preview_description ?? null,
    previewImageUrl: request.preview_image_url ?? null,
    cost: costOfFields(request) ?? null,
    createdAt: createdAt.toISOString(),
  };
};

/**
 * An app's SKAdNetwork settings as the API, the CLI and the dashboard change them: its
 * conversion value schema (checked, then saved as the next version) and its own names of ad
 * network ids; and its stored postbacks, listed a page at a time. An app's postbacks are those
 * stored under it, and those Apple's production key verified that are kept under no app for the
 * App Store id its settings have now (received before the id was set, or by a receiver that had
 * not yet seen it): Apple signed that id for an install, so they are the app's.
 */

import { NotFoundError, ValidationError } from "../domain/errors.ts";
import { LINK_LIMITS } from "../links/link-limits.ts";
import type {
  ApplePostbackPage,
  ApplePostbackStore,
  StoredApplePostback,
} from "../ports/apple-postbacks.ts";
import type { App, AppStore } from "../ports/apps.ts";
import type { ReportEngine } from "../ports/reports.ts";
import { joinProblems } from "../validation/issues.ts";
import { hasControlCharacter } from "../validation/text.ts";
import { AD_NETWORKS, mediaSourceOf } from "./ad-networks.ts";
import { type ConversionSchema, nextSchema, parseConversionSchema } from "./conversion-schema.ts";
import { counts } from "./postbacks.ts";
import { groupsOf, skadnetworkReport } from "./report.ts";

export const POSTBACK_PAGE_LIMITS = { defaultLimit: 100, maxLimit: 1_000 } as const;
/** A listing spans at most this many days. */
export const MAX_LISTING_DAYS = 366;

/** `<id>.skadnetwork` as networks register them; Apple's own examples name `com.example`. */
const NETWORK_ID = /^(?=.{3,100}$)[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)+$/;
/**
 * A media source as a link or a touch takes one (`My Network!` too): the name of an ad network id
 * must be able to name whatever source its clicks are credited to.
 */
const isMediaSource = (source: unknown): source is string =>
  typeof source === "string" &&
  source.trim() !== "" &&
  source.length <= LINK_LIMITS.maxFieldLength &&
  source.isWellFormed() &&
  !hasControlCharacter(source);
const MEDIA_SOURCE_RULE = `must be a media source of 1 to ${LINK_LIMITS.maxFieldLength} characters, not blank, without control characters`;

/**
 * How a listing's cursor begins once the app's own postbacks are listed: the rest of its pages
 * are those it has by its App Store id (a store's cursor is base64url, which has no `.`).
 */
const UNCLAIMED_CURSOR = "unclaimed.";

type Range = { readonly from: Date; readonly to: Date };

/** Every postback of a listing's pages. */
const everyPage = async (
  list: (page: { readonly limit: number; readonly after?: string }) => Promise<ApplePostbackPage>,
): Promise<StoredApplePostback[]> => {
  const all: StoredApplePostback[] = [];
  let after: string | undefined;
  do {
    const page = await list({ limit: POSTBACK_PAGE_LIMITS.maxLimit, ...(after ? { after } : {}) });
    all.push(...page.postbacks);
    after = page.next ?? undefined;
  } while (after);
  return all;
};

export interface SkadnetworkSettingsDeps {
  readonly apps: Pick<AppStore, "get" | "update">;
  readonly postbacks?: Pick<ApplePostbackStore, "listByApp" | "listUnclaimed">;
  /**
   * The report over the lake's query engine (the API's); without it the report reads the stored
   * postbacks one by one (the command line's), which gives the same figures.
   */
  readonly reports?: Pick<ReportEngine, "skadnetwork">;
  readonly now?: () => Date;
}

/** A stored postback as the API lists it. */
export const postbackAnswer = (
  postback: StoredApplePostback,
  networks: Readonly<Record<string, string>>,
) => ({
  kind: postback.kind,
  version: postback.version,
  received_at: postback.receivedAt,
  ad_network_id: postback.adNetworkId,
  media_source: mediaSourceOf(postback.adNetworkId, networks),
  source_identifier: postback.sourceIdentifier,
  app_store_id: postback.appStoreId,
  transaction_id: postback.transactionId,
  redownload: postback.redownload,
  source_app_id: postback.sourceAppId,
  source_domain: postback.sourceDomain,
  fidelity_type: postback.fidelityType,
  did_win: postback.didWin,
  postback_sequence_index: postback.sequenceIndex,
  conversion_value: postback.conversionValue,
  coarse_conversion_value: postback.coarseValue,
  country_code: postback.countryCode,
  conversion_type: postback.conversionType,
  verification: postback.verification.status,
  environment: postback.verification.environment,
  values_disputed: postback.valuesDisputed,
  counted: counts(postback),
});
export type PostbackAnswer = ReturnType<typeof postbackAnswer>;

export const createSkadnetworkSettings = (deps: SkadnetworkSettingsDeps) => {
  const now = deps.now ?? (() => new Date());
  const appOf = async (appId: string): Promise<App> => {
    const app = await deps.apps.get(appId);
    if (!app) throw new NotFoundError(`App ${appId} does not exist.`);
    return app;
  };
  return {
    async schema(appId: string): Promise<ConversionSchema | null> {
      return (await appOf(appId)).skadnetwork?.schema ?? null;
    },
    /** Saves the body as the app's schema's next version; a ValidationError names what is wrong. */
    async saveSchema(appId: string, body: unknown): Promise<ConversionSchema> {
      const request = parseConversionSchema(body);
      // The next version of the schema as stored, even when another save came in between.
      const app = await deps.apps.update(appId, (stored) => ({
        ...stored,
        skadnetwork: {
          ...stored.skadnetwork,
          schema: nextSchema(stored.skadnetwork?.schema, request, now()),
        },
      }));
      if (!app.skadnetwork?.schema) throw new Error(`App ${appId}'s schema was not saved`);
      return app.skadnetwork.schema;
    },
    /** The catalog's ids and the app's own, each with the media source it is reported as. */
    async networks(appId: string) {
      const own = (await appOf(appId)).skadnetwork?.networks ?? {};
      const ids = new Set([...AD_NETWORKS.map((network) => network.id), ...Object.keys(own)]);
      return [...ids].sort().map((id) => ({
        ad_network_id: id,
        media_source: mediaSourceOf(id, own),
        own: Object.hasOwn(own, id),
      }));
    },
    /** Replaces the app's own names of ad network ids (`{}` clears them). */
    async saveNetworks(appId: string, body: unknown) {
      const networks =
        typeof body === "object" && body !== null && "networks" in body
          ? (body as { networks: unknown }).networks
          : undefined;
      if (typeof networks !== "object" || networks === null || Array.isArray(networks)) {
        throw new ValidationError(
          "body.networks: must be an object of ad network id to media source",
        );
      }
      const entries = Object.entries(networks);
      if (entries.length > 500) throw new ValidationError("body.networks: at most 500 ids");
      // Every entry's problems at once: a form naming one network hears of its id and its
      // media source together.
      // An id is one network whatever its case, and is kept in lower case: two spellings of one
      // would keep whichever came last, and the other's media source would be lost unsaid.
      const firstSpelling = new Map<string, string>();
      const problems = entries.flatMap(([id, source]) => {
        const first = firstSpelling.get(id.toLowerCase());
        if (first === undefined) firstSpelling.set(id.toLowerCase(), id);
        return [
          ...(NETWORK_ID.test(id)
            ? []
            : [`body.networks: ${id} is not an ad network id (<id>.skadnetwork)`]),
          ...(first === undefined
            ? []
            : [`body.networks: ${first} and ${id} are one ad network id, whatever its case`]),
          ...(isMediaSource(source) ? [] : [`body.networks.${id}: ${MEDIA_SOURCE_RULE}`]),
        ];
      });
      if (problems.length > 0) throw new ValidationError(joinProblems(problems));
      const named = Object.fromEntries(
        entries.map(([id, source]) => [id.toLowerCase(), String(source)]),
      );
      await deps.apps.update(appId, (stored) => ({
        ...stored,
        skadnetwork: { ...stored.skadnetwork, networks: named },
      }));
      return this.networks(appId);
    },
    /** The overview's SKAdNetwork section for the postbacks received in [from, to). */
    async report(
      appId: string,
      range: Range,
      include: { readonly development?: boolean; readonly unverified?: boolean } = {},
    ) {
      const app = await appOf(appId);
      const postbacks = () => {
        if (!deps.postbacks) throw new Error("No postback store");
        return deps.postbacks;
      };
      const appStoreId = app.links?.appStoreId;
      // Those kept under no app have no lake row: read from the table, each once (one item a
      // postback, and none of them under the app).
      const unclaimed = appStoreId
        ? groupsOf(await everyPage((page) => postbacks().listUnclaimed(appStoreId, range, page)))
        : [];
      const own = deps.reports
        ? await deps.reports.skadnetwork({ appId, ...range })
        : groupsOf(await everyPage((page) => postbacks().listByApp(appId, range, page)));
      return skadnetworkReport([...own, ...unclaimed], {
        schema: app.skadnetwork?.schema ?? null,
        networks: app.skadnetwork?.networks ?? {},
        include,
      });
    },
    /**
     * The app's postbacks received in [from, to), a page at a time: those stored under it,
     * oldest first, then those it has by its App Store id, oldest first.
     */
    async postbacks(
      appId: string,
      range: Range,
      page: { readonly limit: number; readonly after?: string },
    ) {
      if (!deps.postbacks) throw new Error("No postback store");
      if (range.to.getTime() <= range.from.getTime()) {
        throw new ValidationError("query.to: must be after from");
      }
      if (range.to.getTime() - range.from.getTime() > MAX_LISTING_DAYS * 86_400_000) {
        throw new ValidationError(
          `query: from and to must be at most ${MAX_LISTING_DAYS} days apart`,
        );
      }
      const app = await appOf(appId);
      const networks = app.skadnetwork?.networks ?? {};
      const appStoreId = app.links?.appStoreId;
      const ownListed = page.after?.startsWith(UNCLAIMED_CURSOR) === true;
      const own: ApplePostbackPage = ownListed
        ? { postbacks: [], next: null }
        : await deps.postbacks.listByApp(appId, range, page);
      let listed = own.postbacks;
      let next = own.next;
      if (next === null && appStoreId) {
        const room = page.limit - listed.length;
        if (room > 0) {
          const after = ownListed ? page.after?.slice(UNCLAIMED_CURSOR.length) : undefined;
          const unclaimed = await deps.postbacks.listUnclaimed(appStoreId, range, {
            limit: room,
            ...(after ? { after } : {}),
          });
          listed = [...listed, ...unclaimed.postbacks];
          next = unclaimed.next === null ? null : `${UNCLAIMED_CURSOR}${unclaimed.next}`;
        } else {
          // A full last page of its own: those it has by its App Store id come next.
          next = UNCLAIMED_CURSOR;
        }
      }
      return {
        data: listed.map((postback) => postbackAnswer(postback, networks)),
        next_cursor: next,
      };
    },
  };
};

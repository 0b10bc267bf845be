/**
 * `POST /v1/touches`: clicks and impressions an ad network reports server to server. Each
 * touch is checked on its own; the good ones go to the touch store and the lake together, and
 * the answer gives each its click id. A touch with the network's own click id is taken once:
 * its click id is derived from (app, media source, network click id), so a repeat, in the
 * same request or a later one, answers the first one's id and stores nothing new.
 */
import { costOfFields } from "../costs/touch-cost.ts";
import { UnauthorizedError, ValidationError } from "../domain/errors.ts";
import type { FxRates } from "../fx/ecb-rates.ts";
import type { AppStore } from "../ports/apps.ts";
import type { CountryResolver } from "../ports/geo.ts";
import type { RecordStream } from "../ports/lake.ts";
import type { Link, LinkStore } from "../ports/links.ts";
import type { Touch, TouchStore } from "../ports/touches.ts";
import { newClickId } from "./ids.ts";
import { networkTouchId, requestTouchId, touchRow } from "./touch.ts";
import { parseTouch, parseTouchesEnvelope, type TouchRequest } from "./touch-request.ts";
import { deviceTraits } from "./user-agent.ts";

export interface TouchesAnswer {
  accepted: { index: number; click_id: string; duplicate: boolean }[];
  rejected: { index: number; error: string; detail: string }[];
}

export interface NetworkTouchDeps {
  readonly apps: Pick<AppStore, "get">;
  readonly links: Pick<LinkStore, "get">;
  readonly touches: Pick<TouchStore, "put" | "putIfAbsent" | "delete">;
  readonly stream: RecordStream;
  readonly countries: CountryResolver;
  /** The ECB rates a touch's cost is converted to USD with, for the lake. */
  readonly fx: Pick<FxRates, "toUsd">;
  readonly now?: () => Date;
}

const UNPROCESSABLE = "Unprocessable Entity";

const touchOf = (
  appId: string,
  request: TouchRequest,
  link: Link | undefined,
  countries: CountryResolver,
  receivedAt: Date,
  /** The request's `Idempotency-Key` and the touch's place in it, when the network gave one. */
  sent: { readonly key: string | undefined; readonly index: number },
): Touch => {
  const traits = deviceTraits(request.user_agent);
  const networkClickId = request.click_id ?? null;
  const ip = request.ip ?? null;
  // What the network says of the campaign wins; what it leaves out, the named link fills.
  return {
    clickId:
      networkClickId !== null
        ? networkTouchId(appId, request.media_source, networkClickId)
        : sent.key !== undefined
          ? requestTouchId(appId, sent.key, sent.index, request)
          : newClickId(),
    appId,
    touchType: request.touch_type,
    source: "network",
    touchTime: request.touch_time,
    receivedAt: receivedAt.toISOString(),
    deeplinkId: link?.deeplinkId ?? null,
    mediaSource: request.media_source,
    campaignId: request.campaign_id ?? link?.campaignId ?? null,
    campaignName: request.campaign_name ?? link?.campaignName ?? null,
    adsetId: request.adset_id ?? link?.adsetId ?? null,
    adsetName: request.adset_name ?? link?.adsetName ?? null,
    adId: request.ad_id ?? link?.adId ?? null,
    adName: request.ad_name ?? link?.adName ?? null,
    networkClickId,
    ip,
    userAgent: request.user_agent ?? null,
    platform: traits.platform,
    osVersion: traits.osVersion,
    deviceModel: traits.deviceModel,
    language: null,
    country: countries.countryOf({ sourceIp: ip, headers: {} }),
    maid: request.maid ?? null,
    params: {
      ...(link?.deepLinkPath ? { deep_link_path: link.deepLinkPath } : {}),
      ...link?.params,
      ...request.params,
    },
    urlParams: {},
    cost: costOfFields(request) ?? link?.cost ?? null,
  };
};

export const createNetworkTouches = (deps: NetworkTouchDeps) => {
  const now = deps.now ?? (() => new Date());

  /**
   * `idempotencyKey`: the request's `Idempotency-Key`, which gives the touches without a network
   * click id ids of their own that the same request sent again gives them again.
   */
  return async (appId: string, body: unknown, idempotencyKey?: string): Promise<TouchesAnswer> => {
    const app = await deps.apps.get(appId);
    if (!app) throw new UnauthorizedError();
    const envelope = parseTouchesEnvelope(body);
    if (!envelope.ok) throw new ValidationError(envelope.detail);
    const receivedAt = now();
    const answer: TouchesAnswer = { accepted: [], rejected: [] };

    // Checked one by one; a named link must be one of the app's.
    const checked: { index: number; touch: Touch }[] = [];
    await Promise.all(
      envelope.value.map(async (raw, index) => {
        const parsed = parseTouch(raw, receivedAt);
        if (!parsed.ok) {
          answer.rejected.push({ index, error: UNPROCESSABLE, detail: parsed.detail });
          return;
        }
        const named = parsed.value.deeplink_id;
        const link = named ? await deps.links.get(named) : undefined;
        if (named && link?.appId !== appId) {
          answer.rejected.push({
            index,
            error: UNPROCESSABLE,
            detail: "deeplink_id: is not one of the app's links",
          });
          return;
        }
        checked.push({
          index,
          touch: touchOf(appId, parsed.value, link, deps.countries, receivedAt, {
            key: idempotencyKey,
            index,
          }),
        });
      }),
    );
    checked.sort((a, b) => a.index - b.index);

    // A click id seen earlier in the request is a repeat of that touch.
    const firsts = new Map<string, Touch>();
    const repeats: { index: number; clickId: string }[] = [];
    const unique: { index: number; touch: Touch }[] = [];
    for (const entry of checked) {
      if (firsts.has(entry.touch.clickId)) {
        repeats.push({ index: entry.index, clickId: entry.touch.clickId });
      } else {
        firsts.set(entry.touch.clickId, entry.touch);
        unique.push(entry);
      }
    }

    // An id another request may have sent (a network's click id, or one the Idempotency-Key
    // gives) is claimed one by one, so that a touch sent again keeps its first receipt (the
    // installs it counts for); random ids at once. Every touch the answer accepts has its lake
    // row put by this request, a repeat's too (the lake's readers count a click id once): the
    // request that stored it may still be waiting on the lake, and fail after this one answers.
    // So on a failure only the random ids this request stored are taken back, which no other
    // request can name; a touch of a repeatable id stays, as a repeat may have answered for it,
    // and the request sent again puts its lake row.
    const repeatable = (touch: Touch) =>
      touch.networkClickId !== null || idempotencyKey !== undefined;
    const stored: { index: number; touch: Touch; created: boolean }[] = [];
    try {
      const random = unique.filter((entry) => !repeatable(entry.touch));
      await deps.touches.put(random.map((entry) => entry.touch));
      stored.push(...random.map((entry) => ({ ...entry, created: true })));
      const claims = await Promise.allSettled(
        unique
          .filter((entry) => repeatable(entry.touch))
          .map(async (entry) => ({
            index: entry.index,
            ...(await deps.touches.putIfAbsent(entry.touch)),
          })),
      );
      for (const claim of claims) if (claim.status === "fulfilled") stored.push(claim.value);
      const failed = claims.find((claim) => claim.status === "rejected");
      if (failed) throw failed.reason;
      await deps.stream.put(stored.map((entry) => touchRow(entry.touch, deps.fx)));
    } catch (error) {
      await deps.touches.delete(
        stored
          .filter((entry) => entry.created && !repeatable(entry.touch))
          .map((entry) => entry.touch.clickId),
      );
      throw error;
    }

    for (const entry of stored) {
      answer.accepted.push({
        index: entry.index,
        click_id: entry.touch.clickId,
        duplicate: !entry.created,
      });
    }
    for (const repeat of repeats) {
      answer.accepted.push({ index: repeat.index, click_id: repeat.clickId, duplicate: true });
    }
    answer.accepted.sort((a, b) => a.index - b.index);
    answer.rejected.sort((a, b) => a.index - b.index);
    return answer;
  };
};

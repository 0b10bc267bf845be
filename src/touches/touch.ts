/**
 * A touch, from a tap or a network's report, as the two stores keep it: whole in the touch
 * store until it expires, and as a lake row with the IP truncated and no user agent or
 * advertising id, for reports.
 */
import { createHash } from "node:crypto";
import { isIP } from "node:net";
import { costColumns, touchCostUsd } from "../costs/touch-cost.ts";
import type { FxRates } from "../fx/ecb-rates.ts";
import type { LakeRecord } from "../lake/lake-tables.ts";
import type { AdFields } from "../ports/links.ts";
import type { Touch } from "../ports/touches.ts";
import type { TouchColumnName } from "../record/touch-columns.ts";
import { ALPHABET, CLICK_ID_LENGTH } from "./ids.ts";
import { truncatedIp } from "./ip.ts";

/** A value shaped as an advertising id (IDFA, GAID, OAID) or an IDFV: a UUID. */
const DEVICE_ID_VALUE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A parameter named for a device's id or address, or a person's agent, however a network spells
 * it (`idfa`, `gaid_md5`, `sha1_idfa`, `advertising_id`, `android_id`, `device_id`, `udid`,
 * `imei`, `mac`, `device_ip`, `ip`, `ua`, `user-agent`). A name that only holds a short word of
 * one (`ip_country`, `ua_campaign`) is a campaign's own.
 */
const DEVICE_KEY = new RegExp(
  [
    "(^|[^a-z])(idfa|idfv|gaid|aaid|oaid|maid|ifa|advertising[-_]?id|android[-_]?id|device[-_]?id|udid|imei|mac([-_]?address)?)([^a-z]|$)",
    "(^|[^a-z])ip([-_]?address)?$",
    "^ua$",
    "(^|[^a-z])user[-_]?agent([^a-z]|$)",
  ].join("|"),
  "i",
);

/**
 * Whether a value is an IP address as a network may pass one on: bare, with a port
 * (`81.2.69.170:443`, `[2001:db8::1]:443`), or a forwarded list of them.
 */
const holdsIp = (value: string): boolean =>
  value.split(",").some((part) => {
    const text = part.trim();
    const bracketed = /^\[([^\]]+)\](:\d+)?$/.exec(text)?.[1];
    const host = bracketed ?? (/^[^:]+:\d+$/.test(text) ? text.slice(0, text.indexOf(":")) : text);
    return isIP(host) !== 0;
  });

/**
 * The tapped URL's or a network's parameters as a touch's lake row keeps them: what no deletion
 * request can reach (a click names no install) must name no device, so a value shaped as an
 * advertising id or an IP address, and a parameter named for one (a network's `{idfa}` macro in
 * a click URL), are left out. The touch store keeps them whole until the touch expires, for
 * matching.
 */
export const lakeParams = (params: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(params).filter(
      ([key, value]) =>
        !DEVICE_KEY.test(key) && !DEVICE_ID_VALUE.test(value.trim()) && !holdsIp(value),
    ),
  );

/**
 * The touch's lake row; its cost in USD is converted here, at the ECB rate of the touch's UTC
 * day (src/costs/touch-cost.ts says which touches cost something themselves).
 */
export const touchRow = (touch: Touch, fx: Pick<FxRates, "toUsd">): LakeRecord => {
  const row: Record<TouchColumnName, string | number | null> = {
    click_id: touch.clickId,
    touch_type: touch.touchType,
    touch_time: touch.touchTime,
    received_at: touch.receivedAt,
    source: touch.source,
    deeplink_id: touch.deeplinkId,
    media_source: touch.mediaSource,
    campaign_id: touch.campaignId,
    campaign_name: touch.campaignName,
    adset_id: touch.adsetId,
    adset_name: touch.adsetName,
    ad_id: touch.adId,
    ad_name: touch.adName,
    network_click_id: touch.networkClickId,
    ip_truncated: truncatedIp(touch.ip),
    country: touch.country,
    platform: touch.platform,
    os_version: touch.osVersion,
    device_model: touch.deviceModel,
    language: touch.language,
    // A link's own parameters are its marketer's, the same on every tap; a network's and the
    // tapped URL's may carry a device's.
    params: JSON.stringify({
      ...(touch.source === "link" ? touch.params : lakeParams(touch.params)),
      ...lakeParams(touch.urlParams),
    }),
    ...costColumns(touch.cost),
    cost_usd: touchCostUsd(touch.cost, touch.touchType, touch.touchTime.slice(0, 10), fx),
  };
  return { app_id: touch.appId, ...row };
};

/** A touch, link or result that names no campaign, ad set or ad. */
export const NO_CAMPAIGN = {
  campaignId: null,
  campaignName: null,
  adsetId: null,
  adsetName: null,
  adId: null,
  adName: null,
} as const;

/** What a link credits, for a touch of it. */
export const adFieldsOf = (fields: AdFields): AdFields => ({
  mediaSource: fields.mediaSource,
  campaignId: fields.campaignId,
  campaignName: fields.campaignName,
  adsetId: fields.adsetId,
  adsetName: fields.adsetName,
  adId: fields.adId,
  adName: fields.adName,
});

/**
 * The click id of a network's touch, derived from what names it (the app, the network and the
 * network's own id), so a report sent twice is one touch: the store takes the second as a
 * repeat. Shaped like a random click id.
 */
export const networkTouchId = (appId: string, mediaSource: string, networkClickId: string) =>
  derivedTouchId([appId, mediaSource, networkClickId]);

/**
 * The click id of a touch without the network's own id, in a request the network named with an
 * `Idempotency-Key`: derived from the key, the touch's place and the touch itself, so the same
 * request sent again (after a failure that left part of it in the lake) records each touch
 * under the same id, which readers count once.
 */
export const requestTouchId = (
  appId: string,
  idempotencyKey: string,
  index: number,
  touch: unknown,
) => derivedTouchId(["request", appId, idempotencyKey, String(index), JSON.stringify(touch)]);

/** A click id derived from what names the touch, shaped like a random one. */
const derivedTouchId = (parts: readonly string[]) => {
  const digest = createHash("sha256").update(JSON.stringify(parts)).digest();
  let id = "";
  for (let i = 0; i < CLICK_ID_LENGTH; i++) id += ALPHABET[(digest[i] ?? 0) % ALPHABET.length];
  return id;
};

/** The first language of an `Accept-Language` header: `de-CH,de;q=0.9` → `de-CH`. */
export const firstLanguage = (header: string | null | undefined): string | null => {
  const first = header?.split(",")[0]?.split(";")[0]?.trim();
  return first && /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(first) ? first : null;
};

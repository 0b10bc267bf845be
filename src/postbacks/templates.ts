/**
 * Filling a postback's templates from its facts.
 *
 * A macro is `{name}` (Adjust's placeholder syntax: braces never occur in the URLs and bodies
 * partners define, so any text between them that is a macro's name is one). `{partner.<name>}`
 * is a value the advertiser gave, `{click.<name>}` a parameter of the tapped link's own URL
 * (where networks put their click id and sub-parameters). A macro is filled
 *
 * - in a URL: URL-encoded (`a b` gives `a%20b`), so a value never adds a parameter or a path;
 *   a URL template may begin with `{partner.<name>}` whose value is a whole https URL;
 * - in a header value: as it is, without control characters, so it never adds a header;
 * - in a JSON body: in the template's string values, JSON-escaped (the body is parsed, filled
 *   and serialised again, so a value never adds a key). A string value that is one macro alone
 *   becomes that macro's value: a number for a numeric macro (`"{install_unix_ts}"` gives
 *   `1790000000`), and, when empty, the key is left out (in an array, the element is `""`).
 *
 * A macro the service does not know, or a fact it does not have, is empty. Device ids (the
 * advertising id, the IDFV) and the IP address are filled only where the install's consent
 * allows sharing them with ad networks (deviceDataShareable) and, on iOS, App Tracking
 * Transparency authorised tracking (trackingAllowed), and the attribution's facts (the
 * media source, campaign, click) only for the partner that won the install: one network never
 * learns of another's campaigns.
 */
import { createHash } from "node:crypto";
import { adUserDataOf, allowsAdUserData, type Consent } from "../domain/consent.ts";
import type { AttStatus, Os } from "../domain/install-facts.ts";
import type { TouchType } from "../domain/touch.ts";
import type { AttributionResult } from "../ports/attributions.ts";
import type { AdFields } from "../ports/links.ts";
import type { SendRevenue } from "../ports/postbacks.ts";
import type { PlatformRequest } from "./partners.ts";
import { REQUEST_LIMITS } from "./url-safety.ts";

/** The winning touch, as a postback reads it. */
export interface PostbackTouch extends AdFields {
  /** The service's id of the touch; null for Apple's attribution, which names no stored touch. */
  readonly clickId: string | null;
  /** ISO 8601 UTC. */
  readonly touchTime: string;
  /** `click` (click-through) or `impression` (view-through); null when not known. */
  readonly touchType: TouchType | null;
  /** The network's own click id, when the network reported the click. */
  readonly networkClickId: string | null;
  /** The tapped URL's own query: a network's click id and sub-parameters. */
  readonly urlParams: Readonly<Record<string, string>>;
}

/** What a postback may tell of an install. */
export interface PostbackInstall {
  /** The app's id as registered with the service. */
  readonly appId: string;
  /**
   * The app's id on the install's platform: the registered one, but on a phone of the app's
   * other store, that build's id (an iOS app's Play package, an Android app's iOS bundle id)
   * when the app sets it.
   */
  readonly platformAppId: string;
  /** The App Store's numeric id of an iOS app, when the app set it. */
  readonly appStoreId: string | null;
  readonly platform: Os;
  readonly serviceId: string;
  /** GAID or IDFA as the SDK sent it. */
  readonly advertisingId: string | null;
  readonly attStatus: AttStatus | null;
  readonly idfv: string | null;
  /**
   * ISO 8601: the install's first open as the service keeps it, on the service's clock when the
   * device's was off (the install event's time in the export).
   */
  readonly firstOpenTime: string;
  /** `new_install` or `reinstall_same_device`, as the attribution gives it; null when none. */
  readonly installType: AttributionResult["installType"];
  readonly appVersion: string | null;
  readonly osVersion: string | null;
  readonly deviceModel: string | null;
  readonly sdkVersion: string | null;
  readonly locale: string | null;
  readonly timezone: string | null;
  readonly country: string | null;
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly consent: Consent | null;
  /**
   * The `gclid` of the install's Play referrer: a Google Ads click's id, which Play hands the
   * app when that click led to the install, whichever touch won it.
   */
  readonly referrerGclid: string | null;
  /** The winning touch; null for an organic install. */
  readonly touch: PostbackTouch | null;
}

/** An event as a partner hears of it: its name mapped, its revenue only when the mapping says. */
export interface PostbackEvent {
  readonly eventId: string;
  /** The partner's name for it. */
  readonly name: string;
  /** ISO 8601. */
  readonly time: string;
  readonly revenue: SendRevenue | null;
}

const refOf = (prefix: string, parts: readonly string[]): string =>
  `${prefix}_${createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 32)}`;

/**
 * The install's id as one partner configuration is told it: a digest of the app's, the
 * configuration's and the install's ids. The install's own id cannot be found from it (it is
 * random, generated on the device), so that a partner holding the app's public SDK key still
 * cannot reach the install's consent or deletion routes; and two networks are told two ids of
 * one install, which they cannot join their records of the device on (a user who refused
 * tracking on iOS is one no company may link across companies).
 */
export const installRefOf = (appId: string, configId: string, serviceId: string): string =>
  refOf("ins", ["install_ref", appId, configId, serviceId]);

/** An event's id as one partner configuration is told it, for the same reasons (installRefOf). */
export const eventRefOf = (appId: string, configId: string, eventId: string): string =>
  refOf("evt", ["event_ref", appId, configId, eventId]);

/** Everything one attempt's templates are filled from. */
export interface PostbackContext {
  /** The partner configuration's id: the ids of the install and event it is told are its own. */
  readonly configId: string;
  readonly install: PostbackInstall;
  readonly event: PostbackEvent | null;
  /** Whether the install was won by this partner (its media sources). */
  readonly won: boolean;
  /** 1 for the first try, up to 5. */
  readonly attempt: number;
  /** The advertiser's values, opened. */
  readonly values: Readonly<Record<string, string>>;
  /**
   * The app's setting for an install whose user was never asked: whether its device ids may go
   * to ad networks (the owner's decision under the app's own consent flow).
   */
  readonly shareDeviceDataWithoutConsent: boolean;
}

export type MacroKind = "text" | "number";

export interface Macro {
  readonly name: string;
  readonly kind: MacroKind;
  /** Which postbacks have it: install macros are in event postbacks too. */
  readonly of: "install" | "event" | "any";
  readonly description: string;
}

type Value = (context: PostbackContext) => string | number | null | undefined;

interface MacroRow extends Macro {
  readonly value: Value;
}

/** 00000000-0000-0000-0000-000000000000: what a device that limits ad tracking reports. */
const ZERO_ID = /^[0-]+$/;

/**
 * Whether the install's device ids and address may be shared with ad networks: a user who
 * said no to ad user data, or where consent is required and was not given (Google's EU user
 * consent policy asks for a yes there), never; a user who said yes (to the app, or in the TCF
 * string of its consent platform), always; an install whose consent says nothing on it, as the
 * app's own setting says.
 */
export const deviceDataShareable = (consent: Consent | null, appSetting: boolean): boolean => {
  if (!allowsAdUserData(consent)) return false;
  if (adUserDataOf(consent) === true) return true;
  return appSetting;
};

/**
 * On iOS, whether App Tracking Transparency authorised tracking: Apple's rule covers every id
 * and signal that links the device across companies, the IDFV and the address as much as the
 * IDFA. Android has no such switch.
 */
export const trackingAllowed = (install: Pick<PostbackInstall, "platform" | "attStatus">) =>
  install.platform !== "ios" || install.attStatus === "authorized";

/** Whether the device's ids and address may go: consent, and on iOS tracking authorised. */
const shareable = (context: PostbackContext): boolean =>
  deviceDataShareable(context.install.consent, context.shareDeviceDataWithoutConsent) &&
  trackingAllowed(context.install);

/** A device id as it may go: none when absent, all zero (no id) or not to be shared. */
const deviceId = (context: PostbackContext, raw: string | null): string | null => {
  if (!raw || ZERO_ID.test(raw) || !shareable(context)) return null;
  return raw;
};

/** The advertising id, when consent allows and (iOS) App Tracking Transparency authorised it. */
const advertisingId = (context: PostbackContext): string | null =>
  deviceId(context, context.install.advertisingId);

/** `de-DE` → `de_DE`, `zh-Hant-TW` → `zh_TW`, `fr` → `fr`; what is no locale tag, none. */
const posixLocaleOf = (tag: string | null): string | null => {
  if (!tag) return null;
  try {
    const locale = new Intl.Locale(tag.replace(/_/g, "-"));
    return locale.region ? `${locale.language}_${locale.region}` : locale.language;
  } catch {
    return null;
  }
};

const unixSeconds = (iso: string | null | undefined): number | null => {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
};

/** The winning touch, for the partner that won the install only. */
const wonTouch = (context: PostbackContext): PostbackTouch | null =>
  context.won ? context.install.touch : null;

const row = (
  name: string,
  kind: MacroKind,
  of: Macro["of"],
  description: string,
  value: Value,
): MacroRow => ({ name, kind, of, description, value });

/** Every macro, in the order docs/postbacks.md lists them. */
const MACRO_ROWS: readonly MacroRow[] = [
  row(
    "app_id",
    "text",
    "install",
    "The app's id on the install's platform: its bundle identifier, or its package name (an iOS app's Android build's Play package on an Android phone, an Android app's iOS build's bundle id on an iPhone).",
    (c) => c.install.platformAppId,
  ),
  row(
    "store_app_id",
    "text",
    "install",
    "The app's id in its store: the App Store's numeric id on iOS (the app's setting), the package name on Android (an iOS app's Android build's Play package).",
    (c) => (c.install.platform === "ios" ? c.install.appStoreId : c.install.platformAppId),
  ),
  row("platform", "text", "install", "`android` or `ios`.", (c) => c.install.platform),
  row("os_name", "text", "install", "`Android` or `iOS`.", (c) =>
    c.install.platform === "ios" ? "iOS" : "Android",
  ),
  row(
    "os_version",
    "text",
    "install",
    "The OS version the SDK reported.",
    (c) => c.install.osVersion,
  ),
  row(
    "device_model",
    "text",
    "install",
    "The device model the SDK reported.",
    (c) => c.install.deviceModel,
  ),
  row(
    "app_version",
    "text",
    "install",
    "The app's version at install.",
    (c) => c.install.appVersion,
  ),
  row(
    "sdk_version",
    "text",
    "install",
    "The SDK's platform and version.",
    (c) => c.install.sdkVersion,
  ),
  row(
    "locale",
    "text",
    "install",
    "The device's locale, as the SDK sent it (`de-DE`).",
    (c) => c.install.locale,
  ),
  row(
    "locale_posix",
    "text",
    "install",
    "The device's language and region joined by an underscore (`de_DE`), the form Google's app User-Agent and Meta's `extinfo` take; the language alone when the locale names no region.",
    (c) => posixLocaleOf(c.install.locale),
  ),
  row("timezone", "text", "install", "The device's time zone.", (c) => c.install.timezone),
  row(
    "country",
    "text",
    "install",
    "The install's country (ISO 3166-1 alpha-2).",
    (c) => c.install.country,
  ),
  row(
    "install_ref",
    "text",
    "install",
    "An id of the install for this partner configuration (`ins_` and 32 characters), the same in each of its sends to it, for the partner to deduplicate on; it does not disclose the install's own id, which the catalog's templates never send, and another configuration is told another, so that two networks cannot join their records of the device on it.",
    (c) => installRefOf(c.install.appId, c.configId, c.install.serviceId),
  ),
  row(
    "service_id",
    "text",
    "install",
    "The install's own id, generated on the device. With the app's SDK key, which any copy of the app holds, it reaches the install's consent and deletion routes: send it only to a partner you trust with that (`install_ref` is the id to deduplicate on).",
    (c) => c.install.serviceId,
  ),
  row(
    "advertising_id",
    "text",
    "install",
    "The GAID on Android, the IDFA on iOS (App Tracking Transparency authorised); only where consent allows.",
    advertisingId,
  ),
  row("gaid", "text", "install", "The GAID; empty on iOS. As `advertising_id`.", (c) =>
    c.install.platform === "android" ? advertisingId(c) : null,
  ),
  row("idfa", "text", "install", "The IDFA; empty on Android. As `advertising_id`.", (c) =>
    c.install.platform === "ios" ? advertisingId(c) : null,
  ),
  row(
    "idfv",
    "text",
    "install",
    "The IDFV (iOS); only where consent allows and App Tracking Transparency is authorised; empty for an all-zero one.",
    (c) => deviceId(c, c.install.idfv),
  ),
  row(
    "limit_ad_tracking",
    "number",
    "install",
    "`1` when no advertising id is sent (none, limited, refused or not consented), else `0`.",
    (c) => (advertisingId(c) === null ? 1 : 0),
  ),
  row(
    "ad_tracking_enabled",
    "number",
    "install",
    "The opposite of `limit_ad_tracking`: `1` when the advertising id is sent.",
    (c) => (advertisingId(c) === null ? 0 : 1),
  ),
  row(
    "att_status",
    "text",
    "install",
    "iOS App Tracking Transparency as the SDK reported it (`authorized`, `denied`, `restricted`, `not_determined`); empty on Android.",
    (c) => (c.install.platform === "ios" ? c.install.attStatus : null),
  ),
  row(
    "att_status_upper",
    "text",
    "install",
    "`att_status` in capitals (`AUTHORIZED`, `DENIED`, `RESTRICTED`, `NOT_DETERMINED`), `NOT_APPLICABLE` on Android: the form TikTok's app events take; empty on an iPhone whose SDK reported none.",
    (c) =>
      c.install.platform === "ios"
        ? (c.install.attStatus?.toUpperCase() ?? null)
        : "NOT_APPLICABLE",
  ),
  row(
    "ip",
    "text",
    "install",
    "The IP address of the request: the install's, or the event's for an event's postback; only where consent allows (on iOS, with App Tracking Transparency authorised), and only if the template asks.",
    (c) => (shareable(c) ? c.install.ip : null),
  ),
  row(
    "user_agent",
    "text",
    "install",
    "The user agent of the request: the install's, or the event's for an event's postback.",
    (c) => c.install.userAgent,
  ),
  row(
    "install_unix_ts",
    "number",
    "install",
    "The install's first open, Unix seconds, on the service's clock when the device's was off (as the export's install event).",
    (c) => unixSeconds(c.install.firstOpenTime),
  ),
  row(
    "install_time",
    "text",
    "install",
    "The install's first open, ISO 8601, as `install_unix_ts`.",
    (c) => c.install.firstOpenTime,
  ),
  row(
    "install_type",
    "text",
    "install",
    "`reinstall_same_device` for the same device installing again (an iPhone whose IDFV an earlier install had, or a phone of either platform installing from the click its earlier install holds), else `new_install` on iOS (the export's `install_type`) and empty on Android, which cannot tell a new install from a reinstall without a click.",
    (c) => c.install.installType,
  ),
  row("attributed", "number", "install", "`1` when this partner won the install, else `0`.", (c) =>
    c.won ? 1 : 0,
  ),
  row(
    "media_source",
    "text",
    "install",
    "The winning touch's media source. This and the attribution macros below are empty unless this partner won the install.",
    (c) => wonTouch(c)?.mediaSource,
  ),
  row(
    "campaign_name",
    "text",
    "install",
    "The winning touch's campaign name.",
    (c) => wonTouch(c)?.campaignName,
  ),
  row(
    "campaign_id",
    "text",
    "install",
    "The winning touch's campaign id.",
    (c) => wonTouch(c)?.campaignId,
  ),
  row(
    "adset_name",
    "text",
    "install",
    "The winning touch's ad set name.",
    (c) => wonTouch(c)?.adsetName,
  ),
  row("adset_id", "text", "install", "The winning touch's ad set id.", (c) => wonTouch(c)?.adsetId),
  row("ad_name", "text", "install", "The winning touch's ad name.", (c) => wonTouch(c)?.adName),
  row("ad_id", "text", "install", "The winning touch's ad id.", (c) => wonTouch(c)?.adId),
  row(
    "click_id",
    "text",
    "install",
    "The service's id of the winning touch.",
    (c) => wonTouch(c)?.clickId,
  ),
  row(
    "network_click_id",
    "text",
    "install",
    "The network's own click id, when the network reported the click.",
    (c) => wonTouch(c)?.networkClickId,
  ),
  row(
    "referrer_gclid",
    "text",
    "install",
    "The `gclid` of the install's Play referrer (Android): the id of the Google Ads click Play says led to the install, whichever touch won it, which Google's privacy-compliant attribution asks for with every first open and event; only to a configuration of Google's media sources (`googleadwords_int`, `google_ads`), only where consent allows, and never for an event sent in the SDK's anonymous mode.",
    (c) => (shareable(c) ? c.install.referrerGclid : null),
  ),
  row("click_unix_ts", "number", "install", "The winning touch's time, Unix seconds.", (c) =>
    unixSeconds(wonTouch(c)?.touchTime),
  ),
  row(
    "click_time",
    "text",
    "install",
    "The winning touch's time, ISO 8601.",
    (c) => wonTouch(c)?.touchTime,
  ),
  row(
    "touch_type",
    "text",
    "install",
    "The winning touch's kind: `click` for a click-through install, `impression` for a view-through one.",
    (c) => wonTouch(c)?.touchType,
  ),
  row(
    "event_name",
    "text",
    "event",
    "The event's name as the partner calls it (the mapping's).",
    (c) => c.event?.name,
  ),
  row(
    "event_id",
    "text",
    "event",
    "The event's id, as the app sent it: the same to every partner (the catalog's templates send `event_ref`).",
    (c) => c.event?.eventId,
  ),
  row(
    "event_ref",
    "text",
    "event",
    "An id of the event for this partner configuration (`evt_` and 32 characters), the same in each of its sends to it, for the partner to deduplicate on; another configuration is told another, as `install_ref`.",
    (c) => (c.event ? eventRefOf(c.install.appId, c.configId, c.event.eventId) : null),
  ),
  row("event_unix_ts", "number", "event", "The event's time, Unix seconds.", (c) =>
    unixSeconds(c.event?.time),
  ),
  row("event_time", "text", "event", "The event's time, ISO 8601.", (c) => c.event?.time),
  row(
    "revenue",
    "number",
    "event",
    "The event's revenue; only when the mapping sends revenue.",
    (c) => c.event?.revenue?.amount,
  ),
  row(
    "revenue_usd",
    "number",
    "event",
    "The event's revenue in USD at the ECB rate of its day, or its peg to the dollar or the euro (the export's `revenue_usd`); only when the mapping sends revenue and a rate was known.",
    (c) => c.event?.revenue?.usd,
  ),
  row(
    "currency",
    "text",
    "event",
    "The revenue's currency (ISO 4217); only with `revenue`.",
    (c) => c.event?.revenue?.currency,
  ),
  row("retry", "number", "any", "`0` on the first attempt, `1` on a retry.", (c) =>
    c.attempt > 1 ? 1 : 0,
  ),
  row("attempt", "number", "any", "The attempt's number, 1 to 5.", (c) => c.attempt),
];

/** The two families of macros named by a key after a dot. */
const PARTNER_PREFIX = "partner.";
const CLICK_PREFIX = "click.";

export const MACROS: readonly Macro[] = [
  ...MACRO_ROWS.map(({ value: _value, ...macro }) => macro),
  {
    name: `${CLICK_PREFIX}<name>`,
    kind: "text",
    of: "install",
    description:
      "The parameter `<name>` of the tapped link's own URL (a network's click id or sub-parameter, passed back); only for the partner that won the install.",
  },
  {
    name: `${PARTNER_PREFIX}<name>`,
    kind: "text",
    of: "any",
    description: "The value `<name>` the advertiser gave in the configuration (an id, a key).",
  },
];

const BY_NAME = new Map(MACRO_ROWS.map((macro) => [macro.name, macro]));

/** `{name}`, `{partner.key}`, `{click.utm_source}`; anything else in braces is text. */
const MACRO = /\{([a-z][a-z0-9_]*(?:\.[A-Za-z0-9_.~-]+)?)\}/g;
const LONE_MACRO = /^\{([a-z][a-z0-9_]*(?:\.[A-Za-z0-9_.~-]+)?)\}$/;
export const LEADING_PARTNER_MACRO = /^\{partner\.([A-Za-z0-9_.~-]+)\}/;

/** The macros a text names, each once. */
export const macrosIn = (text: string): string[] => [
  ...new Set([...text.matchAll(MACRO)].map((match) => match[1] ?? "")),
];

/** Whether the service knows a macro name (a row, or a `partner.`/`click.` key). */
export const isKnownMacro = (name: string): boolean =>
  BY_NAME.has(name) ||
  (name.startsWith(PARTNER_PREFIX) && name.length > PARTNER_PREFIX.length) ||
  (name.startsWith(CLICK_PREFIX) && name.length > CLICK_PREFIX.length);

/** The advertiser's value names a text refers to (`{partner.<name>}`). */
export const partnerValuesIn = (text: string): string[] =>
  macrosIn(text)
    .filter((name) => name.startsWith(PARTNER_PREFIX))
    .map((name) => name.slice(PARTNER_PREFIX.length));

const kindOf = (name: string): MacroKind => BY_NAME.get(name)?.kind ?? "text";

/** A macro's value as text; "" for an unknown macro or a fact the service does not have. */
export type MacroLookup = (name: string) => string;

/**
 * A number in plain decimal notation: String writes an exponent below 1e-6 and from 1e21
 * (`1e-7`), which a partner reading an amount may take for text or for 1. Its digits are
 * String's (the shortest that read back as the number), only the point moved.
 */
export const plainNumber = (value: number): string => {
  const text = String(value);
  const exponent = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!exponent) return text;
  const [, sign = "", whole = "", fraction = "", power = "0"] = exponent;
  const digits = `${whole}${fraction}`;
  // Where the point falls in `digits` once the exponent is applied.
  const point = whole.length + Number(power);
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
};

const asText = (value: string | number | null | undefined): string => {
  if (value === null || value === undefined) return "";
  return typeof value === "number" ? (Number.isFinite(value) ? plainNumber(value) : "") : value;
};

/**
 * A record's own text under `key`, else undefined: never what its prototype holds, so a name
 * such as `constructor` or `toString` is a value the owner or the link gave, or none.
 */
export const ownText = (
  record: Readonly<Record<string, unknown>> | null | undefined,
  key: string,
): string | undefined => {
  if (!record || !Object.hasOwn(record, key)) return undefined;
  const value = record[key];
  return typeof value === "string" ? value : undefined;
};

/** The values of one attempt's macros. */
export const macroLookup =
  (context: PostbackContext): MacroLookup =>
  (name) => {
    const macro = BY_NAME.get(name);
    if (macro) return asText(macro.value(context));
    if (name.startsWith(PARTNER_PREFIX)) {
      return ownText(context.values, name.slice(PARTNER_PREFIX.length)) ?? "";
    }
    if (name.startsWith(CLICK_PREFIX)) {
      return ownText(wonTouch(context)?.urlParams, name.slice(CLICK_PREFIX.length)) ?? "";
    }
    return "";
  };

/**
 * RFC 3986's unreserved characters only: encodeURIComponent leaves `!'()*` as they are. The
 * form a URL carries a value in, which the log masks a secret in.
 */
export const encodeQueryValue = (value: string): string =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/** A whole URL given as the advertiser's value: absolute http(s), no fragment. */
const isBaseUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hash === "";
  } catch {
    return false;
  }
};

/**
 * The host a URL template names before any fact is filled in: its literal one, or its leading
 * advertiser's URL's; null when it names none.
 */
const fixedHostOf = (template: string, lookup: MacroLookup): string | null => {
  const leading = LEADING_PARTNER_MACRO.exec(template);
  const fixed = leading
    ? lookup(`${PARTNER_PREFIX}${leading[1] ?? ""}`)
    : (/^https?:\/\/[^/?#]*/.exec(template)?.[0] ?? "");
  if (fixed.includes("{") || (leading && !isBaseUrl(fixed))) return null;
  try {
    return new URL(fixed).host;
  } catch {
    return null;
  }
};

/**
 * A value as a URL's path carries it: URL-encoded, and nothing for `.` or `..`, which no
 * encoding keeps from being read as a dot segment (URL parsers take `%2E` for `.` too): as a
 * segment of its own it would move the path (`/v3/{x}/events` with `..` is `/events`). In the
 * query or the fragment a dot is a value like another.
 */
const pathValue = (value: string): string =>
  value === "." || value === ".." ? "" : encodeQueryValue(value);

/**
 * A URL template filled: each macro's value URL-encoded (`pathValue` before the template's
 * query); a leading `{partner.<name>}` is the advertiser's URL as it stands (when it is one), and
 * a query the template appends to a URL that has one already is joined with `&` (what the
 * template adds to such a URL is all in its query, filled as a query's values are).
 */
export const fillUrl = (template: string, lookup: MacroLookup): string => {
  let rest = template;
  let base = "";
  const leading = LEADING_PARTNER_MACRO.exec(template);
  if (leading) {
    const value = lookup(`${PARTNER_PREFIX}${leading[1] ?? ""}`);
    base = isBaseUrl(value) ? value : "";
    rest = template.slice(leading[0].length);
    if (base.includes("?") && rest.startsWith("?")) rest = `&${rest.slice(1)}`;
  }
  // Where the template's own text leaves the path: a value's `?` or `#` is encoded. After an
  // advertiser's URL that has a query, all the template adds is in that query.
  const pathEnd = base.includes("?") ? 0 : rest.search(/[?#]/);
  const path = pathEnd < 0 ? rest : rest.slice(0, pathEnd);
  const after = pathEnd < 0 ? "" : rest.slice(pathEnd);
  return (
    base +
    path.replace(MACRO, (_match, name: string) => pathValue(lookup(name))) +
    after.replace(MACRO, (_match, name: string) => encodeQueryValue(lookup(name)))
  );
};

/** What an HTTP header value may not hold: control characters, and what Node refuses. */
const NOT_IN_HEADER = /[^\t\x20-\x7e\x80-\xff]/g;

/** A value as a header carries it: without what a header may not hold. */
export const headerSafe = (value: string): string => value.replace(NOT_IN_HEADER, "");

export const fillHeaderValue = (template: string, lookup: MacroLookup): string =>
  headerSafe(template.replace(MACRO, (_match, name: string) => headerSafe(lookup(name))));

const OMIT = Symbol("omit");

const fillJsonValue = (value: unknown, lookup: MacroLookup, inArray: boolean): unknown => {
  if (typeof value === "string") {
    const lone = LONE_MACRO.exec(value);
    if (lone) {
      const name = lone[1] ?? "";
      const filled = lookup(name);
      if (filled === "") return inArray ? (kindOf(name) === "number" ? null : "") : OMIT;
      if (kindOf(name) === "number") {
        const number = Number(filled);
        return Number.isFinite(number) ? number : filled;
      }
      return filled;
    }
    return value.replace(MACRO, (_match, name: string) => lookup(name));
  }
  if (Array.isArray(value)) return value.map((item) => fillJsonValue(item, lookup, true));
  if (value !== null && typeof value === "object") {
    // Without a prototype, a key such as `__proto__` is a key like any other, kept as written.
    const filled: Record<string, unknown> = Object.create(null);
    for (const [key, item] of Object.entries(value)) {
      const result = fillJsonValue(item, lookup, false);
      if (result !== OMIT) filled[key] = result;
    }
    return filled;
  }
  return value;
};

/**
 * A JSON body template filled: parsed, each string value's macros filled, serialised again
 * (JSON.stringify escapes what a value holds). Throws a SyntaxError for a template that is
 * not JSON, which a configuration is checked against before it is saved.
 */
export const fillJsonBody = (template: string, lookup: MacroLookup): string => {
  const filled = fillJsonValue(JSON.parse(template), lookup, false);
  // A lone value left out (a saved configuration's body is an object or a list) is null.
  return JSON.stringify(filled === OMIT ? null : filled);
};

/** A request ready to send. */
export interface PostbackRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
}

export type BuiltRequest =
  | { readonly ok: true; readonly request: PostbackRequest }
  | {
      readonly ok: false;
      readonly problem: string;
      /** The macros the partner requires that are empty: the send is skipped, not failed. */
      readonly missing?: readonly string[];
    };

const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

/**
 * Which bound of a request's headers they pass, if any: their count (with the Content-Type a
 * JSON body adds when they name none) or their names' and values' bytes. Checked on a template
 * when it is saved and on each request it fills.
 */
export const headerBoundPassed = (
  headers: Readonly<Record<string, string>>,
  jsonBody: boolean,
): "count" | "bytes" | null => {
  const names = Object.keys(headers);
  const typed = names.some((name) => name.toLowerCase() === "content-type");
  if (names.length + (jsonBody && !typed ? 1 : 0) > REQUEST_LIMITS.maxHeaders) return "count";
  const total = names.reduce((sum, name) => sum + bytes(name) + bytes(headers[name] ?? ""), 0);
  return total > REQUEST_LIMITS.maxHeaderBytes ? "bytes" : null;
};

/**
 * One attempt's request: the template filled from the context, checked against the bounds.
 * Not built (a problem, and nothing is sent) when a macro the partner requires is empty (a
 * device id it matches on, say: named in `missing`, for the send is then skipped, there being
 * nothing wrong to fix), when the URL is not one, or when it is too large.
 */
export const buildRequest = (
  template: PlatformRequest,
  context: PostbackContext,
  requires: readonly string[] = [],
): BuiltRequest => {
  const lookup = macroLookup(context);
  // An entry of names joined by `|` is met by any one of them filled.
  const missing = requires.filter((entry) => entry.split("|").every((name) => lookup(name) === ""));
  if (missing.length > 0) {
    const named = missing.map((entry) => entry.split("|").join(" or ")).join(", ");
    return { ok: false, problem: `the partner needs ${named}, which is empty`, missing };
  }
  const url = fillUrl(template.url, lookup);
  let filled: URL;
  try {
    filled = new URL(url);
  } catch {
    return { ok: false, problem: "the filled URL is not an absolute URL" };
  }
  // No macro chooses where a postback goes: the host is the template's own, or its leading
  // advertiser's URL's, whatever the facts filled in after it.
  if (filled.host !== fixedHostOf(template.url, lookup)) {
    return { ok: false, problem: "the filled URL's host is not the template's own" };
  }
  if (bytes(url) > REQUEST_LIMITS.maxUrlBytes) {
    return { ok: false, problem: `the URL is longer than ${REQUEST_LIMITS.maxUrlBytes} bytes` };
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(template.headers)) {
    const filled = fillHeaderValue(value, lookup);
    // A header whose macros filled nothing says nothing (an address consent withholds): an
    // empty value would tell the partner there is one, and it is empty.
    if (filled.trim() !== "") headers[name] = filled;
  }
  if (headerBoundPassed(headers, template.body !== null)) {
    return { ok: false, problem: "the headers are over their bounds" };
  }
  let body: string | null = null;
  if (template.body !== null) {
    try {
      body = fillJsonBody(template.body, lookup);
    } catch {
      return { ok: false, problem: "the body template is not JSON" };
    }
    if (bytes(body) > REQUEST_LIMITS.maxBodyBytes) {
      return { ok: false, problem: `the body is longer than ${REQUEST_LIMITS.maxBodyBytes} bytes` };
    }
    const typed = Object.keys(headers).some((name) => name.toLowerCase() === "content-type");
    if (!typed) headers["Content-Type"] = "application/json";
  }
  return { ok: true, request: { method: template.method, url, headers, body } };
};

/** The macro table of docs/postbacks.md, written from MACROS (a test holds the page to it). */
export const macroTableMarkdown = (): string =>
  [
    "| macro | in | kind | value |",
    "| ----- | -- | ---- | ----- |",
    ...MACROS.map(
      (macro) =>
        `| \`{${macro.name}}\` | ${macro.of === "event" ? "events" : "all"} | ${macro.kind} | ${macro.description} |`,
    ),
  ].join("\n");

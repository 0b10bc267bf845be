/**
 * The catalog of partners: one row per network whose server-to-server format is public, plus
 * a generic template, as data. A row says where an install and an event go (a URL template,
 * headers, a JSON body template), with which method, and which values the advertiser must give
 * (ids, keys; a secret one is stored sealed). A partner the catalog lacks is a custom template
 * the owner writes with the same macros (./config.ts).
 *
 * Each row names the public pages it follows. A network whose format was not read from a
 * public page (Meta's app install events among them) is left out rather than guessed:
 * docs/postbacks.md#the-catalog.
 *
 * Macros are `{name}` (./templates.ts): `{partner.<name>}` is an advertiser's value, and
 * `{click.<name>}` a parameter of the tapped link's own URL (a network's click id, passed back).
 */
import type { Os } from "../domain/install-facts.ts";

export const HTTP_METHODS = ["GET", "POST"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Which installs a configuration reports: those the partner won, or all of them. */
export const INSTALL_SCOPES = ["won", "all"] as const;
export type InstallScope = (typeof INSTALL_SCOPES)[number];

/** One text for both platforms, or one each (a parameter named by the platform, say). */
export type PerPlatform<T> = T | { readonly android: T; readonly ios: T };

export const forPlatform = <T>(value: PerPlatform<T>, platform: Os): T =>
  typeof value === "object" && value !== null && "android" in value && "ios" in value
    ? value[platform]
    : (value as T);

export interface RequestTemplate {
  /** The URL; its macros are URL-encoded. It may begin with `{partner.<name>}` (a whole URL). */
  readonly url: PerPlatform<string>;
  /** Header values; their macros are filled as they are, control characters removed. */
  readonly headers?: Readonly<Record<string, string>>;
  /** JSON text whose string values hold macros (filled JSON-escaped); POST only. */
  readonly body?: PerPlatform<string>;
}

/**
 * How a partner's 2xx answer says it refused the request: some APIs (TikTok's Events API) answer
 * 200 to a wrong token or a bad field, and name the error in a code of the JSON body.
 */
export interface AnswerCheck {
  /** The body's top-level field holding the code (`code`). */
  readonly field: string;
  /** The codes of a request taken (`0`). */
  readonly ok: readonly (number | string)[];
  /** The codes that ask for the request later: a rate limit, the partner's own failure. */
  readonly later: readonly (number | string)[];
}

/** A value the advertiser gives when configuring the partner. */
export interface PartnerValue {
  readonly name: string;
  readonly label: string;
  /** Stored sealed, masked in the log, shown to nobody once saved. */
  readonly secret: boolean;
  /** `url`: an https URL, checked like any postback URL. */
  readonly kind: "text" | "url";
  readonly description: string;
}

export interface PartnerTemplate {
  readonly id: string;
  readonly name: string;
  readonly method: HttpMethod;
  /** Null: the partner takes no install postbacks. */
  readonly install: RequestTemplate | null;
  /** Null: the partner takes no event postbacks. */
  readonly event: RequestTemplate | null;
  readonly values: readonly PartnerValue[];
  /** The media sources (as links and touches name them) whose installs count as its wins. */
  readonly mediaSources: readonly string[];
  /**
   * What the partner expects: `won` for a network attributed by the service, `all` for one that
   * attributes installs itself (Google, Snap, TikTok) from every install it hears of.
   */
  readonly installs: InstallScope;
  /** The partner's event names an event may be mapped to; null: any name. */
  readonly eventNames: readonly string[] | null;
  /**
   * Macros without which a send is pointless (the partner matches on them); it is skipped. An
   * entry of names joined by `|` asks for any one of them.
   */
  readonly requires: readonly string[];
  /**
   * The partner's id on the IAB's Global Vendor List, where it is one of its vendors: an install
   * whose consent platform's TCF string gives it no consent is not reported to it
   * (vendorRefused, src/domain/consent.ts). Null where the catalog does not know it; a
   * configuration may give it.
   */
  readonly tcfVendorId: number | null;
  /** The public pages the template follows. */
  readonly sources: readonly string[];
  readonly notes: string;
  /**
   * How its 2xx answers name a refusal, for a partner whose API answers 200 to a request it
   * refused (./retries.ts `judged`); none: its status says.
   */
  readonly answer?: AnswerCheck;
}

const GENERIC_COMMON =
  "app_id={app_id}&platform={platform}&install_ref={install_ref}&attributed={attributed}" +
  "&media_source={media_source}&campaign={campaign_name}&campaign_id={campaign_id}" +
  "&adset={adset_name}&adset_id={adset_id}&ad={ad_name}&ad_id={ad_id}" +
  "&click_id={click_id}&network_click_id={network_click_id}&click_ts={click_unix_ts}" +
  "&install_ts={install_unix_ts}&install_type={install_type}&advertising_id={advertising_id}" +
  "&idfv={idfv}" +
  "&country={country}&retry={retry}&attempt={attempt}";

const GOOGLE_ACT = "https://www.googleadservices.com/pagead/conversion/app/1.0";
const GOOGLE_COMMON =
  "dev_token={partner.dev_token}&link_id={partner.link_id}&rdid={advertising_id}" +
  "&lat={limit_ad_tracking}&app_version={app_version}&os_version={os_version}" +
  "&sdk_version={sdk_version}";
// Android's carries the Play referrer's gclid, which Google asks for with the first open and
// every event after it (its privacy-compliant attribution); iOS has no Play referrer.
const googleUrl = (event: string, timestamp: string, extra = "") => ({
  android: `${GOOGLE_ACT}?${event}&${GOOGLE_COMMON}&id_type=advertisingid&timestamp=${timestamp}${extra}&market_referrer_gclid={referrer_gclid}`,
  ios: `${GOOGLE_ACT}?${event}&${GOOGLE_COMMON}&id_type=idfa&timestamp=${timestamp}${extra}`,
});
/** Google's app User-Agent: `name version (os_and_version; locale; device; build; Proxy)`. */
const GOOGLE_USER_AGENT =
  "{app_id} {app_version} ({os_name} {os_version}; {locale_posix}; {device_model}; Proxy)";
/**
 * Google's required headers: the app's User-Agent, and the device's address (the API takes the
 * request's sender for the device otherwise); the address only where consent lets it go.
 */
const GOOGLE_HEADERS = { "User-Agent": GOOGLE_USER_AGENT, "X-Forwarded-For": "{ip}" };

/**
 * Meta's `extinfo`, which Snap's app events take too: 16 strings in a fixed order, an empty
 * string for each the service does not know (carrier, screen, CPU, storage, the zone's
 * abbreviation). Index 0 is `a2` on Android and `i2` on iOS.
 */
const extinfo = (version: "a2" | "i2") =>
  [
    version,
    "{app_id}",
    "{app_version}",
    "{app_version}",
    "{os_version}",
    "{device_model}",
    "{locale_posix}",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "{timezone}",
  ] as const;

const snapBody = (event: "install" | "event") =>
  ({
    android: snapJson(event, "a2"),
    ios: snapJson(event, "i2"),
  }) as const;

const snapJson = (event: "install" | "event", version: "a2" | "i2"): string =>
  JSON.stringify({
    data: [
      {
        event_name: event === "install" ? "APP_INSTALL" : "{event_name}",
        event_time: event === "install" ? "{install_unix_ts}" : "{event_unix_ts}",
        event_id: event === "install" ? "{install_ref}" : "{event_ref}",
        action_source: "MOBILE_APP",
        app_data: {
          advertiser_tracking_enabled: "{ad_tracking_enabled}",
          extinfo: extinfo(version),
        },
        user_data: {
          mobile_ad_id: "{advertising_id}",
          idfv: "{idfv}",
          client_ip_address: "{ip}",
          client_user_agent: "{user_agent}",
          sc_click_id: "{network_click_id}",
        },
        ...(event === "event"
          ? { custom_data: { currency: "{currency}", value: "{revenue}" } }
          : {}),
      },
    ],
  });

const tiktokJson = (event: "install" | "event"): string =>
  JSON.stringify({
    event_source: "app",
    event_source_id: "{partner.tiktok_app_id}",
    data: [
      {
        event: event === "install" ? "InstallApp" : "{event_name}",
        event_time: event === "install" ? "{install_unix_ts}" : "{event_unix_ts}",
        event_id: event === "install" ? "{install_ref}" : "{event_ref}",
        user: {
          idfa: "{idfa}",
          gaid: "{gaid}",
          idfv: "{idfv}",
          ip: "{ip}",
          user_agent: "{user_agent}",
          locale: "{locale}",
          att_status: "{att_status_upper}",
        },
        app: { app_id: "{store_app_id}", app_version: "{app_version}" },
        ...(event === "event"
          ? { properties: { currency: "{currency}", value: "{revenue}" } }
          : {}),
      },
    ],
  });

const UNITY_EVENT =
  "https://ads-secondary-conversion.unityads.unity3d.com/v1/events?gamer_id={click.gamer_id}" +
  "&tracking_enabled={ad_tracking_enabled}&campaign_id={campaign_id}&game_id={partner.game_id}" +
  "&platform={platform}&bundle_id={app_id}&install_ts={install_unix_ts}&event={event_name}" +
  "&was_conversion_attributed={attributed}&ts={event_unix_ts}&value={revenue}&currency={currency}";

/** The catalog: the one table every configuration's partner is read from. */
export const PARTNERS = [
  {
    id: "generic",
    name: "Generic server-to-server",
    method: "GET",
    install: { url: `{partner.endpoint}?event=install&${GENERIC_COMMON}` },
    event: {
      url:
        "{partner.endpoint}?event={event_name}&event_ref={event_ref}&event_ts={event_unix_ts}" +
        `&revenue={revenue}&currency={currency}&${GENERIC_COMMON}`,
    },
    values: [
      {
        name: "endpoint",
        label: "Endpoint",
        secret: false,
        kind: "url",
        description:
          "The https URL the partner receives postbacks on; the parameters are appended.",
      },
    ],
    mediaSources: [],
    installs: "won",
    eventNames: null,
    requires: [],
    tcfVendorId: null,
    sources: [],
    notes:
      "The service's own format for a partner without a catalog row: a GET with every install " +
      "and event fact as a query parameter. Its media sources are the configuration's.",
  },
  {
    id: "google-ads",
    name: "Google Ads (app conversion tracking API)",
    method: "POST",
    install: {
      url: googleUrl("app_event_type=first_open", "{install_unix_ts}"),
      headers: GOOGLE_HEADERS,
    },
    event: {
      url: googleUrl(
        "app_event_type={event_name}",
        "{event_unix_ts}",
        "&value={revenue}&currency_code={currency}",
      ),
      headers: GOOGLE_HEADERS,
    },
    values: [
      {
        name: "dev_token",
        label: "Developer token",
        secret: true,
        kind: "text",
        description:
          "The developer token the API consumer holds (for a self-hosted service, its operator's).",
      },
      {
        name: "link_id",
        label: "Link ID",
        secret: false,
        kind: "text",
        description: "The link ID created in Google Ads for this app and the developer token.",
      },
    ],
    mediaSources: ["googleadwords_int", "google_ads"],
    installs: "all",
    eventNames: [
      "session_start",
      "in_app_purchase",
      "view_item_list",
      "view_item",
      "view_search_results",
      "add_to_cart",
      "ecommerce_purchase",
    ],
    requires: ["advertising_id"],
    // Google Advertising Products on the Global Vendor List.
    tcfVendorId: 755,
    sources: [
      "https://developers.google.com/app-conversion-tracking/api",
      "https://developers.google.com/app-conversion-tracking/api/request-response-specs",
      "https://developers.google.com/app-conversion-tracking/api/privacy-compliant-guide",
      "https://vendor-list.consensu.org/v3/vendor-list.json",
    ],
    notes:
      "Google attributes from every first_open it is told of, so all installs go. It needs a " +
      "device id (rdid): an install without a shared advertising id is not sent. Each request " +
      "carries the device's address in `X-Forwarded-For` (where consent allows) and, on " +
      "Android, the Play referrer's gclid (`market_referrer_gclid`, empty when Play named " +
      "none). Google's " +
      "`custom` event type needs an app_event_name the template does not carry, so events map " +
      "to the standard types only.",
  },
  {
    id: "snapchat",
    name: "Snapchat (Conversions API, app events)",
    method: "POST",
    install: {
      url: "https://tr.snapchat.com/v3/{partner.snap_app_id}/events?access_token={partner.access_token}",
      body: snapBody("install"),
    },
    event: {
      url: "https://tr.snapchat.com/v3/{partner.snap_app_id}/events?access_token={partner.access_token}",
      body: snapBody("event"),
    },
    values: [
      {
        name: "snap_app_id",
        label: "Snap App ID",
        secret: false,
        kind: "text",
        description: "The app's Snap App ID, from Snap's Events Manager.",
      },
      {
        name: "access_token",
        label: "Conversions API token",
        secret: true,
        kind: "text",
        description: "The Conversions API access token generated in Snap's Business Manager.",
      },
    ],
    mediaSources: ["snapchat_int", "snapchat"],
    installs: "all",
    eventNames: null,
    requires: [],
    tcfVendorId: null,
    sources: [
      "https://developers.snap.com/api/marketing-api/Conversions-API/UsingTheAPI",
      "https://developers.snap.com/api/marketing-api/Ads-API/audience-creation/mobile-app-events",
      "https://github.com/Snapchat/business-sdk-v3-java (the model's field names)",
    ],
    notes:
      "Snap attributes app events itself; events map to Snap's names (PURCHASE, SIGN_UP, " +
      "LEVEL_COMPLETE, …). Snap reports events up to 37 days old.",
  },
  {
    id: "tiktok",
    name: "TikTok (Events API, app events)",
    method: "POST",
    install: {
      url: "https://business-api.tiktok.com/open_api/v1.3/event/track/",
      headers: { "Access-Token": "{partner.access_token}" },
      body: tiktokJson("install"),
    },
    event: {
      url: "https://business-api.tiktok.com/open_api/v1.3/event/track/",
      headers: { "Access-Token": "{partner.access_token}" },
      body: tiktokJson("event"),
    },
    values: [
      {
        name: "tiktok_app_id",
        label: "TikTok App ID",
        secret: false,
        kind: "text",
        description: "The app's TikTok App ID, from TikTok's Events Manager.",
      },
      {
        name: "access_token",
        label: "Events API access token",
        secret: true,
        kind: "text",
        description: "The access token generated for the app in TikTok's Events Manager.",
      },
    ],
    mediaSources: ["tiktokglobal_int", "tiktok"],
    installs: "all",
    eventNames: null,
    // `app.app_id` is required: on iOS the App Store id, which an app may not have set.
    requires: ["store_app_id"],
    tcfVendorId: null,
    sources: [
      "https://business-api.tiktok.com/portal/docs?id=1771101186666498",
      "https://github.com/segmentio/action-destinations/tree/main/packages/destination-actions/src/destinations/tiktok-app-events (maintained by TikTok)",
    ],
    notes:
      "TikTok attributes app events itself; events map to TikTok's names (Purchase, " +
      "Registration, AchieveLevel, …). `att_status` goes in TikTok's own spelling " +
      "(`AUTHORIZED`, …, `NOT_APPLICABLE` on Android). An iOS app needs its App Store id set: " +
      "TikTok requires the store's id of the app, so its installs are not sent without one. " +
      "TikTok answers 200 to a request it refuses (a wrong token, a bad field) and names the " +
      "error in the body's `code`: a code other than 0 is a failure, tried again for its rate " +
      "limit (40100) and its own errors (50000, 50002).",
    // TikTok's Business API answers `{"code": 0, "message": "OK"}` to a request it took.
    answer: { field: "code", ok: [0], later: [40100, 50000, 50002] },
  },
  {
    id: "unity-ads",
    name: "Unity Ads",
    method: "GET",
    install: {
      url:
        "https://postback.unityads.unity3d.com/games/{partner.game_id}/install" +
        "?advertisingTrackingId={advertising_id}&gamerId={click.gamer_id}&attributed={attributed}" +
        "&installTimeEpoch={install_unix_ts}",
    },
    event: {
      url: {
        android: `${UNITY_EVENT}&aid={advertising_id}`,
        ios: `${UNITY_EVENT}&ifa={advertising_id}`,
      },
    },
    values: [
      {
        name: "game_id",
        label: "Game ID",
        secret: false,
        kind: "text",
        description: "The advertiser's Unity Ads game ID, from the User Acquisition dashboard.",
      },
    ],
    mediaSources: ["unityads_int", "unity_ads"],
    installs: "won",
    eventNames: null,
    // Unity matches on the device's advertising id or its own gamer id from the click: with
    // neither, its API refuses the request as missing input.
    requires: ["advertising_id|click.gamer_id"],
    tcfVendorId: null,
    sources: [
      "https://docs.unity.com/grow/en-us/acquire/partner-integration/custom/postback-request",
      "https://docs.unity.com/grow/ja-jp/acquire/partner-integration/custom/send-attribution-links",
      "https://docs.unity.com/grow/en-us/acquire/partner-integration/custom/send-postbacks",
      "https://unityads.unity3d.com/help/advertising/post-install-events",
    ],
    notes:
      "Unity's click URL carries `gamer_id`, passed back from the tapped link. Events map to " +
      "Unity's names: `session` and `purchase` (with value and currency), `registration`, " +
      "`level_complete`, `tutorial_complete`, `invite`, `share`, `spent_credits`.",
  },
] as const satisfies readonly PartnerTemplate[];

export type CatalogPartnerId = (typeof PARTNERS)[number]["id"];

/** The id a configuration names for a template of its own. */
export const CUSTOM_PARTNER = "custom";

export const partnerById = (id: string): PartnerTemplate | undefined =>
  (PARTNERS as readonly PartnerTemplate[]).find((partner) => partner.id === id);

/** The request of one kind of postback for a platform: the URL, headers and body it fills. */
export interface PlatformRequest {
  readonly method: HttpMethod;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
}

export const requestFor = (
  partner: Pick<PartnerTemplate, "method" | "install" | "event">,
  kind: "install" | "event",
  platform: Os,
): PlatformRequest | null => {
  const template = kind === "install" ? partner.install : partner.event;
  if (!template) return null;
  return {
    method: partner.method,
    url: forPlatform(template.url, platform),
    headers: template.headers ?? {},
    body: template.body === undefined ? null : forPlatform(template.body, platform),
  };
};

/** Every text of a template (URLs, header values, bodies), both platforms. */
export const templateTexts = (partner: Pick<PartnerTemplate, "install" | "event">): string[] =>
  [partner.install, partner.event].flatMap((template) => {
    if (!template) return [];
    const both = <T>(value: PerPlatform<T>): T[] =>
      typeof value === "object" && value !== null && "android" in value && "ios" in value
        ? [value.android, value.ios]
        : [value as T];
    return [
      ...both(template.url),
      ...Object.values(template.headers ?? {}),
      ...(template.body === undefined ? [] : both(template.body)),
    ];
  });

/**
 * A touch as the lake keeps it, defined once: the `touches` lake table (its Glue table and so
 * Firehose's Parquet conversion, the embedded stream's writer and the DuckDB views) derives
 * from this list, as the events table derives from the exported record. Personal data is kept
 * only as reports need it: the caller's IP truncated (IPv4 /24, IPv6 /48), what its user
 * agent says rather than the agent itself, and no advertising id.
 */
export const TOUCH_COLUMNS = [
  { name: "click_id", type: "string", description: "The service's id of the touch." },
  { name: "touch_type", type: "string", description: "`click` or `impression`." },
  { name: "touch_time", type: "timestamp", description: "When the touch happened." },
  { name: "received_at", type: "timestamp", description: "When the service recorded it." },
  {
    name: "source",
    type: "string",
    description: "`link` for a tap through the link host, `network` for an ad network's report.",
  },
  { name: "deeplink_id", type: "string", description: "The link tapped or named, if any." },
  { name: "media_source", type: "string", description: "The ad network or source." },
  { name: "campaign_id", type: "string", description: "Campaign identifier." },
  { name: "campaign_name", type: "string", description: "Campaign name." },
  { name: "adset_id", type: "string", description: "Ad set identifier." },
  { name: "adset_name", type: "string", description: "Ad set name." },
  { name: "ad_id", type: "string", description: "Ad identifier." },
  { name: "ad_name", type: "string", description: "Ad name." },
  {
    name: "network_click_id",
    type: "string",
    description: "The ad network's own id of the click, when it reported one.",
  },
  { name: "ip_truncated", type: "string", description: "The caller's IP, IPv4 /24, IPv6 /48." },
  { name: "country", type: "string", description: "ISO 3166-1 alpha-2 code of the caller's IP." },
  { name: "platform", type: "string", description: "`android`, `ios` or `other`." },
  { name: "os_version", type: "string", description: "What the user agent says." },
  { name: "device_model", type: "string", description: "What the user agent says." },
  { name: "language", type: "string", description: "The first language of Accept-Language." },
  {
    name: "params",
    type: "string",
    description:
      "JSON text: the link's custom parameters, `deep_link_path` and the tapped URL's own query, without what names a device or an address.",
  },
  {
    name: "cost_model",
    type: "string",
    description: "How the touch is paid for, as its link or the network said: `CPI`, `CPC`, `CPM`.",
  },
  {
    name: "cost_value",
    type: "double",
    description: "The price in cost_currency: of an install, a click, or a thousand impressions.",
  },
  { name: "cost_currency", type: "string", description: "The price's currency, ISO 4217." },
  {
    name: "cost_usd",
    type: "double",
    description:
      "What the touch itself cost in USD at the ECB rate of its day: a CPC click its price, a CPM impression a thousandth of it; null otherwise (a CPI touch's cost is its install's, in the attributions table).",
  },
] as const satisfies readonly {
  name: string;
  type: "string" | "int" | "double" | "timestamp";
  description: string;
}[];

export type TouchColumnName = (typeof TOUCH_COLUMNS)[number]["name"];

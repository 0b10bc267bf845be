/**
 * What each field of the exported record means, as the spec describes it: the OpenAPI
 * document's ExportRecord reads it. Typed by the column list, so a new column without a
 * description fails to compile.
 */
import type { ColumnName } from "./columns.ts";

export const COLUMN_DESCRIPTIONS: { readonly [C in ColumnName]: string } = {
  event_id: "Unique event identifier, as sent.",
  event_time: "When the event happened, ISO 8601 in UTC.",
  event_name:
    "`service_<event>`: the event type, or a CUSTOM event's own name, in lowercase snake case " +
    "(`service_purchase`, `service_boss_defeated`); letters and digits of every script are " +
    "kept (`service_café_visit`).",
  service_id: "The install's identifier.",
  media_source: "Ad network or source the install is attributed to, or `organic`.",
  campaign_id: "Attributed campaign identifier.",
  campaign_name: "Attributed campaign name.",
  adset_id: "Attributed ad set identifier.",
  adset_name: "Attributed ad set name.",
  ad_id: "Attributed ad identifier.",
  ad_name: "Attributed ad name.",
  matching_type: "Attribution method: `network` or `geo`.",
  click_to_first_open_hours: "Hours from the attributed click to the app's first open.",
  confidence_score: "`low`, `medium` or `high`.",
  country: "ISO 3166-1 alpha-2 code of the user at event time.",
  os: "`ios` or `android`.",
  app_id: "Bundle identifier or package name of the app.",
  app_name: "The app's name.",
  install_type: "iOS only: `new_install` or `reinstall_same_device`.",
  revenue: "Revenue amount of the event, in `currency` (negative for a refund).",
  currency: "ISO 4217 code of `revenue`.",
  idfv: "iOS identifier for vendor, when available.",
  maid: "Mobile advertising identifier (GAID; IDFA when consented), when available.",
  customer_user_id: "The app's own user identifier; null when the user was never identified.",
  revenue_usd:
    "`revenue` in USD at the ECB reference rate of the event's date, or at its fixed peg to the dollar (SAR, AED and the like) or to the euro (XOF, XAF and the like).",
};

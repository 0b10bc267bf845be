/**
 * What the SDKs' attribution parameters say of an install (docs/attribution.md#results;
 * the answer's schema in spec/openapi.json):
 * a flat map of strings with `service_match_status`, and for a matched install the source,
 * the campaign fields, the match's details, and the link's `deep_link_path` and custom
 * parameters with the tapped URL's own (the deferred deep link). Empty while the attribution
 * is not resolved yet.
 */
import type { AttributionRecord } from "../ports/attributions.ts";
import { deepLinkParams, exportedFields } from "./results.ts";

export type AttributionParams = Record<string, string>;

export const attributionParams = (
  record: AttributionRecord,
  options: { appEnabled: boolean },
): AttributionParams => {
  if (!options.appEnabled) return { service_match_status: "not_configured" };
  if (record.state !== "resolved") {
    return record.state === "failed" ? { service_match_status: "failed" } : {};
  }
  const { result } = record;
  const fields: Record<string, string | number | null> = {
    ...exportedFields(result),
    click_id: result.clickId,
  };
  const matched = result.status === "matched" || result.status === "matched_no_params";
  // The link's own parameters and the tapped URL's never speak in the service's names, known
  // or not: a network's `campaign_id` macro on a link naming no campaign is not the install's.
  return {
    ...(matched ? deepLinkParams(result.params) : {}),
    ...Object.fromEntries(
      Object.entries(matched || result.status === "organic" ? fields : {}).flatMap(
        ([key, value]) => (value === null ? [] : [[key, String(value)]]),
      ),
    ),
    service_match_status: result.status,
  };
};

/** The contract of `GET /v1/installs/{service_id}/attribution`: the SDKs' attribution parameters. */
import * as z from "zod";
import type { AttributionParams } from "../../attribution/params.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { MATCH_STATUSES } from "../../ports/attributions.ts";
import { serviceIdParam } from "../handlers/deletions.ts";
import { attributionQuery, MAX_WAIT_SECONDS } from "../handlers/install-attribution.ts";
import { INTERNAL, JSON_MEDIA_TYPE, type RouteContract, tiedTo, unauthorized } from "./shared.ts";

export const attributionParamsSchema = tiedTo<AttributionParams>()(
  z.record(z.string(), z.string()).meta({
    id: "AttributionParams",
    description:
      "A flat map of strings. Empty while the install's attribution is not resolved yet. " +
      `Otherwise \`service_match_status\` (${[...MATCH_STATUSES, "not_configured"].map((s) => `\`${s}\``).join(", ")}: ` +
      "`not_configured` for an app switched off in its remote configuration, `failed` for a " +
      "match attempted and not resolved, which the service retries: read it again later) " +
      "and, for a matched or organic install, `media_source` (`organic` for organic), " +
      "`campaign_id`, `campaign_name`, `adset_id`, `adset_name`, `ad_id`, `ad_name`, " +
      "`click_id`, `click_to_first_open_hours`, `matching_type` (`network`, `geo`) and " +
      "`confidence_score` (`high`, `medium`, `low`), each when known. A matched install also " +
      "carries its link's `deep_link_path` and custom parameters, the deferred deep link, when " +
      "its confidence reaches the app's deep-link floor (`attribution apps config " +
      "--deep-link-confidence`, `medium` unless set): a `low` geo match is attributed " +
      "without them (`matched_no_params`).",
    example: {
      service_match_status: "matched",
      media_source: "facebook_ads",
      campaign_name: "Winter",
      deep_link_path: "/levels/7",
      promo: "WINTER",
      click_id: "4fQx0ZsR8kT2mB7nW1cY9d",
      click_to_first_open_hours: "0",
      matching_type: "network",
      confidence_score: "high",
    },
  }),
);

export const ATTRIBUTION_CONTRACTS = {
  attribution: {
    summary: "Get an install's attribution parameters",
    description:
      "The SDKs' attribution parameters and `service_match_status`. An install is attributed " +
      "in the background within seconds of `POST /v1/installs`; with `wait_seconds` the " +
      `request waits for that, up to ${MAX_WAIT_SECONDS} seconds, and answers as soon as it is done.`,
    request: {
      params: z.object({
        service_id: serviceIdParam.meta({
          description: "The install's service_id, as sent to POST /v1/installs.",
          example: "3f2b9c1e-7a4d-4e8b-9c0a-1d2e3f4a5b6c",
        }),
      }),
      query: attributionQuery,
    },
    success: {
      status: 200,
      description: "The parameters (empty while not resolved).",
      content: { [JSON_MEDIA_TYPE]: attributionParamsSchema },
    },
    errors: {
      401: unauthorized("attribution:read"),
      404: "No install with this service_id for the key's app, or its data was deleted.",
      422: `The service_id is not 1 to ${INGEST_LIMITS.maxIdLength} characters of A-Z a-z 0-9 . _ : -, or wait_seconds is not 0 to ${MAX_WAIT_SECONDS}.`,
      500: INTERNAL,
    },
  },
} as const satisfies Record<string, RouteContract>;

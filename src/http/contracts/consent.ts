/** The contract of `POST /v1/installs/{service_id}/consent`: the SDKs' consent updates. */
import * as z from "zod";
import { type ConsentAnswer, consentRequestSchema, consentSchema } from "../../ingest/consent.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { serviceIdParam } from "../handlers/deletions.ts";
import {
  INTERNAL,
  JSON_MEDIA_TYPE,
  NOT_JSON,
  type RouteContract,
  TOO_LARGE,
  tiedTo,
  unauthorized,
} from "./shared.ts";

/** As sent, each answer null where the SDK did not say, and when it was received. */
const { gdpr_applies, ad_user_data, ad_personalization, tcf_string } = consentSchema.shape;
const storedConsentSchema = z.strictObject({
  gdpr_applies: gdpr_applies.unwrap(),
  ad_user_data: ad_user_data.unwrap(),
  ad_personalization: ad_personalization.unwrap(),
  tcf_string: tcf_string.unwrap(),
  updated_at: z.string().meta({
    description: "When the service received this consent, ISO 8601 UTC.",
    example: "2026-09-16T10:00:02.000Z",
  }),
});

export const consentAnswerSchema = tiedTo<ConsentAnswer>()(
  z
    .strictObject({
      service_id: serviceIdParam.meta({ description: "The install's service_id, as sent." }),
      consent: storedConsentSchema.nullable().meta({
        description:
          "The consent the install now has; null for an install whose data was deleted on " +
          "request, of which nothing more is kept.",
      }),
    })
    .meta({ id: "ConsentAnswer", description: "The install's consent as the service keeps it." }),
);

export const CONSENT_CONTRACTS = {
  consent: {
    summary: "Update an install's consent",
    description:
      "Sent by the SDK whenever the user's consent changes after the install was recorded (the " +
      "install carries the consent of its first open). Replaces the install's consent with the " +
      "one sent; the latest is what the service uses: an advertising id whose user refused ad " +
      "user data (or did not give it where consent is required) is never used for matching.",
    request: {
      params: z.object({
        service_id: serviceIdParam.meta({
          description: "The install's service_id, as sent to POST /v1/installs.",
          example: "3f2b9c1e-7a4d-4e8b-9c0a-1d2e3f4a5b6c",
        }),
      }),
      body: { description: "The consent.", schema: consentRequestSchema },
    },
    success: {
      status: 202,
      description: "Stored.",
      content: { [JSON_MEDIA_TYPE]: consentAnswerSchema },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("ingest"),
      409: "No install with this service_id is recorded yet: send POST /v1/installs, then this again.",
      413: TOO_LARGE,
      422: `The body breaks a rule (the detail names the field), or the service_id is not 1 to ${INGEST_LIMITS.maxIdLength} characters of A-Z a-z 0-9 . _ : -.`,
      500: INTERNAL,
    },
  },
} as const satisfies Record<string, RouteContract>;

/**
 * Consent as the SDK sends it: with the install (`consent` of `POST /v1/installs`) and, when it
 * changes afterwards, through `POST /v1/installs/{service_id}/consent` (docs/api.md#consent),
 * with the device's tracking (its advertising id and ATT status) when that changed since.
 */
import * as z from "zod";
import type { Consent } from "../domain/consent.ts";
import { ConflictError, UnauthorizedError, ValidationError } from "../domain/errors.ts";
import { ATT_STATUSES } from "../domain/install-facts.ts";
import type { AppStore } from "../ports/apps.ts";
import type { DeletionStore } from "../ports/deletions.ts";
import type { DeviceTracking, InstallStore } from "../ports/installs.ts";
import { formatIssues, type Parsed } from "../validation/issues.ts";
import { dateTime, deviceId, deviceIdOrNull, missing, text } from "./fields.ts";
import { INGEST_LIMITS } from "./limits.ts";

const consentFlag = (description: string) =>
  z.boolean({ error: "must be true, false or null" }).nullish().meta({ description });

export const consentSchema = z
  .object(
    {
      gdpr_applies: consentFlag(
        "Whether the user is where consent is required (the EEA, the UK, Switzerland): the " +
          "app's own answer, else the consent platform's `IABTCF_gdprApplies`. Null: unknown.",
      ),
      ad_user_data: consentFlag(
        "Whether the user agreed that their data be sent to ad platforms for advertising " +
          "(Google's `ad_user_data`). Null: not asked (then `tcf_string` answers, when there is " +
          "one). False, or not true where consent is required, keeps the advertising id out of " +
          "matching.",
      ),
      ad_personalization: consentFlag(
        "Whether the user agreed to personalised ads (Google's `ad_personalization`). Null: not asked.",
      ),
      tcf_string: text()
        .max(INGEST_LIMITS.maxTcfStringLength, {
          error: `must be at most ${INGEST_LIMITS.maxTcfStringLength} characters`,
        })
        .nullish()
        .meta({
          description:
            "The IAB TCF v2 consent string the app's consent platform stored on the device " +
            "(`IABTCF_TCString`), as stored. Where `ad_user_data` is null, its purposes 1 and 7 " +
            "answer it (as Google reads a TCF string for consent mode).",
          example: "CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA",
        }),
    },
    {
      error: (issue) => (missing(issue.input) ? "is required" : "must be a JSON object"),
    },
  )
  .meta({
    id: "Consent",
    description:
      "The user's consent as the app knows it. The service keeps the latest per install for " +
      "the features that share data with ad networks.",
  });

export type ConsentBody = z.infer<typeof consentSchema>;

export const toConsent = (body: ConsentBody, receivedAt: Date): Consent => ({
  gdprApplies: body.gdpr_applies ?? null,
  adUserData: body.ad_user_data ?? null,
  adPersonalization: body.ad_personalization ?? null,
  tcfString: body.tcf_string || null,
  updatedAt: receivedAt.toISOString(),
});

/** The consent as answers show it: the wire's names. */
export const consentAnswer = (consent: Consent) => ({
  gdpr_applies: consent.gdprApplies,
  ad_user_data: consent.adUserData,
  ad_personalization: consent.adPersonalization,
  tcf_string: consent.tcfString,
  updated_at: consent.updatedAt,
});

export const trackingSchema = z
  .object(
    {
      maid: deviceId()
        .nullish()
        .meta({
          description:
            "The advertising id the device gives now (GAID, or IDFA when App Tracking " +
            "Transparency is authorized); null when it gives none (limit ad tracking on, the " +
            "id deleted, ATT not authorized, anonymous mode). The all-zero id is none.",
          example: null,
        }),
      att_status: z
        .enum(ATT_STATUSES, { error: `must be one of ${ATT_STATUSES.join(", ")}` })
        .nullish()
        .meta({ description: "iOS App Tracking Transparency status now.", example: "denied" }),
    },
    { error: "must be a JSON object" },
  )
  .meta({
    id: "DeviceTracking",
    description:
      "What the device now gives of its tracking, sent when it differs from what the install " +
      "last reported: the service keeps it in place of the first open's, for every postback " +
      "and lake row of the install from then on.",
  });

export const consentRequestSchema = z
  .object(
    {
      sent_at: dateTime().nullish().meta({
        description: "The device's clock when this request was sent (set on each attempt).",
        example: "2026-09-16T10:00:02Z",
      }),
      consent: consentSchema,
      device: trackingSchema.nullish(),
    },
    { error: "must be a JSON object" },
  )
  .meta({
    id: "ConsentRequest",
    description: "The install's consent, and its device's tracking, as they now stand.",
  });

export const parseConsentRequest = (
  body: unknown,
): Parsed<{ consent: ConsentBody; tracking: DeviceTracking | undefined }> => {
  const parsed = consentRequestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, detail: formatIssues(parsed.error.issues, "body") };
  const device = parsed.data.device;
  return {
    ok: true,
    value: {
      consent: parsed.data.consent,
      // Absent: the SDK said nothing of it, and what the install has stands.
      tracking: device
        ? { maid: deviceIdOrNull(device.maid), attStatus: device.att_status ?? null }
        : undefined,
    },
  };
};

export interface ConsentAnswer {
  service_id: string;
  consent: ReturnType<typeof consentAnswer> | null;
}

export interface ConsentDeps {
  readonly apps: Pick<AppStore, "get">;
  readonly installs: Pick<InstallStore, "update">;
  readonly deletions: Pick<DeletionStore, "listByInstall">;
  readonly now?: () => Date;
}

/** `POST /v1/installs/{service_id}/consent`: the install's consent replaced by the one sent. */
export const createConsentRecorder = (deps: ConsentDeps) => {
  const now = deps.now ?? (() => new Date());
  return async (appId: string, serviceId: string, body: unknown): Promise<ConsentAnswer> => {
    // The key's app was deleted after the authorizer's decision was cached.
    if (!(await deps.apps.get(appId))) throw new UnauthorizedError();
    const parsed = parseConsentRequest(body);
    if (!parsed.ok) throw new ValidationError(parsed.detail);
    // Nothing more is kept of an install whose data was deleted on request.
    if ((await deps.deletions.listByInstall(appId, serviceId)).length > 0) {
      return { service_id: serviceId, consent: null };
    }
    const updated = await deps.installs.update(appId, serviceId, {
      consent: toConsent(parsed.value.consent, now()),
      tracking: parsed.value.tracking,
    });
    if (!updated?.consent) throw new ConflictError(INSTALL_NOT_RECORDED);
    return { service_id: serviceId, consent: consentAnswer(updated.consent) };
  };
};

export const INSTALL_NOT_RECORDED =
  "No install with this service_id is recorded yet: send POST /v1/installs first, then this again.";

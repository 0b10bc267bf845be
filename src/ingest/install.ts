/**
 * `POST /v1/installs` (docs/api.md#routes): the SDK reports the first open of an install with
 * its device signals. Unknown keys are ignored, null equals absent, as for events (see
 * event-schema.ts for why).
 */
import * as z from "zod";
import type { Consent } from "../domain/consent.ts";
import { deviceClockOffsetMs } from "../domain/device-clock.ts";
import { ATT_STATUSES, OS_VALUES } from "../domain/install-facts.ts";
import { HOUR_MS } from "../domain/time.ts";
import { MAX_TIMESTAMP } from "../export/paging.ts";
import type { DeviceTracking, Install, InstallChange } from "../ports/installs.ts";
import { formatIssues, type Parsed } from "../validation/issues.ts";
import { consentSchema, toConsent } from "./consent.ts";
import {
  customerUserIdField,
  dateTime,
  deviceId,
  deviceIdOrNull,
  serviceIdField,
  shortText,
  text,
} from "./fields.ts";
import { INGEST_LIMITS } from "./limits.ts";

/** The SDKs we ship. Other lowercase names are accepted too (see `sdk_platform`). */
export const SDK_PLATFORMS = [
  "flutter",
  "unity",
  "kotlin",
  "ios",
  "android",
  "typescript",
] as const;

const SDK_PLATFORM_RULE = `must be a lowercase name of 1 to ${INGEST_LIMITS.maxSdkFieldLength} characters (a-z, 0-9, "_", "-"), e.g. ${SDK_PLATFORMS.join(", ")}`;
const SDK_VERSION_RULE = `must be 1 to ${INGEST_LIMITS.maxSdkFieldLength} characters of letters, digits, ".", "+", "_" or "-"`;
const LOCALE_RULE =
  'must be a BCP 47 language tag such as "en-US" (Android\'s "en_US" is accepted)';
const TIMEZONE_RULE = 'must be an IANA time zone name such as "Europe/Berlin"';

const unixSeconds = () =>
  z
    .int({ error: "must be an integer number of Unix seconds" })
    .min(0, { error: "must be an integer number of Unix seconds, 0 or more" })
    // The latest Unix second before year 10000: a millisecond value of today is far above it.
    .max(MAX_TIMESTAMP, {
      error: "must be Unix seconds, not milliseconds",
    });

const deviceText = () => shortText(INGEST_LIMITS.maxDeviceFieldLength).nullish();

export const installRequestSchema = z
  .object(
    {
      service_id: serviceIdField(),
      os: z
        .enum(OS_VALUES, {
          error: (issue) =>
            issue.input === undefined || issue.input === null
              ? "is required"
              : `must be one of ${OS_VALUES.join(", ")}`,
        })
        .meta({ description: "The device's operating system.", example: "android" }),
      os_version: deviceText().meta({ description: "Operating system version.", example: "14" }),
      device_model: deviceText().meta({ description: "Device model.", example: "Pixel 8" }),
      app_version: deviceText().meta({ description: "The app's version.", example: "3.2.1" }),
      // Open-ended on purpose: a new SDK (a React Native wrapper, say) must not be refused by a
      // deployment older than it; the value only labels the install and drives no logic.
      sdk_platform: text()
        .min(1, { error: SDK_PLATFORM_RULE })
        .max(INGEST_LIMITS.maxSdkFieldLength, { error: SDK_PLATFORM_RULE })
        .regex(/^[a-z][a-z0-9_-]*$/, { error: SDK_PLATFORM_RULE })
        .meta({
          description: `The SDK that sent the install: ${SDK_PLATFORMS.join(", ")}, or another lowercase name.`,
          example: "flutter",
        }),
      sdk_version: text()
        .min(1, { error: SDK_VERSION_RULE })
        .max(INGEST_LIMITS.maxSdkFieldLength, { error: SDK_VERSION_RULE })
        .regex(/^[A-Za-z0-9.+_-]+$/, { error: SDK_VERSION_RULE })
        .meta({ description: "The SDK's version.", example: "2.10.0" }),
      first_open_time: dateTime().meta({
        description: `The app's first open on this install, by the device's clock, ISO 8601 with a UTC offset or Z; at most ${INGEST_LIMITS.maxFutureSkewHours} hours ahead of the server's clock, or of \`sent_at\` when given.`,
        example: "2026-09-16T10:00:00Z",
      }),
      sent_at: dateTime()
        .nullish()
        .meta({
          description:
            "The device's clock when this request was sent (set on each attempt, not when the " +
            "install was queued), ISO 8601. With it the service reads `first_open_time` on its " +
            "own clock, which matching needs: a phone's clock may be minutes or days off. " +
            "Without it, the install referrer's `click_timestamp` of one of the service's own " +
            "taps gives the same offset.",
          example: "2026-09-16T10:00:02Z",
        }),
      idfv: deviceId().nullish().meta({
        description: "iOS identifier for vendor.",
        example: "6F9619FF-8B86-D011-B42D-00CF4FC964FF",
      }),
      maid: deviceId()
        .nullish()
        .meta({
          description:
            "Mobile advertising id (GAID, or IDFA when consented). The all-zero id that the OS " +
            "gives without consent is treated as absent.",
          example: "38400000-8cf0-11bd-b23e-10b96e40000d",
        }),
      install_referrer: z
        .object(
          {
            referrer: text()
              .max(INGEST_LIMITS.maxReferrerLength, {
                error: `must be at most ${INGEST_LIMITS.maxReferrerLength} characters`,
              })
              .meta({ description: "The Play install referrer string, as the API returns it." }),
            click_timestamp: unixSeconds()
              .nullish()
              .meta({
                description:
                  "Referrer click time by the device's clock, Unix seconds; 0 means unknown. " +
                  "Without `sent_at`, it and the tap's own time give the device's clock offset.",
              }),
            install_begin_timestamp: unixSeconds()
              .nullish()
              .meta({
                description:
                  "Install begin time by the device's clock, Unix seconds; 0 means unknown. A " +
                  "click after it was injected, and is never a match.",
              }),
            referrer_click_timestamp_server_seconds: unixSeconds().nullish().meta({
              description:
                "Referrer click time by Google Play's server clock, Unix seconds; 0 means unknown.",
            }),
            install_begin_timestamp_server_seconds: unixSeconds()
              .nullish()
              .meta({
                description:
                  "Install begin time by Google Play's server clock, Unix seconds; 0 means " +
                  "unknown. A click after it was injected, and is never a match.",
              }),
            install_version: deviceText().meta({
              description: "The app version first installed, as Play reports it.",
              example: "3.2.1",
            }),
          },
          { error: "must be a JSON object" },
        )
        .nullish()
        .meta({
          description: "Google Play install referrer details (Android).",
          example: {
            referrer: "utm_source=google-play&utm_medium=organic",
            click_timestamp: 1789552700,
            install_begin_timestamp: 1789552760,
          },
        }),
      att_status: z
        .enum(ATT_STATUSES, { error: `must be one of ${ATT_STATUSES.join(", ")}` })
        .nullish()
        .meta({
          description:
            "iOS App Tracking Transparency status at first open: the IDFA is matched only when " +
            "`authorized`.",
          example: "authorized",
        }),
      platform_ads_token: text()
        .max(INGEST_LIMITS.maxAdsTokenLength, {
          error: `must be at most ${INGEST_LIMITS.maxAdsTokenLength} characters`,
        })
        .nullish()
        .meta({
          description:
            "Apple's AdServices attribution token (iOS 14.3 and later, from " +
            "`AAAttribution.attributionToken()`), which Apple resolves to its Apple Ads " +
            "campaign. Kept only until the install is attributed.",
        }),
      open_url: text()
        .max(INGEST_LIMITS.maxReferrerLength, {
          error: `must be at most ${INGEST_LIMITS.maxReferrerLength} characters`,
        })
        .nullish()
        .meta({
          description:
            "The link that opened the app on its first launch, if any (a Universal Link or App " +
            "Link); its click id, if it carries one, attributes the install.",
          example: "https://go.example.com/Kx3v9QpZ2aQ?service_click_id=4fQx0ZsR8kT2mB7nW1cY9d",
        }),
      customer_user_id: customerUserIdField()
        .nullish()
        .meta({
          description:
            "The app's own user identifier, if already set. Kept with the install; server-to-" +
            "server events resolve an id only once an event was sent with it.",
          example: "user-8812",
        }),
      anonymous: z
        .boolean()
        .nullish()
        .meta({
          description:
            "True when the SDK's anonymous mode was on at the first launch: the install comes " +
            "with no device id and no customer user id, and its postbacks name no address or " +
            "user agent.",
          example: true,
        }),
      consent: consentSchema.nullish().meta({
        description:
          "The user's consent at first open, as the app and its consent platform know it. " +
          "Later changes go to POST /v1/installs/{service_id}/consent.",
      }),
      locale: text()
        .max(INGEST_LIMITS.maxLocaleLength, { error: LOCALE_RULE })
        .regex(/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/, { error: LOCALE_RULE })
        .nullish()
        .meta({ description: "The device's locale, a BCP 47 tag.", example: "de-DE" }),
      // Checked by shape only: the device's tz database may be newer than the server's, and
      // Node's own list leaves out aliases such as Asia/Calcutta.
      timezone: text()
        .max(INGEST_LIMITS.maxTimezoneLength, { error: TIMEZONE_RULE })
        .regex(/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/, { error: TIMEZONE_RULE })
        .nullish()
        .meta({ description: "The device's IANA time zone.", example: "Europe/Berlin" }),
    },
    { error: "must be a JSON object" },
  )
  .meta({ description: "The first open of an install, sent once by the SDK." });

export type InstallRequest = z.infer<typeof installRequestSchema>;

/** Checks an install body; a failure is a 422 with this detail. */
export const parseInstallRequest = (
  body: unknown,
  options: { now: Date },
): Parsed<InstallRequest> => {
  const parsed = installRequestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, detail: formatIssues(parsed.error.issues, "body") };
  // On the service's clock when the device sent its own: a phone set days ahead is not wrong.
  const { first_open_time: firstOpen, sent_at: sentAt } = parsed.data;
  const offset = deviceClockOffsetMs(options.now, sentAt);
  const corrected = Date.parse(firstOpen) + offset;
  const skew = corrected - options.now.getTime();
  // Before 1970 is no time the lake holds (nor a phone's first open): a sent_at years ahead, or
  // without one the time itself. The detail names the field the sender has to look at.
  if (corrected < 0) {
    return {
      ok: false,
      detail: sentAt
        ? "sent_at: is so far after first_open_time that it puts the first open before 1970"
        : "first_open_time: is before 1970",
    };
  }
  if (skew > INGEST_LIMITS.maxFutureSkewHours * HOUR_MS) {
    return {
      ok: false,
      detail: sentAt
        ? `first_open_time: is more than ${INGEST_LIMITS.maxFutureSkewHours} hours after sent_at`
        : `first_open_time: is more than ${INGEST_LIMITS.maxFutureSkewHours} hours ahead of the server's clock`,
    };
  }
  return { ok: true, value: parsed.data };
};

const textOrNull = (value: string | null | undefined): string | null =>
  value == null || value === "" ? null : value;

/** The Play API reports 0 for a time it does not know. */
const secondsOrNull = (value: number | null | undefined): number | null =>
  value == null || value === 0 ? null : value;

/** The install as stored, from a checked request. */
export function toInstall(
  request: InstallRequest,
  ctx: { appId: string; country: string | null; receivedAt: Date },
): Install {
  const referrer = request.install_referrer;
  return {
    appId: ctx.appId,
    serviceId: request.service_id,
    os: request.os,
    osVersion: textOrNull(request.os_version),
    deviceModel: textOrNull(request.device_model),
    appVersion: textOrNull(request.app_version),
    sdkPlatform: request.sdk_platform,
    sdkVersion: request.sdk_version,
    // UTC like every other time the service keeps, so they compare as strings.
    firstOpenTime: new Date(request.first_open_time).toISOString(),
    clockOffsetMs: request.sent_at ? deviceClockOffsetMs(ctx.receivedAt, request.sent_at) : null,
    // An install reported anonymous names no device and no user, whatever it carries.
    idfv: request.anonymous === true ? null : deviceIdOrNull(request.idfv),
    maid: request.anonymous === true ? null : deviceIdOrNull(request.maid),
    installReferrer: referrer
      ? {
          referrer: referrer.referrer,
          clickTimestamp: secondsOrNull(referrer.click_timestamp),
          installBeginTimestamp: secondsOrNull(referrer.install_begin_timestamp),
          clickServerTimestamp: secondsOrNull(referrer.referrer_click_timestamp_server_seconds),
          installBeginServerTimestamp: secondsOrNull(
            referrer.install_begin_timestamp_server_seconds,
          ),
          installVersion: textOrNull(referrer.install_version),
        }
      : null,
    attStatus: request.att_status ?? null,
    openUrl: textOrNull(request.open_url),
    customerUserId: request.anonymous === true ? null : (request.customer_user_id ?? null),
    ...(request.anonymous === true ? { anonymous: true } : {}),
    consent: request.consent ? toConsent(request.consent, ctx.receivedAt) : null,
    locale: textOrNull(request.locale),
    timezone: textOrNull(request.timezone),
    country: ctx.country,
    receivedAt: ctx.receivedAt.toISOString(),
  };
}

const sameConsent = (a: Consent | null, b: Consent): boolean =>
  a !== null &&
  a.gdprApplies === b.gdprApplies &&
  a.adUserData === b.adUserData &&
  a.adPersonalization === b.adPersonalization &&
  a.tcfString === b.tcfString;

/**
 * What a repeat report of a stored install changes: its consent and the device's tracking, as
 * the report gives them, where they differ from what is stored; null when nothing changes.
 * An SDK that got no answer to its install (a timeout after the service had stored it) sends
 * it again with the consent and tracking as they stand at that launch, and once answered takes
 * them as what the service holds: it sends no update for them. A withdrawal made in between
 * would otherwise be lost for good, the partners still hearing of the user, with device ids, as
 * consented; an ATT prompt answered in between, the install's IDFA.
 *
 * A full report (the SDK's whole install: its device fields, or a consent, or an ATT status)
 * names the device's tracking as it stands, a consent or not: its advertising id (none when it
 * has none: limited, reset or deleted), and its ATT status. The bare install an SDK falls back on
 * (the required fields alone, null being absent) names neither and changes nothing, but that it
 * is anonymous (no advertising id then) or an advertising id it carries.
 */
export const repeatChangesOf = (
  stored: Install,
  request: InstallRequest,
  receivedAt: Date,
): InstallChange | null => {
  // An install reported anonymous keeps naming no device.
  const anonymous = request.anonymous === true || stored.anonymous === true;
  const maid = anonymous ? null : deviceIdOrNull(request.maid);
  const full =
    request.consent != null ||
    request.att_status != null ||
    request.device_model != null ||
    request.os_version != null;
  const tracking: DeviceTracking | null = full
    ? { maid, attStatus: request.att_status ?? null }
    : anonymous || maid !== null
      ? { maid, attStatus: stored.attStatus }
      : null;
  // A report that names no tracking carries no consent either (a consent makes it full).
  if (tracking === null) return null;
  const trackingChanged = stored.maid !== tracking.maid || stored.attStatus !== tracking.attStatus;
  if (!request.consent) return trackingChanged ? { tracking } : null;
  const consent = toConsent(request.consent, receivedAt);
  return trackingChanged || !sameConsent(stored.consent, consent) ? { consent, tracking } : null;
};

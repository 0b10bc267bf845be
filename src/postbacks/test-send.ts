/**
 * A test postback: what the Partners page's "send a test postback" sends, so the owner sees a
 * configuration's request and the partner's answer before a real install depends on it.
 *
 * The request is built the way a real send's is (./delivery.ts), from a sample install made
 * for it: won by the configuration's first media source, consent given, the sample's ids all
 * zero (the value networks read as "no id"), so a partner that counts conversions counts none
 * of it by mistake; a partner that requires a device id gets the request all the same, the id
 * empty, as the test's point is its answer. Its ids are new for each test (the send id begins `test_`),
 * so a partner or a webhook that drops a repeat by its event id, install ref or delivery id
 * counts the next test as the new request it is. It goes once, through the same safe sender,
 * and is not put in the outbox or the delivery log.
 */
import { randomUUID } from "node:crypto";
import { installTypeOf } from "../attribution/results.ts";
import type { Os } from "../domain/install-facts.ts";
import type { App } from "../ports/apps.ts";
import type { AttributionResult } from "../ports/attributions.ts";
import type { Install } from "../ports/installs.ts";
import type {
  OutboxSubject,
  OutgoingRequest,
  PostbackSettings,
  SendOutcome,
} from "../ports/postbacks.ts";
import type { PartnerConfig, WebhookConfig } from "./config.ts";
import { partnerTemplateOf } from "./config.ts";
import { partnerRequestOf, type SendFacts, webhookRequestOf } from "./delivery.ts";
import { attemptLog, isCredentialName, MASK, maskBodyCredentials, maskSecrets } from "./retries.ts";
import { SIGNATURE_HEADER, signingSecrets } from "./signing.ts";

/** A test's own ids: its sample install's, its sample event's, and its delivery's. */
export interface TestIds {
  readonly serviceId: string;
  readonly eventId: string;
  readonly sendId: string;
}

export const TEST_SEND_PREFIX = "test_";

export const freshTestIds = (): TestIds => ({
  serviceId: randomUUID(),
  eventId: randomUUID(),
  sendId: `${TEST_SEND_PREFIX}${randomUUID()}`,
});
const ZERO_ID = "00000000-0000-0000-0000-000000000000";
const TEST_CLICK_ID = "test-click";
const TEST_MEDIA_SOURCE = "test_network";

/** What the owner asks of a test: an install or an event, of one platform. */
export interface TestRequest {
  readonly kind: "install" | "event";
  readonly platform: Os;
  /** Our event name (`service_purchase`); the configuration's first mapped event otherwise. */
  readonly eventName?: string;
  /**
   * The app as stored: its store ids and other build fill the sample as they fill a real send
   * (TikTok's `app_id` is the App Store id on iOS). Absent: none of its settings.
   */
  readonly app?: App;
}

/** The facts of the sample install: as a real send reads them from the stores. */
export const sampleFacts = (input: {
  readonly appId: string;
  readonly app?: App | undefined;
  readonly platform: Os;
  readonly mediaSource: string;
  readonly subject: OutboxSubject;
  readonly settings: PostbackSettings;
  readonly now: Date;
}): SendFacts => {
  const { appId, platform, now } = input;
  const firstOpenTime = new Date(now.getTime() - 60_000).toISOString();
  const touchTime = new Date(now.getTime() - 10 * 60_000).toISOString();
  const ad = {
    campaignId: "test-campaign",
    campaignName: "Test campaign",
    adsetId: null,
    adsetName: null,
    adId: null,
    adName: null,
  };
  const install: Install = {
    appId,
    serviceId: input.subject.serviceId,
    os: platform,
    osVersion: platform === "ios" ? "18.1" : "15",
    deviceModel: platform === "ios" ? "iPhone17,1" : "Pixel 9",
    appVersion: "1.0.0",
    sdkPlatform: platform === "ios" ? "swift" : "kotlin",
    sdkVersion: "1.0.0",
    firstOpenTime,
    clockOffsetMs: 0,
    idfv: platform === "ios" ? ZERO_ID : null,
    maid: ZERO_ID,
    installReferrer: null,
    attStatus: platform === "ios" ? "authorized" : null,
    openUrl: null,
    customerUserId: null,
    consent: {
      gdprApplies: false,
      adUserData: true,
      adPersonalization: true,
      tcfString: null,
      updatedAt: firstOpenTime,
    },
    locale: "en-US",
    timezone: "UTC",
    country: "US",
    receivedAt: firstOpenTime,
  };
  const attribution: AttributionResult = {
    ...ad,
    mediaSource: input.mediaSource,
    status: "matched",
    method: "click_id",
    clickId: TEST_CLICK_ID,
    deeplinkId: null,
    matchingType: "network",
    confidence: "high",
    clickToFirstOpenHours: 0.15,
    // As a real first install's: `new_install` on iOS, none on Android.
    installType: installTypeOf(install, []),
    reinstall: false,
    repeatsClick: false,
    otherCandidates: 0,
    params: {},
    cost: null,
    touchTime,
    touchType: "click",
    networkClickId: "test-network-click",
    urlParams: { click_id: "test-network-click" },
    attributedAt: now.toISOString(),
  };
  return {
    app: input.app,
    install,
    attribution,
    subject: input.subject,
    settings: input.settings,
  };
};

const subjectOf = (
  test: TestRequest,
  eventName: string | null,
  ids: TestIds,
  now: Date,
): OutboxSubject =>
  test.kind === "install"
    ? { kind: "install", serviceId: ids.serviceId, ip: null, userAgent: null }
    : {
        kind: "event",
        serviceId: ids.serviceId,
        eventId: ids.eventId,
        name: eventName ?? "service_test",
        time: now.toISOString(),
        revenue: { amount: 1.99, currency: "USD", usd: 1.99 },
        ip: null,
        userAgent: null,
        customerUserId: null,
      };

/** A test's request to a partner, or why the configuration cannot make one. */
export const partnerTestRequest = (
  config: PartnerConfig,
  test: TestRequest,
  settings: PostbackSettings,
  now: Date,
  ids: TestIds = freshTestIds(),
): { ok: true; request: OutgoingRequest } | { ok: false; problem: string } => {
  const eventName = test.eventName ?? Object.keys(config.events)[0] ?? null;
  const mapping =
    eventName !== null && Object.hasOwn(config.events, eventName)
      ? config.events[eventName]
      : undefined;
  if (test.kind === "event") {
    if (!partnerTemplateOf(config)?.event) {
      return { ok: false, problem: "the partner takes no event postbacks" };
    }
    if (!mapping) {
      return {
        ok: false,
        problem:
          eventName === null
            ? "no event is mapped for the partner: map one first"
            : `${eventName} is not mapped for the partner`,
      };
    }
  }
  const subject = subjectOf(test, eventName, ids, now);
  const facts = sampleFacts({
    appId: config.appId,
    app: test.app,
    platform: test.platform,
    mediaSource: config.mediaSources[0] ?? TEST_MEDIA_SOURCE,
    subject,
    settings,
    now,
  });
  const built = partnerRequestOf({
    config,
    facts,
    event:
      subject.kind === "event" && mapping
        ? {
            eventId: subject.eventId,
            name: mapping.name,
            time: subject.time,
            revenue: mapping.revenue ? subject.revenue : null,
          }
        : null,
    won: true,
    attempt: 1,
    // The sample's ids are all zero, which is no id: a partner that matches on one (Google
    // Ads) still gets the test's request, its id empty, and the owner sees what it answers.
    enforceRequires: false,
  });
  return built.ok ? { ok: true, request: built.request } : built;
};

/** A test's delivery to a webhook: the sample install (or its event), signed. */
export const webhookTestRequest = (
  webhook: WebhookConfig,
  test: TestRequest,
  now: Date,
  ids: TestIds = freshTestIds(),
): OutgoingRequest =>
  webhookRequestOf({
    url: webhook.url,
    secrets: signingSecrets(webhook, now),
    facts: sampleFacts({
      appId: webhook.appId,
      app: test.app,
      platform: test.platform,
      mediaSource: TEST_MEDIA_SOURCE,
      subject: subjectOf(test, test.eventName ?? null, ids, now),
      settings: { shareDeviceDataWithoutConsent: false },
      now,
    }),
    sendId: ids.sendId,
    attempt: 1,
    now,
  });

/** What the owner is shown of a test: the request as sent (secrets masked) and its answer. */
export interface TestResult {
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string | null;
  };
  readonly response: {
    readonly status: number | null;
    readonly body: string | null;
    readonly error: string | null;
  };
  /** What a real send would do after this answer: done, tried again, or given up. */
  readonly verdict: "delivered" | "retry" | "failed";
  /**
   * What a real send would meet that the test's sample does not: the sample has consent and an
   * all-zero advertising id, so a partner that needs a real id answers it while every real
   * install without a shareable one is skipped.
   */
  readonly warnings: string[];
}

/** What the partner's `requires` entries are, in words; an entry not here is said by its names. */
const REQUIRED_WORDS: Readonly<Record<string, string>> = {
  advertising_id: "matches on the advertising id",
  "advertising_id|click.gamer_id":
    "matches on the advertising id or the gamer id its click carries",
  store_app_id:
    "needs the app's id in its store (on iOS, the App Store id of the app's settings; an app without one has every send skipped)",
};

/**
 * What a partner's real sends would meet that its test does not show: the test sends whatever
 * its `requires` entries ask for, where a real send without them is skipped. One that matches
 * on the advertising id (Google Ads, Unity without a gamer id) gets none from an install whose
 * app reports no consent unless the app's `share_device_data_without_consent` is on, and on
 * iOS none without tracking allowed. The store's id is said only of an app whose iPhone installs
 * would lack it (no App Store id set), when the app is known.
 */
export const partnerTestWarnings = (
  config: PartnerConfig,
  settings: PostbackSettings,
  app?: App,
): string[] =>
  (partnerTemplateOf(config)?.requires ?? [])
    .filter((entry) => entry !== "store_app_id" || app === undefined || lacksAppStoreId(app))
    .map((entry) => {
      const skipped = `The partner ${REQUIRED_WORDS[entry] ?? `needs ${entry.split("|").join(" or ")}`}, and a real send without it is skipped (missing:${entry}), where this test's is sent.`;
      if (!entry.split("|").includes("advertising_id")) return skipped;
      return (
        `${skipped} An install's advertising id goes ` +
        (settings.shareDeviceDataWithoutConsent
          ? "unless its consent refuses ad_user_data, or GDPR applies to it and it gave no answer"
          : "only with ad_user_data consent (the SDKs' setConsent): one whose app reports no consent keeps it, as share_device_data_without_consent is off (PUT /v1/postbacks/settings; turn it on where no consent is needed)") +
        "; on iOS, only when the user allowed tracking (App Tracking Transparency)."
      );
    });

/** An app with iPhone installs (its own platform's, or its iOS build's) and no App Store id. */
const lacksAppStoreId = (app: App): boolean =>
  !app.links?.appStoreId && (app.platform === "ios" || Boolean(app.links?.iosBundleId));

/** The test's request and outcome, as the owner sees them: every secret masked. */
export const testResultOf = (input: {
  readonly request: OutgoingRequest;
  readonly outcome: SendOutcome;
  readonly secrets: readonly string[];
  readonly now: Date;
  readonly warnings?: readonly string[];
}): TestResult => {
  const { request, secrets } = input;
  // The attempt log's record masks the URL, the answer and the error as the log would.
  const record = attemptLog({
    url: request.url,
    method: request.method,
    outcome: input.outcome,
    attempt: 1,
    endedAt: input.now,
    secrets,
  });
  return {
    request: {
      method: request.method,
      url: record.url,
      // A header named like a credential (a template's `Authorization`) is masked whole, as the
      // configuration's answers show it; the service's own signature is shown, to check with.
      headers: Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [
          name,
          name !== SIGNATURE_HEADER && isCredentialName(name) && value !== ""
            ? MASK
            : maskSecrets(value, secrets),
        ]),
      ),
      // A literal credential the template's body carries under a credential's key is masked
      // as the configuration's answers mask it.
      body: request.body === null ? null : maskBodyCredentials(maskSecrets(request.body, secrets)),
    },
    response: { status: record.status, body: record.answer, error: record.error },
    verdict: record.verdict,
    warnings: [...(input.warnings ?? [])],
  };
};

/**
 * What one send is made of, as the delivery worker (src/workers/postback-worker.ts) puts it
 * together from the stores: the facts a template is filled from (the install as stored, its
 * winning touch, what the trigger knew of the request), the request of a partner's template,
 * and a webhook's body and signed headers. Pure: the worker reads, this builds.
 */

import { keptFirstOpen } from "../attribution/first-open.ts";
import { REINSTALL } from "../domain/attribution.ts";
import type { App } from "../ports/apps.ts";
import type { AttributionResult } from "../ports/attributions.ts";
import type { Install } from "../ports/installs.ts";
import type {
  OutboxSubject,
  OutgoingRequest,
  PostbackSettings,
  StoredPartnerConfig,
} from "../ports/postbacks.ts";
import { referrerParamOf } from "../touches/destination.ts";
import { type CustomTemplate, type PartnerConfig, partnerTemplateOf } from "./config.ts";
import { partnerById, requestFor } from "./partners.ts";
import type { AcceptedEvent, ResolvedAttribution } from "./rules.ts";
import { webhookHeaders } from "./signing.ts";
import {
  type BuiltRequest,
  buildRequest,
  type PostbackEvent,
  type PostbackInstall,
} from "./templates.ts";

/** A message of the postback worker's queue: attempt `attempt` of one send of the outbox. */
export interface PostbackJob {
  readonly appId: string;
  readonly sendId: string;
  /** 1 to its send's retry policy's last (./retries.ts). */
  readonly attempt: number;
}

/** What the rules read of a stored attribution. */
export const resolvedOf = (result: AttributionResult): ResolvedAttribution => ({
  status: result.status,
  mediaSource: result.mediaSource,
  repeatsClick: result.repeatsClick,
});

/**
 * A stored partner configuration as the rules read it: which installs and events go does not
 * depend on its values, so its secret ones need not be opened to decide (they are left out).
 */
export const decisionConfigOf = (stored: StoredPartnerConfig): PartnerConfig => ({
  id: stored.id,
  appId: stored.appId,
  partner: stored.partner,
  // Stored from a checked configuration (./config.ts), whose template it is.
  template: (stored.template ?? null) as CustomTemplate | null,
  mediaSources: stored.mediaSources,
  values: stored.values,
  secretValues: stored.secretValues,
  installs: stored.installs,
  events: stored.events,
  eventWindowDays: stored.eventWindowDays,
  tcfVendorId: stored.tcfVendorId,
  enabled: stored.enabled,
});

/** An event subject as the rules read it. */
export const acceptedEventOf = (
  subject: Extract<OutboxSubject, { kind: "event" }>,
): AcceptedEvent => ({
  eventId: subject.eventId,
  name: subject.name,
  time: subject.time,
  revenue: subject.revenue,
});

/** Everything a send reads of the stores. */
export interface SendFacts {
  readonly app: App | undefined;
  readonly install: Install;
  /** The install's attribution once resolved (with its winning touch's); null while pending. */
  readonly attribution: AttributionResult | null;
  readonly subject: OutboxSubject;
  readonly settings: PostbackSettings;
}

const MATCHED = new Set(["matched", "matched_no_params"]);

/** The install as a template reads it; the winning touch only for a matched install. */
export const postbackInstallOf = (facts: SendFacts): PostbackInstall => {
  const { install, attribution, subject } = facts;
  // An event sent in the SDK's anonymous mode names no device, whatever the install did.
  const anonymous = subject.kind === "event" && subject.anonymous === true;
  const won =
    attribution !== null && MATCHED.has(attribution.status) && attribution.mediaSource !== null
      ? { ...attribution, mediaSource: attribution.mediaSource }
      : null;
  // The app's other store's build, on a phone of that store: its setting names its id.
  const otherBuild =
    facts.app?.platform === "ios" && install.os === "android"
      ? facts.app.links?.playPackage
      : facts.app?.platform === "android" && install.os === "ios"
        ? facts.app.links?.iosBundleId
        : undefined;
  return {
    appId: install.appId,
    platformAppId: otherBuild || install.appId,
    appStoreId: facts.app?.links?.appStoreId ?? null,
    platform: install.os,
    serviceId: install.serviceId,
    advertisingId: anonymous ? null : install.maid,
    attStatus: install.attStatus,
    idfv: anonymous ? null : install.idfv,
    // The install's time as the export keeps it: a device clock set wrong moves neither the
    // partner's install time nor the event window that runs from it.
    firstOpenTime: keptFirstOpen(install),
    // A reinstall of either platform says so (the export's `install_type` is iOS only).
    installType: attribution?.reinstall ? REINSTALL : (attribution?.installType ?? null),
    appVersion: install.appVersion,
    osVersion: install.osVersion,
    deviceModel: install.deviceModel,
    sdkVersion: `${install.sdkPlatform} ${install.sdkVersion}`,
    locale: install.locale,
    timezone: install.timezone,
    country: install.country,
    ip: subject.ip,
    userAgent: subject.userAgent,
    consent: install.consent,
    referrerGclid: anonymous ? null : referrerParamOf(install.installReferrer?.referrer, "gclid"),
    touch: won && {
      mediaSource: won.mediaSource,
      campaignId: won.campaignId,
      campaignName: won.campaignName,
      adsetId: won.adsetId,
      adsetName: won.adsetName,
      adId: won.adId,
      adName: won.adName,
      clickId: won.clickId,
      touchTime: won.touchTime ?? "",
      touchType: won.touchType,
      networkClickId: won.networkClickId,
      urlParams: won.urlParams,
    },
  };
};

/** One attempt's request to a partner, from its template (or why it cannot be made). */
export const partnerRequestOf = (input: {
  readonly config: PartnerConfig;
  readonly facts: SendFacts;
  /** The event as the partner hears of it (the rules' decision); null for an install. */
  readonly event: PostbackEvent | null;
  readonly won: boolean;
  readonly attempt: number;
  /**
   * Whether the macros the partner requires (a device id it matches on) must be filled: a real
   * send is not made without them; a test's sample install has no real id to give.
   */
  readonly enforceRequires?: boolean;
}): BuiltRequest => {
  const partner = partnerTemplateOf(input.config);
  const kind = input.facts.subject.kind;
  const template = partner ? requestFor(partner, kind, input.facts.install.os) : null;
  if (!partner || !template) {
    return { ok: false, problem: `the partner takes no ${kind} postbacks` };
  }
  const install = postbackInstallOf(input.facts);
  // Google's click id, told to Google only: another network learns nothing of its campaigns.
  const google = input.config.mediaSources.some((source) => GOOGLE_SOURCES.has(source));
  return buildRequest(
    template,
    {
      configId: input.config.id,
      install: google ? install : { ...install, referrerGclid: null },
      event: input.event,
      won: input.won,
      attempt: input.attempt,
      values: input.config.values,
      shareDeviceDataWithoutConsent: input.facts.settings.shareDeviceDataWithoutConsent,
    },
    input.enforceRequires === false ? [] : partner.requires,
  );
};

/** Google's media sources: a configuration of one is told the gclid of the Play referrer. */
const GOOGLE_SOURCES: ReadonlySet<string> = new Set(partnerById("google-ads")?.mediaSources);

/** The template's URL as it stands, for the log of a request that could not be made. */
export const templateUrlOf = (config: PartnerConfig, facts: SendFacts): string => {
  const partner = partnerTemplateOf(config);
  const template = partner ? requestFor(partner, facts.subject.kind, facts.install.os) : null;
  return template?.url ?? "";
};

const nullable = <T>(value: T | null | undefined): T | null => value ?? null;

/**
 * A webhook's JSON body: the install (or the event and its install) and the attribution as it
 * stands, in the export's field names (its install's first open as the export keeps it, on the
 * service's clock when the device's was off). The app's own backend hears of its own users: no
 * device id and no address go with it, only the install's id and its customer user id: for an
 * event, the one the event was sent with, as the export names it (a user who logged in after
 * the install is named by their events only), else the install's; none for an event sent in
 * the SDK's anonymous mode.
 */
export const webhookBodyOf = (facts: SendFacts, sendId: string): string => {
  const { install, attribution, subject } = facts;
  const customerUserId =
    subject.kind === "event" && subject.anonymous === true
      ? null
      : ((subject.kind === "event" ? subject.customerUserId : null) ?? install.customerUserId);
  return JSON.stringify({
    type: subject.kind,
    delivery_id: sendId,
    app_id: install.appId,
    service_id: install.serviceId,
    platform: install.os,
    install: {
      first_open_time: keptFirstOpen(install),
      app_version: install.appVersion,
      os_version: install.osVersion,
      device_model: install.deviceModel,
      sdk_version: `${install.sdkPlatform} ${install.sdkVersion}`,
      country: install.country,
      locale: install.locale,
      customer_user_id: customerUserId,
    },
    attribution: attribution && {
      service_match_status: attribution.status,
      media_source: attribution.mediaSource,
      campaign_id: attribution.campaignId,
      campaign_name: attribution.campaignName,
      adset_id: attribution.adsetId,
      adset_name: attribution.adsetName,
      ad_id: attribution.adId,
      ad_name: attribution.adName,
      click_id: attribution.clickId,
      // `click` (click-through) or `impression` (view-through); null without a touch.
      touch_type: attribution.touchType,
      matching_type: attribution.matchingType,
      confidence_score: attribution.confidence,
      install_type: attribution.installType,
      // The same device installing again, on either platform (install_type says so on iOS).
      reinstall: attribution.reinstall,
      attributed_at: attribution.attributedAt,
    },
    ...(subject.kind === "event"
      ? {
          event: {
            event_id: subject.eventId,
            event_name: subject.name,
            event_time: subject.time,
            revenue: nullable(subject.revenue?.amount),
            currency: nullable(subject.revenue?.currency),
          },
        }
      : {}),
  });
};

/** One attempt's webhook delivery: a POST of the body, signed at `now`. */
export const webhookRequestOf = (input: {
  readonly url: string;
  /** The secrets it is signed with (./signing.ts signingSecrets). */
  readonly secrets: readonly string[];
  readonly facts: SendFacts;
  readonly sendId: string;
  readonly attempt: number;
  readonly now: Date;
}): OutgoingRequest => {
  const body = webhookBodyOf(input.facts, input.sendId);
  return {
    method: "POST",
    url: input.url,
    headers: webhookHeaders({
      secrets: input.secrets,
      body,
      sendId: input.sendId,
      attempt: input.attempt,
      now: input.now,
    }),
    body,
  };
};

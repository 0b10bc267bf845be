/**
 * Which postbacks happen. For an install whose attribution is resolved, and for each accepted
 * event of it, each of the app's partner configurations says whether it hears of it:
 *
 * - an install goes when the partner won it (its attribution's media source is one of the
 *   configuration's, case and surrounding spaces aside), or to every partner set to `all`,
 *   but for an install not attributed on purpose (`skipped`: its app or attribution off);
 * - an event goes when its name is mapped, under the same rule as its install, and within the
 *   configuration's window (180 days by default) from the install's first open; its revenue
 *   goes only when the mapping says so;
 * - neither goes to a partner when the install's user refused ad user data, or consent is
 *   required and was not given (consentSkip): an ad network is a third party, and even without
 *   device ids a postback tells it of the device (its install id, user agent, model, locale);
 *   nor to a partner on the IAB's Global Vendor List that the install's TCF string gives no
 *   consent. The app's own webhooks are first party and not held back.
 *
 * A send's id is derived from the configuration and the install (or event), so the outbox that
 * stores sends can refuse a second one however often an install or event is processed.
 */
import { createHash } from "node:crypto";
import { allowsAdUserData, type Consent, vendorRefused } from "../domain/consent.ts";
import { DAY_MS } from "../domain/time.ts";
import type { MatchStatus } from "../ports/attributions.ts";
import type { SendRevenue } from "../ports/postbacks.ts";
import { type PartnerConfig, partnerTemplateOf } from "./config.ts";
import type { PostbackEvent } from "./templates.ts";

/** What the rules read of an install's stored attribution, once resolved. */
export interface ResolvedAttribution {
  readonly status: Exclude<MatchStatus, "failed">;
  /** The winning touch's media source; `organic`, or null for a skipped install. */
  readonly mediaSource: string | null;
  /** Credited to the click an earlier install of the device holds (its network was told). */
  readonly repeatsClick?: boolean;
}

export type SkipReason =
  | "disabled"
  | "not_resolved"
  | "no_template"
  | "install_skipped"
  | "repeated_click"
  | "not_won"
  | "unmapped"
  | "outside_window"
  | "no_consent"
  | "no_vendor_consent";

export type InstallDecision =
  | { readonly send: true; readonly won: boolean }
  | { readonly send: false; readonly reason: SkipReason };

export type EventDecision =
  | { readonly send: true; readonly won: boolean; readonly event: PostbackEvent }
  | { readonly send: false; readonly reason: SkipReason };

/** An accepted event, under our name (the exported `event_name`). */
export interface AcceptedEvent {
  readonly eventId: string;
  readonly name: string;
  /** ISO 8601. */
  readonly time: string;
  readonly revenue: SendRevenue | null;
}

const normalise = (source: string): string => source.trim().toLowerCase();

/** Whether the install was won by one of the configuration's media sources. */
export const wonBy = (
  config: Pick<PartnerConfig, "mediaSources">,
  attribution: ResolvedAttribution,
): boolean => {
  if (attribution.status !== "matched" && attribution.status !== "matched_no_params") return false;
  const source = attribution.mediaSource;
  if (source === null) return false;
  return config.mediaSources.some((own) => normalise(own) === normalise(source));
};

/** Whether the install's postback goes to this configuration's partner. */
export const installDecision = (
  config: PartnerConfig,
  attribution: ResolvedAttribution | null,
): InstallDecision => {
  if (!config.enabled) return { send: false, reason: "disabled" };
  if (!attribution) return { send: false, reason: "not_resolved" };
  if (!partnerTemplateOf(config)?.install) return { send: false, reason: "no_template" };
  if (attribution.status === "skipped") return { send: false, reason: "install_skipped" };
  const won = wonBy(config, attribution);
  if (!won && config.installs === "won") return { send: false, reason: "not_won" };
  // The partner was told of the click's install, and charged for it, by the device's first
  // install: told again, it would count (and bill) one tap twice.
  if (won && attribution.repeatsClick === true) return { send: false, reason: "repeated_click" };
  return { send: true, won };
};

/**
 * Whether an event's postback goes to this configuration's partner, and the event as the
 * partner hears of it (its name mapped, its revenue only when the mapping sends revenue).
 * `installTime` is the install's first open: the window runs from it. An event timed before
 * it (a device clock set back) is inside the window.
 */
export const eventDecision = (
  config: PartnerConfig,
  attribution: ResolvedAttribution | null,
  installTime: string,
  event: AcceptedEvent,
): EventDecision => {
  if (!config.enabled) return { send: false, reason: "disabled" };
  if (!attribution) return { send: false, reason: "not_resolved" };
  if (!partnerTemplateOf(config)?.event) return { send: false, reason: "no_template" };
  if (attribution.status === "skipped") return { send: false, reason: "install_skipped" };
  const mapping = Object.hasOwn(config.events, event.name) ? config.events[event.name] : undefined;
  if (!mapping) return { send: false, reason: "unmapped" };
  const won = wonBy(config, attribution);
  if (!won && config.installs === "won") return { send: false, reason: "not_won" };
  const since = Date.parse(event.time) - Date.parse(installTime);
  if (!Number.isFinite(since) || since > config.eventWindowDays * DAY_MS) {
    return { send: false, reason: "outside_window" };
  }
  return {
    send: true,
    won,
    event: {
      eventId: event.eventId,
      name: mapping.name,
      time: event.time,
      revenue: mapping.revenue ? event.revenue : null,
    },
  };
};

/**
 * Whether a partner may hear of the install at all, as its consent stands at the attempt: not
 * when its user refused ad user data, nor where consent is required and was not given, nor when
 * the partner is the vendor `vendorId` of the Global Vendor List and the install's TCF string
 * gives it no consent. A user never asked is the app's setting's to decide for device ids
 * (./templates.ts), not for the send. The trigger does not know the install's consent, so the
 * worker asks at each attempt.
 */
export const consentSkip = (
  consent: Consent | null,
  vendorId: number | null,
): "no_consent" | "no_vendor_consent" | null => {
  if (!allowsAdUserData(consent)) return "no_consent";
  return vendorRefused(consent, vendorId) ? "no_vendor_consent" : null;
};

/** What a send is about: an install, or one of its events (the export's key for events). */
export type SendSubject =
  | { readonly kind: "install"; readonly serviceId: string }
  | { readonly kind: "event"; readonly serviceId: string; readonly eventId: string };

/**
 * The send's id: the same for the same configuration (a partner's or a webhook's) and
 * subject, whenever and however often it is computed; different for any other pair. The parts
 * are hashed as a JSON array, so no choice of ids can make two pairs run together.
 */
export const sendIdOf = (configId: string, subject: SendSubject): string => {
  const parts =
    subject.kind === "install"
      ? [configId, subject.kind, subject.serviceId]
      : [configId, subject.kind, subject.serviceId, subject.eventId];
  const digest = createHash("sha256").update(JSON.stringify(parts)).digest("base64url");
  return `snd_${digest.slice(0, 32)}`;
};

/**
 * Each install's attribution: pending from its first open until the matcher resolves it, then
 * its result, once (`service_match_status`, docs/attribution.md#results). What matching needs
 * of the request is kept only while the attribution is unresolved, but for the request's
 * address and user agent, which its postbacks name: those are kept until they are sent on.
 */
import type { Confidence, InstallType, MatchMethod } from "../domain/attribution.ts";
import type { InstallFacts } from "../domain/install-facts.ts";
import type { TouchCost, TouchType } from "../domain/touch.ts";
import type { AdFields } from "./links.ts";

export const MATCH_STATUSES = [
  "matched",
  "matched_no_params",
  "organic",
  "skipped",
  "failed",
] as const;
export type MatchStatus = (typeof MATCH_STATUSES)[number];

/** A resolved attribution: the match and what the install and its exported events carry. */
export interface AttributionResult extends Omit<AdFields, "mediaSource"> {
  /** The winning touch's source, `organic`, or null for a skipped install. */
  readonly mediaSource: string | null;
  readonly status: Exclude<MatchStatus, "failed">;
  readonly method: MatchMethod | null;
  /** The winning touch's click id. */
  readonly clickId: string | null;
  readonly deeplinkId: string | null;
  readonly matchingType: "network" | "geo" | null;
  readonly confidence: Confidence | null;
  readonly clickToFirstOpenHours: number | null;
  readonly installType: InstallType | null;
  /**
   * The same device installing again, on any platform: an iOS device's IDFV an earlier install
   * had, or an earlier install of the device holding the click this one is credited to. The
   * export says so on iOS only (`installType`); the reports count it apart on both.
   */
  readonly reinstall: boolean;
  /**
   * Credited to the click an earlier install of the same device holds: the device installing
   * again from a tap its network was told of, and paid for, with that first install.
   */
  readonly repeatsClick: boolean;
  /** How many other touches the winning method found eligible. */
  readonly otherCandidates: number;
  /** The link's `deep_link_path` and custom parameters: the deferred deep link. */
  readonly params: Readonly<Record<string, string>>;
  /** The install's cost: the winning touch's when it is paid per install (CPI); else null. */
  readonly cost: TouchCost | null;
  /**
   * Of the winning touch, what its postbacks name (`{click.*}`, the click's time, the network's
   * click id): kept here because the touch expires after 30 days, and an event postback a year
   * on still names its click. ISO 8601 UTC; null without a touch.
   */
  readonly touchTime: string | null;
  /**
   * The winning touch's kind: a `click` (click-through) or an `impression` (view-through);
   * null without a touch.
   */
  readonly touchType: TouchType | null;
  /** The network's own click id, when the network reported the click. */
  readonly networkClickId: string | null;
  /** The tapped URL's own query: a network's click id and sub-parameters ({} without a touch). */
  readonly urlParams: Readonly<Record<string, string>>;
  /** ISO 8601 UTC. */
  readonly attributedAt: string;
}

/** Where the install's request came from, as its postbacks name it (`{ip}`, `{user_agent}`). */
export interface InstallSender {
  readonly ip: string | null;
  readonly userAgent: string | null;
}

export type AttributionRecord =
  | {
      readonly state: "pending" | "failed";
      readonly appId: string;
      readonly serviceId: string;
      readonly facts: InstallFacts;
      readonly requestedAt: string;
    }
  | {
      readonly state: "resolved";
      readonly appId: string;
      readonly serviceId: string;
      readonly result: AttributionResult;
      /** Whether its lake rows (the attribution, the install event) are written. */
      readonly delivered: boolean;
      /** Kept until delivered, so that postbacks made again after a stop still name it. */
      readonly sender: InstallSender | null;
    };

export interface AttributionStore {
  /** Records a pending attribution unless the install has one; true when this call made it. */
  createPending(pending: {
    appId: string;
    serviceId: string;
    facts: InstallFacts;
    requestedAt: string;
  }): Promise<boolean>;
  get(appId: string, serviceId: string): Promise<AttributionRecord | undefined>;
  /**
   * Stores the result if the attribution is still unresolved (pending or failed), forgetting
   * the facts but for the sender, until delivered; false when another run resolved it first.
   */
  resolve(
    appId: string,
    serviceId: string,
    result: AttributionResult,
    sender: InstallSender,
  ): Promise<boolean>;
  /** Marks an unresolved attribution failed (its last try failed); the sweeper retries it. */
  markFailed(appId: string, serviceId: string): Promise<void>;
  /** Marks its lake rows and postbacks written, forgetting the sender. */
  markDelivered(appId: string, serviceId: string): Promise<void>;
  /**
   * Attributions requested before `before` and not finished (unresolved, or resolved with
   * their lake rows unwritten): what a crash or a failure left for the sweeper.
   */
  listOpen(before: Date): Promise<{ appId: string; serviceId: string }[]>;
  /** Forgets an install's attribution (its data was deleted on request). */
  delete(appId: string, serviceId: string): Promise<void>;
}

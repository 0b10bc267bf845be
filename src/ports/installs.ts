/** Installs and the customer-user mapping, as the ingestion path stores and reads them. */
import type { Consent } from "../domain/consent.ts";
import type { AttStatus, Os } from "../domain/install-facts.ts";

export type { Os };

/** What the service keeps of an install: its identity and the install-level event fields. */
export interface Install {
  readonly appId: string;
  /** Generated on the device; unique within the app. */
  readonly serviceId: string;
  readonly os: Os;
  readonly osVersion: string | null;
  readonly deviceModel: string | null;
  readonly appVersion: string | null;
  readonly sdkPlatform: string;
  readonly sdkVersion: string;
  /** ISO 8601, from the device. */
  readonly firstOpenTime: string;
  /**
   * The service's clock minus the device's when the install was first reported, from its
   * `sent_at`; null when it did not say.
   */
  readonly clockOffsetMs: number | null;
  readonly idfv: string | null;
  readonly maid: string | null;
  readonly installReferrer: {
    readonly referrer: string;
    readonly clickTimestamp: number | null;
    readonly installBeginTimestamp: number | null;
    /** The same two times by Google Play's server clock, Unix seconds. */
    readonly clickServerTimestamp: number | null;
    readonly installBeginServerTimestamp: number | null;
    readonly installVersion: string | null;
  } | null;
  /** iOS App Tracking Transparency status at first open. */
  readonly attStatus: AttStatus | null;
  /** The link that opened the app on its first launch. */
  readonly openUrl: string | null;
  readonly customerUserId: string | null;
  /**
   * Reported in the SDK's anonymous mode: the install's postbacks then name no address or user
   * agent, as its events' name none.
   */
  readonly anonymous?: boolean;
  /** The user's latest consent, as the SDK last reported it; null when it never said. */
  readonly consent: Consent | null;
  readonly locale: string | null;
  readonly timezone: string | null;
  /** Country of the caller at first open (ISO 3166-1 alpha-2), when known. */
  readonly country: string | null;
  /** ISO 8601, when the service first received it. */
  readonly receivedAt: string;
}

/**
 * What the device now gives of its tracking: its advertising id (null: none, as with limit ad
 * tracking on, the id deleted, or App Tracking Transparency not authorized) and, on iOS, the
 * ATT status. An install keeps the latest the SDK reported, so that what the user changed after
 * the first open holds for everything sent of the install from then on.
 */
export interface DeviceTracking {
  readonly maid: string | null;
  readonly attStatus: AttStatus | null;
}

/** What a later report changes of a stored install: its consent, its device's tracking, or both. */
export type InstallChange =
  | { readonly consent: Consent; readonly tracking?: DeviceTracking }
  | { readonly consent?: undefined; readonly tracking: DeviceTracking };

export interface InstallStore {
  /** Stores the install unless one with its id exists; returns the stored one either way. */
  putIfAbsent(install: Install): Promise<{ install: Install; created: boolean }>;
  get(appId: string, serviceId: string): Promise<Install | undefined>;
  /**
   * Replaces what the change gives of the install: its consent, and its advertising id and ATT
   * status (the device's, as they now stand); returns the install as it now is, or undefined
   * when there is none.
   */
  update(appId: string, serviceId: string, change: InstallChange): Promise<Install | undefined>;
  delete(appId: string, serviceId: string): Promise<void>;
}

/** What attribution asks of the app's other installs. */
export interface InstallHistory {
  /** The app's installs of one IDFV (an iOS device), this one included. */
  withIdfv(appId: string, idfv: string): Promise<Install[]>;
}

/** A customer user id's latest use: the install, and the time of its event (ISO 8601 UTC). */
export interface CustomerUserUse {
  readonly serviceId: string;
  readonly seenAt: string;
}

/**
 * Which install last sent events under a customer user id, for server-to-server events, and
 * which others have: a person signed in on a phone and a tablet is one user of two installs.
 */
export interface CustomerUserMap {
  /**
   * Records a use, unless a later one is stored (the latest use by event time stands); returns
   * the use that stands after it. The install that stood before a later use by another, or
   * whose use comes after another's later one, is kept among the id's other installs.
   */
  put(
    appId: string,
    customerUserId: string,
    serviceId: string,
    seenAt: string,
  ): Promise<CustomerUserUse>;
  /**
   * The install that last used the id. With `purged`, instead the install whose purge removed
   * the id's mapping (from the mark `deleteInstall` leaves), so that a server naming a deleted
   * user is told so rather than that the user is not known yet.
   */
  get(
    appId: string,
    customerUserId: string,
    options?: { readonly purged?: boolean },
  ): Promise<string | undefined>;
  /**
   * The installs known to have used the id besides the one that stood at the time, the latest
   * use first (as last recorded; the id's latest install may be among them): where a server's
   * event goes when the user's latest install was deleted.
   */
  otherInstalls(appId: string, customerUserId: string): Promise<string[]>;
  /**
   * Removes the mappings that still name the install (the purge), and the install from every
   * id's other installs. Each mapping leaves a mark naming the install, found by the customer
   * user id but keeping no id in clear.
   */
  deleteInstall(appId: string, serviceId: string): Promise<void>;
}

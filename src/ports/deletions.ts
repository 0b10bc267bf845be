/** Requests to delete an install's data (the SDKs' deleteUserData), and their progress. */

export const DELETION_STATUSES = ["pending", "in_progress", "completed"] as const;
export type DeletionStatus = (typeof DELETION_STATUSES)[number];

export interface DeletionRequest {
  readonly requestId: string;
  readonly appId: string;
  readonly serviceId: string;
  readonly status: DeletionStatus;
  /** ISO 8601. From this moment the install's events are hidden from every export. */
  readonly requestedAt: string;
  readonly completedAt: string | null;
}

/**
 * What an export must know of an app's newest deletion requests, read at once and whole: the
 * installs of its open requests and a version that each new request moves on, so a snapshot
 * made from an older version is known to be stale. An export leaves these installs out, and
 * those of every request listed by app (completed ones' rows are purged, and rows that came
 * late are still hidden).
 */
export interface Tombstones {
  readonly serviceIds: readonly string[];
  readonly version: number;
}

/**
 * The most installs one pass over an app's lake takes; the app's other requests wait for a
 * later pass. Reading the app's files costs the same for one install as for many, so a pass
 * takes as many as it may; the bound keeps a saved pass small (a thousand ids of at most 128
 * characters: about a third of DynamoDB's 400 KB item).
 */
export const PASS_INSTALLS_AT_MOST = 1_000;

/**
 * An app's pass over its lake that a run stopped before its end, out of time: the installs it
 * purges, and where the lake purger stopped (opaque here). The next run goes on with it, and
 * with these installs only, before any other of the app's requests.
 */
export interface SavedPass {
  readonly serviceIds: readonly string[];
  readonly position: string;
}

export interface TombstoneOptions {
  /**
   * Whether an export's earlier snapshots are withdrawn (true unless false): needed only where
   * the install has data a snapshot could hold.
   */
  readonly moveVersion?: boolean;
}

export interface DeletionStore {
  /**
   * Stores a new request, then marks its tombstone (`markTombstone`, with the same options):
   * true. False when a request with its id is stored already (made by another call meanwhile):
   * nothing is written.
   */
  create(request: DeletionRequest, options?: TombstoneOptions): Promise<boolean>;
  /**
   * Adds a stored, pending request's install to its app's tombstones, and moves their version
   * on (unless `moveVersion` is false); only where the install is not there already, so a
   * request moves the version once however often it is asked again. A repeat of a pending
   * request calls it, as the purge does before taking one up, which completes a `create` that
   * failed after storing. A request the purge has taken up changes nothing: its tombstone was
   * marked then, and may be on its way out.
   */
  markTombstone(request: DeletionRequest, options?: TombstoneOptions): Promise<void>;
  /**
   * Takes a completed request's install out of its app's tombstones, which keeps them to the
   * open requests: the by-app list leaves it out from then on. The version stays.
   */
  clearTombstone(request: DeletionRequest): Promise<void>;
  /** The app's tombstones, as they are now. */
  tombstones(appId: string): Promise<Tombstones>;
  /** A request as stored now, a write just made included. */
  get(requestId: string): Promise<DeletionRequest | undefined>;
  /** Every request of an app, completed ones too. */
  listByApp(appId: string): Promise<DeletionRequest[]>;
  /** The requests for one install of an app (a repeat after completion makes a second). */
  listByInstall(appId: string, serviceId: string): Promise<DeletionRequest[]>;
  /** Requests not completed yet, of every app, oldest first. */
  listOpen(): Promise<DeletionRequest[]>;
  setStatus(requestId: string, status: DeletionStatus, at: string): Promise<void>;
  /** The app's pass a run stopped, if one is saved. Never a request, nor listed as one. */
  savedPass(appId: string): Promise<SavedPass | undefined>;
  /** Saves the app's stopped pass, in place of the one saved before. */
  savePass(appId: string, pass: SavedPass): Promise<void>;
  /** Forgets the app's saved pass, once it is complete; none saved is none to forget. */
  clearPass(appId: string): Promise<void>;
}

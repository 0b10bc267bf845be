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

export interface DeletionStore {
  /** Stores a new request, then moves the app's newest request time on to it. */
  create(request: DeletionRequest): Promise<void>;
  /**
   * Moves the app's newest request time on to this stored request's, unless it is already
   * later. A repeat of a request calls it, which completes a `create` that failed after storing.
   */
  markNewest(request: DeletionRequest): Promise<void>;
  get(requestId: string): Promise<DeletionRequest | undefined>;
  /** Every request of an app: its tombstones. */
  listByApp(appId: string): Promise<DeletionRequest[]>;
  /**
   * The newest `requestedAt` of the app's requests, undefined when it has none: what tells an
   * export whether a snapshot predates a tombstone, without reading every tombstone.
   */
  newestRequestAt(appId: string): Promise<string | undefined>;
  /** The requests for one install of an app (a repeat after completion makes a second). */
  listByInstall(appId: string, serviceId: string): Promise<DeletionRequest[]>;
  /** Requests not completed yet, of every app, oldest first. */
  listOpen(): Promise<DeletionRequest[]>;
  setStatus(requestId: string, status: DeletionStatus, at: string): Promise<void>;
}

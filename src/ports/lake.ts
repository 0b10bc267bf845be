import type { Readable } from "node:stream";
import type { EngineEncoding } from "../export/formats/writer.ts";
import type { LakeRecord } from "../lake/tables.ts";
import type { ExportRecord } from "../record/columns.ts";

/** Delivers records to one lake table (Firehose on AWS, a local delivery stream embedded). */
export interface RecordStream {
  /** Resolves once every record is durably accepted; rejects if any was not. */
  put(records: readonly LakeRecord[]): Promise<void>;
}

/** Where a materialised export lives, as the query engine understands it. */
export interface SnapshotLocation {
  readonly location: string;
  /** Rows in the snapshot, when the engine knows it cheaply. */
  readonly rowCount?: number;
}

/**
 * The lake's query engine (Athena on AWS, DuckDB embedded). An export is materialised once,
 * sorted and de-duplicated, and each page is a slice of it.
 */
export interface LakeQueryEngine {
  materialize(request: {
    appId: string;
    since: Date;
    snapshotId: string;
    /** Installs whose data was deleted: left out of the snapshot. */
    excludeServiceIds?: readonly string[];
  }): Promise<SnapshotLocation>;
  readPage(snapshot: SnapshotLocation, offset: number, limit: number): AsyncIterable<ExportRecord>;
  /**
   * The same slice written by the engine itself in `encoding`, for an engine that can (DuckDB);
   * without it, or when it answers undefined for a snapshot, the service encodes `readPage`'s
   * rows.
   */
  encodePage?(
    snapshot: SnapshotLocation,
    offset: number,
    limit: number,
    encoding: EngineEncoding,
  ): Promise<EncodedPage | undefined>;
}

/** A page's bytes as the engine wrote them, and how many records they hold. */
export interface EncodedPage {
  readonly body: Readable;
  readonly rowCount: number;
}

export interface SnapshotRef extends SnapshotLocation {
  readonly appId: string;
  readonly since: number;
  readonly snapshotId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** The version of the app's tombstones it leaves out (see Tombstones). */
  readonly tombstoneVersion: number;
}

/** Remembers which snapshot serves an (app, timestamp) export while it is fresh. */
export interface SnapshotCatalog {
  get(appId: string, since: number): Promise<SnapshotRef | undefined>;
  put(ref: SnapshotRef): Promise<void>;
  /**
   * Stores `ref` unless a snapshot that is still good stands for its (app, timestamp): one not
   * expired at `ref.createdAt`, made from the same or a later version of the app's tombstones.
   * Resolves with the snapshot that stands, so concurrent first pages on several instances
   * all page through the same one.
   */
  claim(ref: SnapshotRef): Promise<SnapshotRef>;
}

/**
 * An app's export snapshot entries, expired ones included until they are reaped: what a purge
 * deletes, since a snapshot made before a deletion request may hold the install's records.
 */
export interface AppSnapshots {
  listByApp(appId: string): Promise<SnapshotRef[]>;
  /** Deletes the entry if it still names this snapshot (a newer one for the key is kept). */
  delete(ref: SnapshotRef): Promise<void>;
}

/** Removes an install's rows from the lake by rewriting the files that hold them. */
export interface LakePurger {
  purgeInstall(appId: string, serviceId: string): Promise<{ filesRewritten: number }>;
}

import type { Readable, Writable } from "node:stream";
import type { ExportRecord } from "../record/columns.ts";

/**
 * A record as it travels on a stream to the lake: JSON with timestamps as ISO 8601 strings
 * and the partition key `app_id`; `dt` is derived from the table's date column on delivery.
 */
export type LakeRecord = Record<string, string | number | null> & { app_id: string };

/**
 * Encodings a lake engine may write from inside itself (DuckDB's COPY does, in C++), with the
 * conventions of the export's writers (src/export/formats): csv and tsv with a header row, `\n` line ends, an empty
 * cell for null and `""` for an empty string; ndjson one object a line, keys in column order;
 * parquet with the columns and types of src/export/formats/parquet.ts.
 */
export type EngineEncoding = "csv" | "tsv" | "ndjson" | "parquet";

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
    /**
     * The present, where the export's window ends: an event dated after it (by a clock ahead)
     * is in the exports made once its time has come. None: no end.
     */
    until?: Date;
    snapshotId: string;
    /** Installs whose data was deleted: left out of the snapshot. */
    excludeServiceIds?: readonly string[];
  }): Promise<SnapshotLocation>;
  readPage(snapshot: SnapshotLocation, offset: number, limit: number): AsyncIterable<ExportRecord>;
  /**
   * The rows of a snapshot whose size `materialize` did not know yet (one still being made when
   * its first page was answered), once it is finished; undefined while it is not, or for an
   * engine that cannot tell cheaply.
   */
  rowCountOf?(snapshot: SnapshotLocation): Promise<number | undefined>;
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

/**
 * A body that can send itself to a writable more cheaply than a pipe can carry it (reusing its
 * buffers); a server that knows this uses it, any other reads the body as a stream.
 */
export interface SelfSendingBody {
  /** Writes every byte to `destination`, then ends it. */
  sendTo(destination: Writable): Promise<void>;
}

/**
 * A body that reads its bytes into buffers its reader gives, as a file does, so reading it
 * allocates none; any other reader reads it as a stream. Read to its end (0 bytes), or
 * destroyed, it lets go of what it holds.
 */
export interface BufferReadableBody {
  readInto(buffer: Buffer, offset: number, length: number): Promise<number>;
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

/**
 * How long a snapshot's entries are kept past its expiry (the reap job's on the embedded runtime,
 * DynamoDB's TTL on AWS): a late page still hears that its snapshot expired, where without the
 * entry a page past the first would be served from a new snapshot whose rows it does not follow.
 */
export const SNAPSHOT_ENTRY_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * The export snapshots: each by its id, for the pages that name it, and the newest of each
 * (app, timestamp), for the pages that do not.
 */
export interface SnapshotCatalog {
  /** The newest snapshot stored for the window, expired or not. */
  latest(appId: string, since: number): Promise<SnapshotRef | undefined>;
  /** A snapshot of the window by its id, expired or not. */
  byId(appId: string, since: number, snapshotId: string): Promise<SnapshotRef | undefined>;
  /**
   * Stores `ref` by its id, and as the newest of its window unless the window's holds one made
   * later: a snapshot whose making was abandoned (its client gone, a retry since) may end after
   * the retry's, whose pages must go on from the retry's.
   */
  put(ref: SnapshotRef): Promise<void>;
}

/**
 * An app's export snapshot entries, expired ones included until they are reaped: what a purge
 * deletes, since a snapshot made before a deletion request may hold the install's records.
 */
export interface AppSnapshots {
  /** Each snapshot once. */
  listByApp(appId: string): Promise<SnapshotRef[]>;
  /** Forgets the snapshot: by its id, and as its window's newest while it is (a newer one stays). */
  delete(ref: SnapshotRef): Promise<void>;
}

/**
 * A pass over an app's lake that a run may stop before its end, for a later run to go on with:
 * an app's files may be too many to read within one run's time.
 */
export interface LakePass {
  /**
   * Where an earlier run's pass over the same installs stopped (its `stoppedAt`): the files
   * before it are clean of them already. Unset: from the start.
   */
  readonly from?: string;
  /**
   * Asked before each further file is taken up, never before the first, so every run gets on;
   * false stops the pass there, once the files under way are done.
   */
  readonly goOn: () => boolean;
}

export interface LakePurgeResult {
  readonly filesRewritten: number;
  /**
   * Where the pass stopped when `goOn` said no, opaque to the caller, for the next run's
   * `from`; absent when the pass is complete.
   */
  readonly stoppedAt?: string;
}

/**
 * Removes installs' rows from the lake by rewriting the files that hold them, and the export
 * snapshots that may hold them. Several installs of one app are purged in one pass over its
 * files: reading the files is most of the work, whatever the number of installs. `cleanFrom` is
 * the app's tombstones' version once the installs are among them: a snapshot made from that
 * version on leaves them out already, and a page of an older one is refused by its version (its
 * catalog entry stays to say so); they go when the pass completes. A failure fails the pass for
 * all its installs. A purger whose passes always complete (the embedded one) may ignore `pass`.
 */
export interface LakePurger {
  purgeInstalls(
    appId: string,
    serviceIds: readonly string[],
    cleanFrom: number,
    pass?: LakePass,
  ): Promise<LakePurgeResult>;
}

/** The objects under a table's error prefix in the lake (Firehose's error output). */
export interface LakeErrorObjects {
  /** Every object's key, oldest prefix first. */
  list(): AsyncIterable<string>;
  read(key: string): Promise<string>;
  /** Writes `text` in place of the object, or deletes it when `text` is empty. */
  replace(key: string, text: string): Promise<void>;
}

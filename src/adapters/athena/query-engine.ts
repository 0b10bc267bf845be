/**
 * The lake query engine on AWS. `materialize` runs the export query once in Athena; its CSV
 * result, already sorted and de-duplicated, is the snapshot. `readPage` streams a slice of that
 * CSV from S3, typed from EXPORT_COLUMNS, starting from the nearest known row (see
 * page-checkpoints.ts) and stopping the download as soon as the page is complete.
 */
import type { Readable } from "node:stream";
import type { AthenaClient } from "@aws-sdk/client-athena";
import type { S3Client } from "@aws-sdk/client-s3";
import { buildExportQuery } from "../../lake/export-query.ts";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE, type LakeTable } from "../../lake/lake-tables.ts";
import type { LakeQueryEngine, SnapshotLocation } from "../../ports/lake.ts";
import type { ExportRecord } from "../../record/columns.ts";
import { uploadExclusion } from "./exclusions.ts";
import {
  loadCheckpoints,
  PageCheckpoints,
  saveCheckpoints,
  sidecarOf,
} from "./page-checkpoints.ts";
import { assertHeader, csvRows, toExportRecord } from "./result-csv.ts";
import { outputRowsOf, runQuery } from "./run-query.ts";
import { openObject, parseS3Uri, type S3ObjectRef } from "./s3-object.ts";

export interface AthenaQueryEngineOptions {
  readonly athena: AthenaClient;
  readonly s3: S3Client;
  readonly workGroup: string;
  /** The Glue database holding the lake tables. */
  readonly database: string;
  /** The bucket Athena writes results to, where the lists of installs to leave out go too. */
  readonly resultsBucket: string;
  /** First wait between status polls; it doubles up to 2 s. Default 250 ms. */
  readonly pollIntervalMs?: number;
  /** Told when page checkpoints cannot be read or saved (pages are still served). */
  readonly onCheckpointError?: (error: unknown) => void;
}

/** A quoted SQL identifier, so any database name is read as a name. */
const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;

const isCount = (value: number): boolean => Number.isSafeInteger(value) && value >= 0;

interface OpenedResult {
  readonly body: Readable;
  /** Data row number of the first row in `body`. */
  readonly firstRow: number;
  /** Byte offset of `body` in the object. */
  readonly base: number;
  /** Whether `body` starts with the header row. */
  readonly header: boolean;
  /** Checkpoints to consult and extend; undefined when the object cannot be identified. */
  readonly checkpoints: PageCheckpoints | undefined;
}

export const createAthenaQueryEngine = (options: AthenaQueryEngineOptions): LakeQueryEngine => {
  const { athena, s3, workGroup, database, resultsBucket } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  if (!(pollIntervalMs > 0)) throw new RangeError("pollIntervalMs must be positive");
  const onCheckpointError = options.onCheckpointError ?? (() => {});
  const qualified = (name: string) => `${quoteIdentifier(database)}.${quoteIdentifier(name)}`;
  const table = (t: LakeTable) => qualified(t.name);

  /** Where the query reads the installs to leave out (see exclusions.ts). */
  const excluded = (serviceIds: readonly string[]) =>
    uploadExclusion({ s3, resultsBucket, qualified }, serviceIds);

  /** Opens the result at the nearest checkpoint before `offset`, or at its start. */
  const open = async (result: S3ObjectRef, offset: number): Promise<OpenedResult> => {
    const saved = await loadCheckpoints(s3, sidecarOf(result), onCheckpointError);
    const from = saved?.nearest(offset);
    if (saved && from) {
      const object = await openObject(s3, result, from.byte);
      if (object.etag === saved.etag) {
        return {
          body: object.body,
          firstRow: from.row,
          base: from.byte,
          header: false,
          checkpoints: saved,
        };
      }
      // The object is not the one the checkpoints describe: they no longer apply.
      object.body.destroy();
    }
    const object = await openObject(s3, result);
    const { etag, size } = object;
    // Checkpoints need the object's identity and size, which a full GET gives.
    const fresh = etag && size ? new PageCheckpoints(etag, size) : undefined;
    const checkpoints = saved?.etag === etag ? saved : fresh;
    return { body: object.body, firstRow: 0, base: 0, header: true, checkpoints };
  };

  return {
    async materialize({ appId, since, until, snapshotId, excludeServiceIds = [] }) {
      const queryString = buildExportQuery({
        dialect: "athena",
        appId,
        since,
        until,
        exclude: await excluded(excludeServiceIds),
        sources: { events: table(EVENTS_TABLE), attributions: table(ATTRIBUTIONS_TABLE) },
      });
      const { id, location } = await runQuery(athena, {
        queryString,
        workGroup,
        database,
        idempotencyKey: snapshotId,
        pollIntervalMs,
      });
      // The snapshot's size names a short last page as short, and goes to the client in
      // X-Export-Snapshot-Rows, as the embedded runtime's does.
      const rowCount = await outputRowsOf(athena, id);
      return rowCount === undefined ? { location } : { location, rowCount };
    },

    async *readPage(
      snapshot: SnapshotLocation,
      offset: number,
      limit: number,
    ): AsyncGenerator<ExportRecord> {
      if (!isCount(offset) || !isCount(limit)) {
        throw new RangeError("offset and limit must be non-negative integers");
      }
      if (limit === 0) return;
      const result = parseS3Uri(snapshot.location);
      const { body, firstRow, base, header, checkpoints } = await open(result, offset);
      const nextPage = offset + limit;
      let row = firstRow;
      let served = 0;
      let learnt = false;
      let expectHeader = header;
      try {
        for await (const { fields, end } of csvRows(body)) {
          if (expectHeader) {
            assertHeader(fields);
            expectHeader = false;
            continue;
          }
          const following = row + 1;
          // Where this page and the next one start, the offsets later requests will ask for,
          // are learnt before the row is handed out, in case the consumer stops right there.
          if (checkpoints && (following === offset || following === nextPage)) {
            learnt = checkpoints.add(following, base + end) || learnt;
          }
          if (row >= offset) {
            yield toExportRecord(fields);
            served += 1;
            if (served === limit) break;
          }
          row = following;
        }
      } finally {
        body.destroy();
        // Awaited, not left running: Lambda freezes the process once the response ends.
        if (checkpoints && learnt) {
          await saveCheckpoints(s3, sidecarOf(result), checkpoints, onCheckpointError);
        }
      }
    },
  };
};

/**
 * Replaying a table's error output into the lake: every lake record that Firehose sent to the
 * table's error prefix (a partition it could not open, a conversion or a delivery that failed)
 * is put back on the table's stream, and its object is removed once they are all accepted. A
 * line holding anything else stays in its object (alone, so that a later replay puts nothing
 * twice) and is reported. Delivery is at least once, as the stream's is: a run stopped between
 * the put and the removal puts the object's records again next time, which the export's
 * de-duplication removes.
 */
import type { LakeErrorObjects, RecordStream } from "../ports/lake.ts";
import { readErrorObject } from "./error-records.ts";
import type { LakeTable } from "./lake-tables.ts";

export interface ReplayResult {
  readonly objects: number;
  readonly records: number;
  /** Lines left in their objects, each with its object and why. */
  readonly kept: { readonly key: string; readonly reason: string }[];
}

/** Lake records put on the stream in one call at most (the stream packs and batches them). */
const PUT_RECORDS = 500;

export const replayErrors = async (options: {
  readonly table: LakeTable;
  readonly objects: LakeErrorObjects;
  readonly stream: RecordStream;
  /** Counts what a replay would put, and changes nothing. */
  readonly dryRun?: boolean;
}): Promise<ReplayResult> => {
  const { table, objects, stream } = options;
  let count = 0;
  let records = 0;
  const kept: { key: string; reason: string }[] = [];
  for await (const key of objects.list()) {
    count += 1;
    const found = readErrorObject(table, await objects.read(key));
    records += found.records.length;
    kept.push(...found.kept.map(({ reason }) => ({ key, reason })));
    if (options.dryRun) continue;
    for (let start = 0; start < found.records.length; start += PUT_RECORDS) {
      await stream.put(found.records.slice(start, start + PUT_RECORDS));
    }
    await objects.replace(key, found.kept.map(({ line }) => `${line}\n`).join(""));
  }
  return { objects: count, records, kept };
};

/**
 * Replaying a table's error output into the lake: every lake record that Firehose sent to the
 * table's error prefix (a partition it could not open, a conversion or a delivery that failed)
 * is put back on the table's stream, and its object is removed once they are all accepted. A
 * line holding anything else stays in its object (alone, so that a later replay puts nothing
 * twice) and is reported. Delivery is at least once, as the stream's is: a run stopped between
 * the put and the removal puts the object's records again next time, which the export's
 * de-duplication removes.
 *
 * A record of an install with a deletion request, open or completed, is dropped: put back, it
 * would land in the lake after the purge had rewritten the install's files, and stay there.
 */
import pLimit from "p-limit";
import type { DeletionStore } from "../ports/deletions.ts";
import type { LakeErrorObjects, RecordStream } from "../ports/lake.ts";
import { readErrorObject } from "./error-records.ts";
import type { LakeRecord, LakeTable } from "./lake-tables.ts";

export interface ReplayResult {
  readonly objects: number;
  /** Lake records put back on the stream (in a dry run, that would be). */
  readonly records: number;
  /** Records of installs whose data was deleted: never put back, and gone from their objects. */
  readonly dropped: number;
  /** Lines left in their objects, each with its object and why. */
  readonly kept: { readonly key: string; readonly reason: string }[];
}

/** Lake records put on the stream in one call at most (the stream packs and batches them). */
const PUT_RECORDS = 500;

/** Installs' deletion requests looked up at once. */
const LOOKUPS_AT_ONCE = 10;

export const replayErrors = async (options: {
  readonly table: LakeTable;
  readonly objects: LakeErrorObjects;
  readonly stream: RecordStream;
  /** Which installs' data was deleted. */
  readonly deletions: Pick<DeletionStore, "listByInstall">;
  /** Counts what a replay would put, and changes nothing. */
  readonly dryRun?: boolean;
}): Promise<ReplayResult> => {
  const { table, objects, stream, deletions } = options;
  const column = table.installColumn;
  // By app and install, for the whole run: an install has many records, in many objects.
  const deleted = new Map<string, Promise<boolean>>();
  const lookups = pLimit(LOOKUPS_AT_ONCE);
  const installOf = (record: LakeRecord): [string, string] | undefined => {
    const serviceId = column === null ? undefined : record[column];
    return typeof serviceId === "string" ? [record.app_id, serviceId] : undefined;
  };
  const isDeleted = (appId: string, serviceId: string): Promise<boolean> => {
    const key = JSON.stringify([appId, serviceId]);
    let known = deleted.get(key);
    if (!known) {
      known = lookups(async () => (await deletions.listByInstall(appId, serviceId)).length > 0);
      deleted.set(key, known);
    }
    return known;
  };
  let count = 0;
  let records = 0;
  let dropped = 0;
  const kept: { key: string; reason: string }[] = [];
  for await (const key of objects.list()) {
    count += 1;
    const found = readErrorObject(table, await objects.read(key));
    const flags = await Promise.all(
      found.records.map((record) => {
        const install = installOf(record);
        return install ? isDeleted(...install) : false;
      }),
    );
    const replayed = found.records.filter((_, index) => !flags[index]);
    records += replayed.length;
    dropped += found.records.length - replayed.length;
    kept.push(...found.kept.map(({ reason }) => ({ key, reason })));
    if (options.dryRun) continue;
    for (let start = 0; start < replayed.length; start += PUT_RECORDS) {
      await stream.put(replayed.slice(start, start + PUT_RECORDS));
    }
    await objects.replace(key, found.kept.map(({ line }) => `${line}\n`).join(""));
  }
  return { objects: count, records, dropped, kept };
};

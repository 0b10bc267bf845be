/**
 * Firehose's error output, read back: each object under a table's error prefix holds one JSON
 * document a line, one per record Firehose could not partition, convert or deliver, with the
 * record's bytes in `rawData` (base64). A record is one or more lake records, one JSON object
 * a line (the stream packs many into one; src/adapters/firehose/packing.ts). Replaying them
 * puts the lake records back on the table's stream, which names their partition again.
 */
import {
  type LakeRecord,
  type LakeTable,
  PARTITION_DAY_KEY,
  recordChecker,
} from "./lake-tables.ts";

/** What one error object holds: the lake records to put back, and the lines that are not. */
export interface ErrorObjectRecords {
  readonly records: LakeRecord[];
  /**
   * The object's lines holding anything that is not a lake record of the table (with why):
   * left in the object for someone to look at, never put on the stream.
   */
  readonly kept: { readonly line: string; readonly reason: string }[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The lake records of one error document's `rawData`, or why there are none. */
const recordsOfDocument = (
  line: string,
  check: (record: LakeRecord) => void,
): LakeRecord[] | string => {
  let document: unknown;
  try {
    document = JSON.parse(line);
  } catch {
    return "not a JSON document";
  }
  if (!isObject(document) || typeof document.rawData !== "string") {
    return "no rawData";
  }
  const records: LakeRecord[] = [];
  for (const text of Buffer.from(document.rawData, "base64").toString("utf8").split("\n")) {
    if (text.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return "rawData is not JSON lines";
    }
    if (!isObject(parsed)) return "rawData holds a value that is not a record";
    // The partition day is named again by the stream as it puts the record.
    const { [PARTITION_DAY_KEY]: _day, ...record } = parsed;
    try {
      check(record as LakeRecord);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    records.push(record as LakeRecord);
  }
  return records;
};

/**
 * The lake records of an error object's text, and the lines left: a document whose record
 * holds anything that does not fit the table is left whole, so that none of its lake records
 * is put twice by a later replay.
 */
export const readErrorObject = (table: LakeTable, text: string): ErrorObjectRecords => {
  const check = recordChecker(table);
  const records: LakeRecord[] = [];
  const kept: { line: string; reason: string }[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const found = recordsOfDocument(line, check);
    if (typeof found === "string") kept.push({ line, reason: found });
    else records.push(...found);
  }
  return { records, kept };
};

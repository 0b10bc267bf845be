/** The embedded export snapshot's layout on disk, shared by the query engine and the purge. */
import { readdir } from "node:fs/promises";
import { join } from "node:path";

/**
 * A snapshot is a folder of Parquet parts in window order (one per slice of a day), each named
 * by the positions it holds (`<first>-<end>.parquet`, end exclusive, zero-padded so that names
 * sort as numbers), and a `complete` file once the last is written. A row's position in its
 * part is its Parquet row number, which DuckDB reads row groups by, so a page reads only its
 * own.
 */
export const SNAPSHOT_SUFFIX = ".v5";

const POSITION_DIGITS = 15;
const PART_NAME = /^(\d+)-(\d+)\.parquet$/;

export const partName = (first: number, end: number): string =>
  `${String(first).padStart(POSITION_DIGITS, "0")}-${String(end).padStart(POSITION_DIGITS, "0")}.parquet`;

export interface Part {
  readonly path: string;
  readonly first: number;
  readonly end: number;
}

/**
 * The file whose presence says every part is written. A snapshot without it is being made
 * (its parts so far are whole and readable) or its making stopped with the process.
 */
export const COMPLETE = "complete";

/** A snapshot's parts, in position order (none for an empty window), and whether that is all. */
export const readSnapshot = async (
  location: string,
): Promise<{ parts: Part[]; complete: boolean }> => {
  const parts: Part[] = [];
  let complete = false;
  for (const name of (await readdir(location)).sort()) {
    if (name === COMPLETE) complete = true;
    const match = PART_NAME.exec(name);
    if (match?.[1] && match[2]) {
      parts.push({ path: join(location, name), first: Number(match[1]), end: Number(match[2]) });
    }
  }
  return { parts, complete };
};

/** A snapshot's parts so far, in position order. */
export const partsOf = async (location: string): Promise<Part[]> =>
  (await readSnapshot(location)).parts;

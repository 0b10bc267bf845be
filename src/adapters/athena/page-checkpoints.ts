/**
 * Where rows start in an Athena result, learnt while serving pages, so a deep page is read with
 * an S3 Range GET from the nearest known row instead of from byte 0 every time.
 *
 * The sidecar `<result>.pages.json` maps a data row number to the byte where that row starts.
 * Each entry is a fact about an immutable object, tied to it by its ETag, so entries never go
 * stale; a lost write (two pages saving at once) only costs a longer read later. It is an
 * optimisation: any failure to read or write it falls back to reading from the start.
 */
import { NoSuchKey, type S3Client } from "@aws-sdk/client-s3";
import * as z from "zod";
import { openObject, putJson, readText, type S3ObjectRef } from "./s3-object.ts";

/** Bounds the sidecar (one entry per page boundary served, so about rows / page size). */
export const MAX_CHECKPOINTS = 10_000;

export interface Checkpoint {
  /** Data row number, 0-based, header excluded. */
  readonly row: number;
  /** Byte offset in the result object where that row starts. */
  readonly byte: number;
}

const sidecarSchema = z.object({
  version: z.literal(1),
  etag: z.string().min(1),
  size: z.int().positive(),
  rows: z.array(z.tuple([z.int().positive(), z.int().positive()])).max(MAX_CHECKPOINTS),
});

export class PageCheckpoints {
  private readonly rows: Map<number, number>;

  constructor(
    /** The result object's ETag: checkpoints apply to that content only. */
    readonly etag: string,
    /** The result object's size: a row can only start before its end. */
    readonly size: number,
    rows: Iterable<readonly [number, number]> = [],
  ) {
    this.rows = new Map(rows);
  }

  /** Parses a sidecar; undefined when it is not one (or not a consistent one). */
  static parse(text: string): PageCheckpoints | undefined {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return undefined;
    }
    const parsed = sidecarSchema.safeParse(json);
    if (!parsed.success) return undefined;
    const { etag, size, rows } = parsed.data;
    // Later rows start later, and inside the object; anything else is not ours to trust.
    const sorted = [...rows].sort(([a], [b]) => a - b);
    const consistent = sorted.every(([row, byte], i) => {
      const previous = sorted[i - 1];
      return byte < size && (!previous || (row > previous[0] && byte > previous[1]));
    });
    return consistent ? new PageCheckpoints(etag, size, sorted) : undefined;
  }

  /** The known row closest before (or at) `row`. */
  nearest(row: number): Checkpoint | undefined {
    let best: Checkpoint | undefined;
    for (const [known, byte] of this.rows) {
      if (known <= row && (!best || known > best.row)) best = { row: known, byte };
    }
    return best;
  }

  /** Records where a row starts; true when that is new. Row 0 needs none: it follows the header. */
  add(row: number, byte: number): boolean {
    if (row <= 0 || byte >= this.size || this.rows.has(row)) return false;
    if (this.rows.size >= MAX_CHECKPOINTS) return false;
    this.rows.set(row, byte);
    return true;
  }

  toJSON(): z.infer<typeof sidecarSchema> {
    const rows = [...this.rows].sort(([a], [b]) => a - b);
    return { version: 1, etag: this.etag, size: this.size, rows };
  }
}

export const sidecarOf = (result: S3ObjectRef): S3ObjectRef => ({
  bucket: result.bucket,
  key: `${result.key}.pages.json`,
});

/** The saved checkpoints; undefined when there are none yet or they cannot be used. */
export const loadCheckpoints = async (
  s3: S3Client,
  sidecar: S3ObjectRef,
  onError: (error: unknown) => void,
): Promise<PageCheckpoints | undefined> => {
  try {
    const { body } = await openObject(s3, sidecar);
    const text = await readText(body);
    const checkpoints = PageCheckpoints.parse(text);
    if (!checkpoints)
      onError(new Error(`Ignoring an invalid page checkpoint file: ${sidecar.key}`));
    return checkpoints;
  } catch (error) {
    // The first page of a result has none: that is not worth a warning.
    if (!(error instanceof NoSuchKey)) onError(error);
    return undefined;
  }
};

export const saveCheckpoints = async (
  s3: S3Client,
  sidecar: S3ObjectRef,
  checkpoints: PageCheckpoints,
  onError: (error: unknown) => void,
): Promise<void> => {
  try {
    await putJson(s3, sidecar, JSON.stringify(checkpoints));
  } catch (error) {
    // The page was served; failing to remember where it ended must not fail it.
    onError(error);
  }
};

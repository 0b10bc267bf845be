import type { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { ExportRecord } from "../../record/columns.ts";
import { collect, recordAt } from "./fixtures.test-support.ts";
import { EXPORT_FORMATS, FORMATS } from "./index.ts";

/** A source that counts what it yielded and notes when it was closed. */
function countingSource(count: number, failAfter = Number.POSITIVE_INFINITY, error?: Error) {
  const state = { pulled: 0, closed: false };
  async function* rows(): AsyncGenerator<ExportRecord> {
    try {
      for (let i = 0; i < count; i++) {
        if (i === failAfter) throw error;
        state.pulled++;
        yield recordAt(i);
      }
    } finally {
      state.closed = true;
    }
  }
  return { state, rows: rows() };
}

/** Reads until `started` holds (some formats send fixed parts before any row), then pauses. */
const readUntil = (stream: Readable, started: () => boolean): Promise<void> =>
  new Promise((resolve, reject) => {
    const onData = () => {
      if (!started()) return;
      stream.off("data", onData);
      stream.pause();
      resolve();
    };
    stream.on("data", onData);
    stream.once("error", reject);
  });

describe("FORMATS", () => {
  it("has one writer per format with its content type, extension and disposition", () => {
    expect(Object.keys(FORMATS).sort()).toEqual([...EXPORT_FORMATS].sort());
    const described = Object.fromEntries(
      EXPORT_FORMATS.map((format) => {
        const { contentType, extension, attachment } = FORMATS[format];
        return [format, { contentType, extension, attachment }];
      }),
    );
    expect(described).toEqual({
      json: {
        contentType: "application/json; charset=utf-8",
        extension: "json",
        attachment: false,
      },
      ndjson: { contentType: "application/x-ndjson", extension: "ndjson", attachment: false },
      csv: { contentType: "text/csv; charset=utf-8", extension: "csv", attachment: true },
      tsv: {
        contentType: "text/tab-separated-values; charset=utf-8",
        extension: "tsv",
        attachment: true,
      },
      xml: { contentType: "application/xml; charset=utf-8", extension: "xml", attachment: true },
      xlsx: {
        contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        extension: "xlsx",
        attachment: true,
      },
      parquet: {
        contentType: "application/vnd.apache.parquet",
        extension: "parquet",
        attachment: true,
      },
    });
  });
});

describe.each(EXPORT_FORMATS)("%s writer as a stream", (format) => {
  const writer = FORMATS[format];

  it("pulls rows only as the consumer reads", async () => {
    const { state, rows } = countingSource(20_000);
    const stream = writer.write(rows);
    // Read until the source has started, then no more: the writer fills its buffer and stops.
    // However long that takes, once the buffer is full it has pulled a bounded number of rows,
    // not the source's 20,000 (unread, most writers pull none at all).
    await readUntil(stream, () => state.pulled > 0);
    await expect
      .poll(() => stream.readableLength >= stream.readableHighWaterMark, { timeout: 30_000 })
      .toBe(true);
    expect(state.pulled).toBeLessThan(5_000);
    const output = await collect(stream);
    expect(state.pulled).toBe(20_000);
    expect(output.length).toBeGreaterThan(0);
  });

  it("fails the stream with the source's own error", async () => {
    const error = new Error("lake went away");
    const { state, rows } = countingSource(10_000, 3_000, error);
    await expect(collect(writer.write(rows))).rejects.toBe(error);
    expect(state.pulled).toBe(3_000);
  });

  it("stops the source when the consumer goes away", async () => {
    const { state, rows } = countingSource(1_000_000);
    const stream = writer.write(rows);
    await readUntil(stream, () => state.pulled > 0);
    stream.destroy();
    await expect.poll(() => state.closed).toBe(true);
    expect(state.pulled).toBeLessThan(1_000_000);
  });
});

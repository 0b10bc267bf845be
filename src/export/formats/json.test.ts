import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { COLUMN_NAMES, type ExportRecord } from "../../record/columns.ts";
import {
  ALL_NULL,
  CONTROL_CHARS,
  collect,
  probeStreaming,
  RECORDS,
  recordAt,
  source,
} from "./fixtures.test-support.ts";
import { json, jsonFromNdjson } from "./json.ts";
import { ndjson } from "./ndjson.ts";

interface Page {
  data: ExportRecord[];
  total_count: number;
}

const parse = (bytes: Buffer): Page => JSON.parse(bytes.toString("utf8"));

describe("json writer", () => {
  it("writes the records, every key in column order, with the count", async () => {
    const records = [...RECORDS, CONTROL_CHARS];
    const text = (await collect(json.write(source(records)))).toString("utf8");
    const page = parse(Buffer.from(text));

    expect(Object.keys(page)).toEqual(["data", "total_count"]);
    expect(page.total_count).toBe(records.length);
    expect(page.data).toEqual(records);
    for (const record of page.data) expect(Object.keys(record)).toEqual(COLUMN_NAMES);
    expect(text.startsWith('{"data":[{"event_id":null,')).toBe(true);
    expect(text.endsWith(`],"total_count":${records.length}}`)).toBe(true);
  });

  it("writes absent fields as null and ignores fields outside the record", async () => {
    const { revenue: _dropped, ...partial } = ALL_NULL;
    const extra = { ...ALL_NULL, not_a_column: "x" };
    // The cast stands in for a source that breaks the record type at run time.
    const page = parse(await collect(json.write(source([partial as ExportRecord, extra]))));
    expect(page.data).toEqual([ALL_NULL, ALL_NULL]);
  });

  it("writes an empty page for no rows", async () => {
    const text = (await collect(json.write(source([])))).toString("utf8");
    expect(text).toBe('{"data":[],"total_count":0}');
  });

  it("streams: output starts before the source ends and all rows parse back", async () => {
    const probe = await probeStreaming(json);
    expect(probe.rowsBeforeFirstChunk).toBeLessThan(10_000);
    expect(probe.bytesBeforeLastRow).toBeGreaterThan('{"data":[],"total_count":0}'.length);
    const page = parse(probe.output);
    expect(page.total_count).toBe(10_000);
    expect(page.data).toEqual(Array.from({ length: 10_000 }, (_, i) => recordAt(i)));
  });

  describe("around newline-delimited records (pages a lake engine wrote)", () => {
    it("gives the writer's page however the lines are cut into chunks", async () => {
      const records = [...RECORDS, CONTROL_CHARS];
      const lines = await collect(ndjson.write(source(records)));
      const expected = (await collect(json.write(source(records)))).toString("utf8");
      // Every cut, including chunks that are a line end alone or start with one.
      for (let cut = 0; cut <= lines.length; cut++) {
        const chunks = [lines.subarray(0, cut), lines.subarray(cut)].filter((c) => c.length > 0);
        const framed = jsonFromNdjson(Readable.from(chunks), records.length);
        expect((await collect(framed)).toString("utf8")).toBe(expected);
      }
      const oneByteChunks = Readable.from([...lines].map((byte) => Buffer.from([byte])));
      const framed = await collect(jsonFromNdjson(oneByteChunks, records.length));
      expect(framed.toString("utf8")).toBe(expected);
    });

    it("keeps the last record when the lines do not end with a line end", async () => {
      const framed = await collect(
        jsonFromNdjson(Readable.from([Buffer.from('{"a":1}\n{"a":2}')]), 2),
      );
      expect(JSON.parse(framed.toString("utf8"))).toEqual({
        data: [{ a: 1 }, { a: 2 }],
        total_count: 2,
      });
    });

    it("gives an empty page for no lines", async () => {
      const framed = await collect(jsonFromNdjson(Readable.from([]), 0));
      expect(framed.toString("utf8")).toBe('{"data":[],"total_count":0}');
    });

    it("fails, rather than ends, when the lines cannot be read", async () => {
      const failing = new Readable({
        read() {
          this.push('{"a":1}\n');
          this.destroy(new Error("disk gone"));
        },
      });
      await expect(collect(jsonFromNdjson(failing, 1))).rejects.toThrow("disk gone");
    });
  });
});

import { describe, expect, it } from "vitest";
import { COLUMN_NAMES, type ExportRecord } from "../../record/columns.ts";
import {
  CONTROL_CHARS,
  collect,
  probeStreaming,
  RECORDS,
  recordAt,
  source,
} from "./fixtures.test-support.ts";
import { ndjson } from "./ndjson.ts";

const parse = (bytes: Buffer): ExportRecord[] => {
  const text = bytes.toString("utf8");
  expect(text === "" || text.endsWith("\n")).toBe(true);
  return text
    .split("\n")
    .slice(0, -1)
    .map((line) => JSON.parse(line));
};

describe("ndjson writer", () => {
  it("writes one record per line, every key in column order, nulls kept", async () => {
    const records = [...RECORDS, CONTROL_CHARS];
    const lines = parse(await collect(ndjson.write(source(records))));
    expect(lines).toEqual(records);
    for (const line of lines) expect(Object.keys(line)).toEqual(COLUMN_NAMES);
  });

  it("keeps newlines inside values escaped, so each record stays on one line", async () => {
    const text = (await collect(ndjson.write(source(RECORDS)))).toString("utf8");
    expect(text.split("\n")).toHaveLength(RECORDS.length + 1);
  });

  it("writes nothing for no rows", async () => {
    expect((await collect(ndjson.write(source([])))).length).toBe(0);
  });

  it("streams: output starts before the source ends and all rows parse back", async () => {
    const probe = await probeStreaming(ndjson);
    expect(probe.rowsBeforeFirstChunk).toBeLessThan(10_000);
    expect(probe.bytesBeforeLastRow).toBeGreaterThan(0);
    expect(parse(probe.output)).toEqual(Array.from({ length: 10_000 }, (_, i) => recordAt(i)));
  });
});

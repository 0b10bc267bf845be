import { describe, expect, it } from "vitest";
import { COLUMN_NAMES, type ExportRecord } from "../../record/columns.ts";
import {
  ALL_NULL,
  ALL_SET,
  BIG_NUMBERS,
  CONTROL_CHARS,
  collect,
  probeStreaming,
  recordAt,
  source,
} from "./fixtures.test-support.ts";
import { tsv, tsvField, unescapeTsvField } from "./tsv.ts";

/**
 * A reader that does not unquote, as `cut`, `awk -F'\t'` and most tab-separated readers are:
 * lines split on `\n`, fields on `\t`, then the escapes undone. Empty fields are null.
 */
const readLinear = (bytes: Buffer) => {
  const lines = bytes.toString("utf8").split("\n");
  expect(lines.pop()).toBe("");
  const [header, ...rows] = lines.map((line) => line.split("\t"));
  return {
    header,
    rows: rows.map((fields) =>
      fields.map((field) => (field === "" ? null : unescapeTsvField(field))),
    ),
  };
};

/** A record's cells as that reader gives them back: text, the empty string read as null. */
const asRead = (record: ExportRecord) =>
  COLUMN_NAMES.map((name) => {
    const value = record[name];
    return value === null || value === "" ? null : String(value);
  });

describe("tsv writer", () => {
  it("escapes tabs, line breaks and backslashes, so every line has every field", async () => {
    const hostile: ExportRecord = {
      ...ALL_SET,
      customer_user_id: "tab\there",
      campaign_name: "line\nbreak and cr\rhere",
      ad_name: "back\\slash \\t not a tab",
      adset_name: 'say "hi", twice',
    };
    const output = await collect(
      tsv.write(source([hostile, ALL_NULL, BIG_NUMBERS, CONTROL_CHARS])),
    );
    const text = output.toString("utf8");
    expect(text).toContain("tab\\there");
    expect(text).toContain("line\\nbreak and cr\\rhere");
    expect(text).toContain("back\\\\slash \\\\t not a tab");
    expect(text).toContain('say "hi", twice');
    const read = readLinear(output);
    expect(read.header).toEqual(COLUMN_NAMES);
    for (const row of read.rows) expect(row).toHaveLength(COLUMN_NAMES.length);
    expect(read.rows).toEqual([hostile, ALL_NULL, BIG_NUMBERS, CONTROL_CHARS].map(asRead));
  });

  it("writes a header row, numbers as JavaScript does, empty fields for null, \\n line ends", async () => {
    const text = (await collect(tsv.write(source([ALL_NULL, BIG_NUMBERS])))).toString("utf8");
    const lines = text.split("\n");
    expect(lines[0]).toBe(COLUMN_NAMES.join("\t"));
    expect(lines[1]).toBe("\t".repeat(COLUMN_NAMES.length - 1));
    expect(lines[2]).toContain("\t-2147483648\t");
    expect(lines[2]?.endsWith("\t1e-7")).toBe(true);
    expect(lines[3]).toBe("");
    expect(text.includes("\r")).toBe(false);
  });

  it("writes only the header row for no rows", async () => {
    const output = await collect(tsv.write(source([])));
    expect(output.toString("utf8")).toBe(`${COLUMN_NAMES.join("\t")}\n`);
  });

  it("undoes exactly its own escapes", () => {
    for (const value of ["", "plain", "\t\n\r\\", "\\n literally", "a\\\\tb", "é\t❄"]) {
      expect(unescapeTsvField(tsvField(value))).toBe(value);
    }
  });

  it("streams: output starts before the source ends and every row reads back", async () => {
    const probe = await probeStreaming(tsv);
    expect(probe.rowsBeforeFirstChunk).toBeLessThan(10_000);
    const read = readLinear(probe.output);
    expect(read.rows).toEqual(Array.from({ length: 10_000 }, (_, i) => asRead(recordAt(i))));
  });
});

import { describe, expect, it } from "vitest";
import { COLUMN_NAMES, EXPORT_COLUMNS, type ExportType } from "../../record/columns.ts";
import { csv } from "./csv.ts";
import {
  ALL_NULL,
  BIG_NUMBERS,
  CONTROL_CHARS,
  collect,
  duckdb,
  probeStreaming,
  type QueryResult,
  RECORDS,
  recordAt,
  source,
  sqlString,
  withTempFile,
} from "./fixtures.test-support.ts";

const DUCKDB_TYPE: Record<ExportType, string> = {
  string: "VARCHAR",
  integer: "BIGINT",
  number: "DOUBLE",
};

const writer = csv;
const name = "csv";
const delimiter = ",";

describe("csv writer", () => {
  /**
   * DuckDB's reader with type detection limited to the export's types (it would otherwise
   * turn event_time into a TIMESTAMP); quoted empty strings stay strings, empty cells are null.
   */
  const read = (bytes: Buffer): Promise<QueryResult> =>
    withTempFile(`page.${name}`, bytes, (path) =>
      duckdb(
        `SELECT * FROM read_csv(${sqlString(path)}, header = true, all_varchar = false,
          delim = ${sqlString(delimiter)}, quote = '"', escape = '"',
          allow_quoted_nulls = false, sample_size = -1,
          auto_type_candidates = ['VARCHAR', 'BIGINT', 'DOUBLE'])`,
      ),
    );

  it("round-trips every record through DuckDB with column order, types and nulls", async () => {
    const records = [...RECORDS, CONTROL_CHARS];
    const result = await read(await collect(writer.write(source(records))));
    expect(result.names).toEqual(COLUMN_NAMES);
    expect(result.types).toEqual(EXPORT_COLUMNS.map((column) => DUCKDB_TYPE[column.type]));
    expect(result.rows).toEqual(records);
  });

  it("writes a header row, unformatted numbers, empty cells for null, \\n line ends, no BOM", async () => {
    const text = (await collect(writer.write(source([ALL_NULL, BIG_NUMBERS])))).toString("utf8");
    const lines = text.split("\n");
    expect(lines[0]).toBe(COLUMN_NAMES.join(delimiter));
    expect(lines[1]).toBe(delimiter.repeat(COLUMN_NAMES.length - 1));
    expect(lines[2]).toContain(`${delimiter}-2147483648${delimiter}`);
    expect(lines[2]).toContain(`${delimiter}9007199254740991${delimiter}`);
    expect(lines[2]?.endsWith(`${delimiter}1e-7`)).toBe(true);
    expect(lines[3]).toBe("");
    expect(text.includes("\r")).toBe(false);
    expect(text.charCodeAt(0)).not.toBe(0xfeff);
  });

  it("quotes values holding the delimiter, quotes, line breaks, and empty strings", async () => {
    const value = (text: string) => ({ ...ALL_NULL, event_name: text });
    const output = await collect(
      writer.write(
        source([value(`a${delimiter}b`), value('say "hi"'), value("cr\ronly"), value("")]),
      ),
    );
    const rows = output.toString("utf8").split("\n").slice(1, -1);
    const rest = delimiter.repeat(COLUMN_NAMES.length - 3);
    expect(rows).toEqual([
      `${delimiter}${delimiter}"a${delimiter}b"${rest}`,
      `${delimiter}${delimiter}"say ""hi"""${rest}`,
      `${delimiter}${delimiter}"cr\ronly"${rest}`,
      `${delimiter}${delimiter}""${rest}`,
    ]);
  });

  it("writes only the header row for no rows", async () => {
    const output = await collect(writer.write(source([])));
    expect(output.toString("utf8")).toBe(`${COLUMN_NAMES.join(delimiter)}\n`);
    const result = await read(output);
    expect(result.names).toEqual(COLUMN_NAMES);
    expect(result.rows).toEqual([]);
  });

  it("streams: output starts before the source ends and all rows parse back", async () => {
    const probe = await probeStreaming(writer);
    expect(probe.rowsBeforeFirstChunk).toBeLessThan(10_000);
    expect(probe.bytesBeforeLastRow).toBeGreaterThan(COLUMN_NAMES.join(delimiter).length + 1);
    const result = await read(probe.output);
    expect(result.rows).toEqual(Array.from({ length: 10_000 }, (_, i) => recordAt(i)));
  });
});

import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { EXPORT_COLUMNS } from "../../record/columns.ts";
import { csvRows, toExportRecord } from "./result-csv.ts";

/** A row of every column null but those given, as Athena's CSV fields. */
const fieldsWith = (values: Record<string, string>): (string | null)[] =>
  EXPORT_COLUMNS.map((column) => values[column.name] ?? null);

describe("an Athena result row", () => {
  it("types integer and number columns, negative and in scientific notation too", () => {
    const record = toExportRecord(
      fieldsWith({ click_to_first_open_hours: "-3", revenue: "-1.5E-4", revenue_usd: ".25" }),
    );
    expect(record.click_to_first_open_hours).toBe(-3);
    expect(record.revenue).toBe(-0.00015);
    expect(record.revenue_usd).toBe(0.25);
  });

  it("refuses what is no number of its column's kind", () => {
    for (const [name, value] of [
      ["click_to_first_open_hours", "1.5"],
      ["click_to_first_open_hours", "9007199254740993"],
      ["revenue", "0x10"],
      ["revenue", "Infinity"],
      ["revenue", "1e400"],
    ] as const) {
      expect(() => toExportRecord(fieldsWith({ [name]: value })), `${name} ${value}`).toThrow(
        `Athena result column ${name} is not a number: ${value}`,
      );
    }
  });

  it("refuses a row of another number of fields", () => {
    expect(() => toExportRecord([...fieldsWith({}), null])).toThrow(
      `Athena result row has ${EXPORT_COLUMNS.length + 1} fields`,
    );
  });
});

describe("an Athena result's rows", () => {
  it("tell NULL from the empty string, and stop reading the download when the caller stops", async () => {
    // A download still under way: more is to come.
    const source = new Readable({ read() {} });
    source.push('"a","b"\n"x",\n"",""\n"y","z"\n');
    const rows: (string | null)[][] = [];
    for await (const row of csvRows(source)) {
      rows.push([...row.fields]);
      if (rows.length === 3) break;
    }
    expect(rows).toEqual([
      ["a", "b"],
      ["x", null],
      ["", ""],
    ]);
    expect(source.destroyed).toBe(true);
  });
});

/**
 * A full 10,000-row page in every format, read back with an independent reader and compared
 * with the json page field by field: same rows, same order, same types, nulls kept.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import ExcelJS from "exceljs";
import { XMLParser } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unescapeTsvField } from "../../src/export/formats/tsv.ts";
import { COLUMN_NAMES, EXPORT_COLUMNS, type ExportRecord } from "../../src/record/columns.ts";
import { lakeAttribution, lakeEvent } from "../support/records.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.big";
const T0 = Date.parse("2026-11-05T00:00:00Z");
const ROWS = 10_000;

type Row = Record<string, string | number | null>;

/** Text formats carry no types: read numbers back by the record's column types. */
const typed = (row: Record<string, unknown>): Row =>
  Object.fromEntries(
    EXPORT_COLUMNS.map((c) => {
      const value = row[c.name];
      if (value === null || value === undefined || value === "") return [c.name, null];
      return [c.name, c.type === "string" ? String(value) : Number(value)];
    }),
  );

describe("a 10,000-row page in every format", () => {
  let rt: TestRuntime;
  let serverKey: string;
  let dir: string;
  let reference: ExportRecord[];
  let duckdb: DuckDBInstance;

  const download = async (format: string) => {
    const response = await rt.get(
      `/api/v1/export?timestamp=${T0 / 1000}&format=${format}&limit=${ROWS}`,
      serverKey,
    );
    expect(response.status).toBe(200);
    const path = join(dir, `page.${format}`);
    await writeFile(path, Buffer.from(await response.arrayBuffer()));
    return path;
  };

  const duckRows = async (sql: string): Promise<Row[]> => {
    const connection = await duckdb.connect();
    try {
      const reader = await connection.runAndReadAll(sql);
      return reader.getRowObjectsJS().map((r) => typed(r));
    } finally {
      connection.closeSync();
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "page-"));
    duckdb = await DuckDBInstance.create(":memory:");
    rt = await startTestRuntime();
    ({ serverKey } = await rt.createApp(APP));
    const currencies = ["USD", "EUR", "JPY", null];
    await rt.streams.events.put(
      Array.from({ length: ROWS + 50 }, (_, i) => {
        const currency = currencies[i % 4] ?? null;
        return lakeEvent({
          app_id: APP,
          service_id: `s-${i % 700}`,
          event_id: `evt-${String(i).padStart(6, "0")}`,
          event_time: new Date(T0 + i * 1_000).toISOString(),
          event_name: i % 3 === 0 ? "service_purchase" : "service_level_complete",
          revenue: currency ? (i % 17) + 0.99 : null,
          currency,
          revenue_usd: currency ? ((i % 17) + 0.99) * 1.1 : null,
          country: i % 5 === 0 ? null : "BR",
          customer_user_id: i % 2 === 0 ? `user, "${i}"\n<&>\ttab` : null,
          idfv: i % 7 === 0 ? "ÄÖÜ-日本-🎮" : null,
        });
      }),
    );
    await rt.streams.attributions.put(
      Array.from({ length: 350 }, (_, i) =>
        lakeAttribution({
          app_id: APP,
          service_id: `s-${i}`,
          media_source: i % 2 ? "organic" : "googleadwords_int",
          campaign_name: i % 2 ? null : 'Search, "brand"',
          click_to_first_open_hours: i % 2 ? null : i % 48,
          confidence_score: i % 2 ? null : "high",
        }),
      ),
    );
    await rt.flush();
    const response = await rt.get(`/api/v1/export?timestamp=${T0 / 1000}&limit=${ROWS}`, serverKey);
    const page = (await response.json()) as { data: ExportRecord[]; total_count: number };
    expect(page.total_count).toBe(ROWS);
    reference = page.data;
  });

  afterAll(async () => {
    duckdb.closeSync();
    await rt.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it("json: the reference page has every record, in order, with nulls", () => {
    expect(reference).toHaveLength(ROWS);
    expect(reference[0]?.event_id).toBe("evt-000000");
    expect(reference.at(-1)?.event_id).toBe("evt-009999");
    expect(reference.some((r) => r.media_source === "googleadwords_int")).toBe(true);
    expect(reference.some((r) => r.media_source === null)).toBe(true);
  });

  it("ndjson", async () => {
    const path = await download("ndjson");
    const { readFile } = await import("node:fs/promises");
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l))).toEqual(reference);
  });

  const columns = EXPORT_COLUMNS.map((c) => `'${c.name}': 'VARCHAR'`).join(", ");

  it("csv, read back by DuckDB", async () => {
    const path = await download("csv");
    const rows = await duckRows(
      `SELECT * FROM read_csv('${path}', header = true, delim = ',', quote = '"', escape = '"', columns = {${columns}})`,
    );
    expect(rows).toEqual(reference.map(typed));
  });

  it("tsv, read back by DuckDB told that nothing is quoted, its escapes then undone", async () => {
    const path = await download("tsv");
    const rows = await duckRows(
      `SELECT * FROM read_csv('${path}', header = true, delim = '\t', quote = '', escape = '', columns = {${columns}})`,
    );
    const unescaped = rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([name, value]) => [
          name,
          typeof value === "string" ? unescapeTsvField(value) : value,
        ]),
      ),
    );
    expect(unescaped).toEqual(reference.map(typed));
  });

  it("parquet, read back by DuckDB with its types", async () => {
    const path = await download("parquet");
    const connection = await duckdb.connect();
    const schema = await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${path}')`);
    connection.closeSync();
    expect(schema.getRowObjectsJS().map((r) => r.column_name)).toEqual(COLUMN_NAMES);
    const rows = await duckRows(`SELECT * FROM read_parquet('${path}')`);
    expect(rows).toEqual(reference);
  });

  it("xlsx, read back by exceljs", async () => {
    const path = await download("xlsx");
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path);
    const sheet = workbook.worksheets[0];
    const values = (row: number) => {
      const cells = sheet?.getRow(row).values;
      return Array.isArray(cells) ? cells.slice(1) : [];
    };
    expect(values(1)).toEqual(COLUMN_NAMES);
    expect(sheet?.rowCount).toBe(ROWS + 1);
    const rows = Array.from({ length: ROWS }, (_, i) => {
      const cells = values(i + 2);
      return typed(Object.fromEntries(COLUMN_NAMES.map((name, c) => [name, cells[c] ?? null])));
    });
    expect(rows).toEqual(reference);
    // Numbers are numeric cells, not text.
    expect(typeof sheet?.getRow(2).getCell(COLUMN_NAMES.indexOf("revenue") + 1).value).toBe(
      "number",
    );
  });

  it("xml, read back by an XML parser, nulls as xsi:nil", async () => {
    const path = await download("xml");
    const { readFile } = await import("node:fs/promises");
    const parser = new XMLParser({
      ignoreAttributes: false,
      parseTagValue: false,
      trimValues: false,
      isArray: (name) => name === "event",
    });
    const doc = parser.parse(await readFile(path, "utf8"));
    const events: Record<string, unknown>[] = doc.events.event;
    expect(events).toHaveLength(ROWS);
    const rows = events.map((e) =>
      typed(
        Object.fromEntries(
          COLUMN_NAMES.map((name) => {
            const value = e[name];
            const isNil =
              typeof value === "object" &&
              value !== null &&
              (value as Record<string, string>)["@_xsi:nil"] === "true";
            return [name, isNil ? null : value];
          }),
        ),
      ),
    );
    expect(rows).toEqual(reference);
  });
});

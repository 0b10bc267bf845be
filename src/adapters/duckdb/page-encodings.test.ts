/**
 * A page DuckDB writes itself must read back exactly as the service's own writer's page does,
 * so the embedded runtime and AWS export the same values. Each output is read by a reader
 * independent of both writers (csv-parse, JSON.parse, DuckDB for Parquet).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Readable, Writable } from "node:stream";
import { DuckDBInstance } from "@duckdb/node-api";
import { parse } from "csv-parse/sync";
import fc from "fast-check";
import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ALL_NULL,
  ALL_SET,
  collect,
  duckdb,
  inPieces,
  RECORDS,
  recordAt,
  source,
  sqlString,
} from "../../export/formats/fixtures.test-support.ts";
import { FORMATS } from "../../export/formats/index.ts";
import { unescapeTsvField } from "../../export/formats/tsv.ts";
import type { EngineEncoding, FormatWriter } from "../../export/formats/writer.ts";
import { EXPORT_COLUMNS, type ExportRecord } from "../../record/columns.ts";
import { createDuckDbQueryEngine } from "./query-engine.ts";
import { createReadWriteLock } from "./read-write-lock.ts";
import { COMPLETE, partName, SNAPSHOT_SUFFIX } from "./snapshot-parts.ts";

// Strings as the lake holds them (well-formed Unicode), with the characters formats treat
// specially; numbers as the lake's INTEGER and DOUBLE columns hold them.
const special = fc.constantFrom(
  "",
  " ",
  ",",
  "\t",
  '"',
  "\n",
  "\r",
  "\r\n",
  "#",
  "\\",
  "\u0001",
  "\u007f",
  "\u2028",
  "é",
  "😀",
  "<&>",
  "'",
  "\ufffe",
  "=1+2",
  "null",
  "NULL",
  // The sheet format's escapes (ECMA-376's ST_Xstring), which xlsx writes escaped in turn.
  "_x0041_",
  "_x005F_",
  "_x1920",
  "_",
);
const text = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc
    .array(fc.oneof(special, fc.string({ maxLength: 3 })), { maxLength: 5 })
    .map((parts) => parts.join("")),
);
const cell = (
  type: (typeof EXPORT_COLUMNS)[number]["type"],
): fc.Arbitrary<string | number | null> => {
  const value: fc.Arbitrary<string | number> =
    type === "string"
      ? text
      : type === "integer"
        ? fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })
        : fc
            .oneof(
              fc.double({ noNaN: true, noDefaultInfinity: true }),
              fc.constantFrom(4.99, 1e21, 1e-7, 123456789012345680000, 2 ** 53 + 2, 0.1 + 0.2),
            )
            .map((n) => (Object.is(n, -0) ? 0 : n));
  return fc.option(value, { nil: null, freq: 4 });
};
const record: fc.Arbitrary<ExportRecord> = fc.record(
  Object.fromEntries(EXPORT_COLUMNS.map((column) => [column.name, cell(column.type)])) as {
    [K in keyof ExportRecord]: fc.Arbitrary<ExportRecord[K]>;
  },
);

const TEXT_COLUMNS = EXPORT_COLUMNS.filter((column) => column.type === "string").map(
  (column) => column.name,
);
/**
 * A record of plain values but one text: xml and xlsx copy such a line's bytes as they are, where
 * a record of random values nearly always holds a character that sends it the strings' way.
 */
const plainButOne: fc.Arbitrary<ExportRecord> = fc
  .tuple(fc.constantFrom(...TEXT_COLUMNS), text)
  .map(([name, value]) => ({ ...ALL_SET, [name]: value }));
const anyRecord = fc.oneof(record, plainButOne);

/** Reads csv into rows of cells, telling an empty cell (null) from "" (empty string). */
const readDelimited = (bytes: Buffer, delimiter: string) =>
  parse(bytes, {
    delimiter,
    relax_column_count: false,
    cast: (value, context) => (value === "" && !context.quoting ? null : value),
  });

/** Reads tsv as a reader that does not unquote: lines, then fields, then the escapes undone. */
const readTsv = (bytes: Buffer) =>
  bytes
    .toString("utf8")
    .split("\n")
    .map((line) => line.split("\t").map(unescapeTsvField));

/**
 * Each JSON record's numbers as written, the text after each number field's key: JavaScript
 * writes an exponent of 1e21 and up with a "+", DuckDB without, which no reader types apart.
 */
const numberTexts = (bytes: Buffer) =>
  [
    ...bytes
      .toString("utf8")
      .matchAll(/"(revenue|revenue_usd|click_to_first_open_hours)":([^,}]*)/g),
  ].map((match) => `${match[1]}:${match[2]?.replace("e+", "e")}`);

const readNdjson = (bytes: Buffer) =>
  bytes
    .toString("utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));

describe("pages DuckDB writes itself read back as the service's writers' pages", () => {
  let dir: string;
  let instance: DuckDBInstance;
  let engine: ReturnType<typeof createDuckDbQueryEngine>;
  let snapshots = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "page-encodings-"));
    instance = await DuckDBInstance.create(":memory:");
    engine = createDuckDbQueryEngine({
      duckdb: instance,
      lakeDir: dir,
      snapshotDir: dir,
      pageDir: join(dir, "pages"),
      lakeFiles: createReadWriteLock(),
    });
  });
  afterAll(async () => {
    instance.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  /** A snapshot of the records as materialise writes one: a part of the typed columns. */
  const snapshotOf = async (records: readonly ExportRecord[]) => {
    const typed = join(dir, `typed-${snapshots}.parquet`);
    const location = join(dir, `snapshot-${snapshots++}${SNAPSHOT_SUFFIX}`);
    await writeFile(typed, await collect(FORMATS.parquet.write(source(records))));
    await mkdir(location);
    const part = join(location, partName(0, records.length));
    const connection = await instance.connect();
    try {
      await connection.run(
        `COPY (SELECT * FROM read_parquet(${sqlString(typed)})) TO ${sqlString(part)} (FORMAT parquet)`,
      );
    } finally {
      connection.closeSync();
    }
    await writeFile(join(location, COMPLETE), "");
    return { location, rowCount: records.length };
  };

  const both = async (records: readonly ExportRecord[], writer: FormatWriter) => {
    const native = writer.engineEncoding;
    if (!native) throw new Error("no engine encoding");
    const snapshot = await snapshotOf(records);
    const page = await engine.encodePage(snapshot, 0, Math.max(records.length, 1), native.encoding);
    const service = await collect(writer.write(source(records)));
    if (records.length === 0) {
      // A page of no rows is the service's writers' to write.
      expect(page).toBeUndefined();
      return { engine: service, service, rowCount: 0 };
    }
    if (!page) throw new Error("DuckDB declined the page");
    const framed = native.frame ? native.frame(page.body, page.rowCount) : page.body;
    return {
      engine: await collect(framed),
      service,
      rowCount: page.rowCount,
    };
  };

  const readers: Record<Exclude<EngineEncoding, "parquet">, (bytes: Buffer) => unknown> = {
    csv: (bytes) => readDelimited(bytes, ","),
    tsv: readTsv,
    ndjson: readNdjson,
  };

  for (const format of ["csv", "tsv", "ndjson"] as const) {
    it(`${format}: the same cells for any records`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(record, { maxLength: 8 }), async (records) => {
          const { engine: ours, service } = await both(records, FORMATS[format]);
          expect(readers[format](ours)).toEqual(readers[format](service));
          // tsv has one way to write each value: DuckDB's page is the writer's, byte for byte.
          if (format === "tsv") expect(ours.toString("utf8")).toBe(service.toString("utf8"));
          // A reader that types numbers by their text types them alike.
          if (format === "ndjson") expect(numberTexts(ours)).toEqual(numberTexts(service));
        }),
        { numRuns: 60 },
      );
    });
  }

  /** Each part of a workbook, unzipped (JSZip checks the CRC-32s). */
  const readXlsx = async (bytes: Buffer) => {
    const zip = await JSZip.loadAsync(bytes, { checkCRC32: true });
    const parts: Record<string, string> = {};
    for (const name of Object.keys(zip.files).sort()) {
      parts[name] = (await zip.file(name)?.async("string")) ?? "";
    }
    return parts;
  };

  it("xlsx made from DuckDB's csv page: the same workbook, part for part, for any records", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyRecord, { maxLength: 8 }), async (records) => {
        const { engine: ours, service } = await both(records, FORMATS.xlsx);
        expect(await readXlsx(ours)).toEqual(await readXlsx(service));
      }),
      { numRuns: 60 },
    );
    const records = [...RECORDS, ...Array.from({ length: 3000 }, (_, i) => recordAt(i))];
    const { engine: ours, service, rowCount } = await both(records, FORMATS.xlsx);
    expect(rowCount).toBe(records.length);
    expect(await readXlsx(ours)).toEqual(await readXlsx(service));
  });

  it("xml and xlsx read DuckDB's page into a buffer of their own: records across its refills, one longer than it", async () => {
    const long = { ...ALL_SET, ad_name: `${'long, "quoted" & <marked> '.repeat(12_000)}end` };
    const records = [
      ...Array.from({ length: 1500 }, (_, i) => recordAt(i)),
      long,
      ...Array.from({ length: 1500 }, (_, i) => recordAt(1500 + i)),
    ];
    const xml = await both(records, FORMATS.xml);
    expect(xml.engine.toString("utf8")).toBe(xml.service.toString("utf8"));
    // Sent as the gateway sends it: each part copied as it is taken, since the next is written
    // into the same buffer.
    const page = await engine.encodePage(await snapshotOf(records), 0, records.length, "csv");
    const body = page && FORMATS.xml.engineEncoding?.frame?.(page.body, page.rowCount);
    if (!body || !("sendTo" in body) || typeof body.sendTo !== "function") {
      throw new Error("the xml page does not send itself");
    }
    const sent: Buffer[] = [];
    const socket = new Writable({
      write(chunk: Buffer, _encoding, done) {
        sent.push(Buffer.from(chunk));
        setImmediate(done);
      },
    });
    await body.sendTo(socket);
    expect(Buffer.concat(sent).toString("utf8")).toBe(xml.service.toString("utf8"));
    const xlsx = await both(records, FORMATS.xlsx);
    expect(await readXlsx(xlsx.engine)).toEqual(await readXlsx(xlsx.service));
  });

  it("xml made from DuckDB's csv page: the writer's document byte for byte, in any pieces", async () => {
    const xml = FORMATS.xml;
    const frame = xml.engineEncoding?.frame;
    if (!frame) throw new Error("xml has no frame");
    /** The page's bytes again, cut into pieces of the given sizes in turn. */
    const cut = async (body: Readable, sizes: readonly number[]) =>
      inPieces(await collect(body), sizes);
    const check = async (records: readonly ExportRecord[], sizes: readonly number[]) => {
      const service = await collect(xml.write(source(records)));
      const snapshot = await snapshotOf(records);
      const page = await engine.encodePage(snapshot, 0, records.length, "csv");
      if (!page) throw new Error("DuckDB declined the page");
      expect(page.rowCount).toBe(records.length);
      const ours = await collect(frame(await cut(page.body, sizes), page.rowCount));
      expect(ours.toString("utf8")).toBe(service.toString("utf8"));
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(anyRecord, { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 4 }),
        check,
      ),
      { numRuns: 60 },
    );
    const hostile = {
      ...ALL_NULL,
      customer_user_id: "tab\there",
      ad_name: "a\\b\r\nc<&>\"'\u0001\uffff",
      campaign_name: "",
      adset_name: " ",
    };
    await check([...RECORDS, hostile, ...Array.from({ length: 3000 }, (_, i) => recordAt(i))], []);
    await check([...RECORDS, hostile], [1]);
  });

  it("csv: numbers in the same text as JavaScript writes them", async () => {
    const { engine: ours, service } = await both(RECORDS, FORMATS.csv);
    expect(ours.toString("utf8")).toBe(service.toString("utf8"));
  });

  it("tsv: the same bytes, tabs, line breaks and backslashes escaped alike", async () => {
    const hostile = {
      ...ALL_NULL,
      customer_user_id: "tab\there",
      ad_name: "a\\b\r\nc",
      campaign_name: "",
    };
    const { engine: ours, service } = await both([...RECORDS, hostile], FORMATS.tsv);
    expect(ours.toString("utf8")).toBe(service.toString("utf8"));
  });

  it("ndjson and json: numbers in the same text as JavaScript writes them, whole ones without a fraction", async () => {
    // A reader that types a number by its text (Python's json: 5 an int, 5.0 a float) reads
    // the same types from both runtimes.
    const whole = [5, -1e12, 0, 2 ** 53 + 2, 123456789012345680000, 4.5, 1e-7, 0.1 + 0.2];
    const records = whole.map((revenue, i) => ({
      ...ALL_SET,
      revenue,
      revenue_usd: whole[whole.length - 1 - i] ?? null,
    }));
    for (const format of ["ndjson", "json"] as const) {
      const { engine: ours, service } = await both([...records, ALL_NULL], FORMATS[format]);
      expect(numberTexts(ours)).toEqual(numberTexts(service));
      expect(numberTexts(ours)).toContain("revenue:5");
    }
  });

  it("json: the same envelope and records", async () => {
    for (const records of [RECORDS, Array.from({ length: 3000 }, (_, i) => recordAt(i))]) {
      const { engine: ours, service, rowCount } = await both(records, FORMATS.json);
      expect(rowCount).toBe(records.length);
      expect(JSON.parse(ours.toString("utf8"))).toEqual(JSON.parse(service.toString("utf8")));
    }
  });

  it("parquet: the same schema and rows", async () => {
    const records = [...RECORDS, ...Array.from({ length: 3000 }, (_, i) => recordAt(i))];
    const { engine: ours, service } = await both(records, FORMATS.parquet);
    const read = async (bytes: Buffer, name: string) => {
      const path = join(dir, name);
      await writeFile(path, bytes);
      return {
        schema: (
          await duckdb(
            `SELECT name, type, converted_type, repetition_type FROM parquet_schema(${sqlString(path)})`,
          )
        ).rows.slice(1),
        rows: (await duckdb(`SELECT * FROM read_parquet(${sqlString(path)})`)).rows,
      };
    };
    const fromEngine = await read(ours, "engine.parquet");
    const fromService = await read(service, "service.parquet");
    expect(fromEngine).toEqual(fromService);
    expect(fromEngine.rows).toHaveLength(records.length);
  });
});

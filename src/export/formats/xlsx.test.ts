import { Readable } from "node:stream";
import ExcelJS from "exceljs";
import JSZip from "jszip";
import { describe, expect, it } from "vitest";
import { COLUMN_NAMES, type ExportRecord } from "../../record/columns.ts";
import { csv } from "./csv.ts";
import {
  ALL_SET,
  CONTROL_CHARS,
  collect,
  probeStreaming,
  RECORDS,
  recordAt,
  source,
} from "./fixtures.test-support.ts";
import { xlsx } from "./xlsx.ts";

interface Sheet {
  names: string[];
  header: unknown[];
  rows: Record<string, unknown>[];
}

/**
 * A cell's text as a spreadsheet reads it: the sheet format's `_xHHHH_` escapes (ECMA-376's
 * ST_Xstring) are characters, which exceljs leaves as written.
 */
const asSpreadsheetReads = (value: unknown): unknown =>
  typeof value === "string"
    ? value.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      )
    : value;

/** Reads the workbook back with exceljs's own (non-streaming) reader, escapes decoded. */
async function read(bytes: Buffer): Promise<Sheet> {
  const workbook = new ExcelJS.Workbook();
  // exceljs types `load` with its own ArrayBuffer-shaped `Buffer`, which a Node Buffer does not match.
  await workbook.xlsx.load(new Uint8Array(bytes).buffer);
  const sheet = workbook.getWorksheet("events");
  if (!sheet) throw new Error("no sheet named events");
  const values = (rowNumber: number): unknown[] =>
    COLUMN_NAMES.map((_, i) =>
      asSpreadsheetReads(sheet.getRow(rowNumber).getCell(i + 1).value ?? null),
    );
  const rows: Record<string, unknown>[] = [];
  for (let r = 2; r <= sheet.rowCount; r++) {
    const cells = values(r);
    rows.push(Object.fromEntries(COLUMN_NAMES.map((name, i) => [name, cells[i]])));
  }
  return { names: workbook.worksheets.map((w) => w.name), header: values(1), rows };
}

/** The sheet part's XML, unzipped with exceljs's own zip reader (JSZip). */
async function sheetXml(bytes: Buffer): Promise<string> {
  const zip = await JSZip.loadAsync(bytes);
  const part = zip.file("xl/worksheets/sheet1.xml");
  if (!part) throw new Error("no sheet part");
  return part.async("string");
}

/** A record as read back from the spreadsheet: an empty string is an empty cell there. */
function asReadBack(record: ExportRecord): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const [name, value] of Object.entries(record)) out[name] = value === "" ? null : value;
  return out;
}

describe("xlsx writer", () => {
  it("round-trips every record: one sheet, header row, numbers as numbers, nulls empty, CR and controls kept", async () => {
    const records = [...RECORDS, CONTROL_CHARS];
    const sheet = await read(await collect(xlsx.write(source(records))));
    expect(sheet.names).toEqual(["events"]);
    expect(sheet.header).toEqual(COLUMN_NAMES);
    expect(sheet.rows).toEqual([...RECORDS.map(asReadBack), CONTROL_CHARS]);
  });

  it("keeps formula-like text and escape-like text as text, controls as the sheet's escapes, and drops what no sheet can carry", async () => {
    const record = {
      ...ALL_SET,
      ad_id: "=SUM(A1:A2)",
      ad_name: "a\ud800b\uffffc\u0002d",
      adset_name: "a & b < c > d",
      campaign_name: "\u0001 lead",
      customer_user_id: "_x0041__x000D_",
      // Two escapes sharing an underscore: read left to right, the second begins at the first's end.
      media_source: "_x0041_x0042_",
      // A control character's escape closing an escape-like run before it.
      adset_id: "_x0041\u0001",
    };
    const bytes = await collect(xlsx.write(source([record])));
    const sheet = await read(bytes);
    expect(sheet.rows).toEqual([{ ...record, ad_name: "abc\u0002d" }]);
    const xml = await sheetXml(bytes);
    expect(xml).toContain("<t>_x0001_ lead</t>");
    expect(xml).toContain("<t>_x005F_x0041__x005F_x000D_</t>");
    expect(xml).toContain("<t>_x005F_x0041_x005F_x0042_</t>");
    expect(xml).toContain("<t>_x005F_x0041_x0001_</t>");
  });

  it("leaves a value made only of characters no sheet can carry an empty cell, the cells after it in their columns", async () => {
    const record = {
      ...ALL_SET,
      campaign_name: "\ufffe",
      adset_name: "\uffff\ufffe",
      ad_name: "\uffff",
    };
    const bytes = await collect(xlsx.write(source([record])));
    expect((await read(bytes)).rows).toEqual([
      { ...record, campaign_name: null, adset_name: null, ad_name: null },
    ]);
    // From a csv page too: the same sheet.
    const frame = xlsx.engineEncoding?.frame;
    if (!frame) throw new Error("no frame");
    const page = await collect(csv.write(source([record])));
    const framed = await collect(frame(Readable.from([page]), 1));
    expect(await sheetXml(framed)).toBe(await sheetXml(bytes));
  });

  it("keeps the spaces at a text's edges, tabs, line ends and CR too, and marks no other text so", async () => {
    for (const [value, preserved] of [
      [" lead", true],
      ["trail ", true],
      ["\ttab", true],
      ["tab\t", true],
      ["\nline", true],
      ["line\n", true],
      ["\rcr", true],
      ["cr\r", true],
      [" control\u0001", true],
      ["in side", false],
      ["control\u0001", false],
    ] as const) {
      const xml = await sheetXml(
        await collect(xlsx.write(source([{ ...ALL_SET, ad_name: value }]))),
      );
      const row = xml.slice(xml.indexOf('<row r="2">'));
      expect(row.includes('<t xml:space="preserve">'), JSON.stringify(value)).toBe(preserved);
    }
  });

  it("names a cell's column only at a row's start and after an empty cell", async () => {
    // Columns F and G empty (null, the empty string): H names itself, the others follow on.
    const record = { ...ALL_SET, campaign_id: null, campaign_name: "", revenue: Number.NaN };
    const bytes = await collect(xlsx.write(source([record])));
    const xml = await sheetXml(bytes);
    const row = xml.slice(xml.indexOf('<row r="2">'));
    expect(row.match(/ r="[A-Z]+2"/g)).toEqual([' r="A2"', ' r="H2"', ' r="U2"']);
    expect((await read(bytes)).rows).toEqual([
      { ...record, campaign_id: null, campaign_name: null, revenue: null },
    ]);
  });

  it("writes a valid zip: every entry's CRC-32 and size check out", async () => {
    const bytes = await collect(xlsx.write(source(Array.from({ length: 2_000 }, recordAt))));
    // JSZip checks each entry's CRC-32 against its bytes when asked to, and its sizes always.
    const zip = await JSZip.loadAsync(bytes, { checkCRC32: true });
    const names = Object.keys(zip.files).sort();
    expect(names).toEqual([
      "[Content_Types].xml",
      "_rels/.rels",
      "xl/_rels/workbook.xml.rels",
      "xl/styles.xml",
      "xl/workbook.xml",
      "xl/worksheets/sheet1.xml",
    ]);
    for (const name of names) await zip.file(name)?.async("uint8array");
    // A wrong CRC-32 is caught, so the check above means something: the sheet's, in its
    // central directory header (46 bytes before the name, the CRC at 16).
    const crcAt = bytes.lastIndexOf("xl/worksheets/sheet1.xml") - 46 + 16;
    expect(bytes.readUInt32LE(crcAt - 16)).toBe(0x02014b50);
    const corrupt = Buffer.from(bytes);
    corrupt[crcAt] = (corrupt[crcAt] ?? 0) ^ 0xff;
    await expect(
      JSZip.loadAsync(corrupt, { checkCRC32: true }).then((z) =>
        z.file("xl/worksheets/sheet1.xml")?.async("string"),
      ),
    ).rejects.toThrow();
  });

  it("makes the same sheet from a csv page as from its records, however the page's bytes arrive", async () => {
    // Lines with quoted fields, markup and controls (the strings' way) among plain ones (the
    // bytes'), multi-byte characters, edge spaces, numbers that are not finite.
    const records: ExportRecord[] = [
      ...RECORDS,
      CONTROL_CHARS,
      {
        ...ALL_SET,
        campaign_name: " edge ",
        ad_name: "é❄😀\uffff",
        revenue: Number.POSITIVE_INFINITY,
      },
      // Text shaped like the sheet's own escapes, which must be written escaped in turn; and
      // text with underscores that is not.
      {
        ...ALL_SET,
        ad_name: "banner_1080_x1920_v2",
        customer_user_id: "user_x0041_",
        campaign_name: "_x005F_x0041__x_x12_x123g_",
      },
      // The same on lines otherwise plain, which the bytes' way would copy as they are: escapes
      // of upper and lower case hex digits, and text with a space at its start or end.
      { ...ALL_SET, customer_user_id: "user_xFACE_" },
      { ...ALL_SET, ad_name: "_xcafe_ad" },
      { ...ALL_SET, campaign_name: " Spring Sale" },
      { ...ALL_SET, adset_name: "Lookalike 1% " },
      { ...ALL_SET, campaign_name: "Valentine's" },
      { ...ALL_SET, ad_name: "a\u0000b" },
      ...Array.from({ length: 3_000 }, (_, i) => recordAt(i)),
    ];
    // DuckDB's page writes a number that is not finite as its name, where the service's csv
    // writer leaves it empty: these lines' stand-ins are swapped for the names in the page.
    const notFinite = [
      { ...ALL_SET, campaign_id: null, revenue: Number.NaN },
      { ...ALL_SET, revenue_usd: Number.NEGATIVE_INFINITY },
    ];
    const standIns = [
      { ...ALL_SET, campaign_id: null, revenue: 12345.25 },
      { ...ALL_SET, revenue_usd: 54321.25 },
    ];
    const fromRecords = await sheetXml(
      await collect(xlsx.write(source([...records, ...notFinite]))),
    );
    const page = Buffer.from(
      (await collect(csv.write(source([...records, ...standIns]))))
        .toString("utf8")
        .replace(",12345.25,", ",NaN,")
        .replace(",54321.25\n", ",-Infinity\n"),
    );
    const frame = xlsx.engineEncoding?.frame;
    if (!frame) throw new Error("no frame");
    // Whole, then in 7-byte pieces: lines and characters split across chunks.
    for (const size of [page.length, 7]) {
      const pieces = Array.from({ length: Math.ceil(page.length / size) }, (_, i) =>
        page.subarray(i * size, (i + 1) * size),
      );
      const framed = await collect(frame(Readable.from(pieces), records.length + 2));
      expect(await sheetXml(framed)).toBe(fromRecords);
    }
  });

  it("refuses a csv page's record of a field more or fewer than the columns, rather than shift its cells", async () => {
    const frame = xlsx.engineEncoding?.frame;
    if (!frame) throw new Error("no frame");
    const [header = "", line = ""] = (await collect(csv.write(source([ALL_SET]))))
      .toString("utf8")
      .split("\n");
    for (const odd of [`${line},1`, line.slice(0, line.lastIndexOf(","))]) {
      const page = Readable.from([Buffer.from(`${header}\n${odd}\n`)]);
      await expect(collect(frame(page, 1))).rejects.toThrow(/wrong width/);
    }
  });

  it("writes a workbook with only the header row for no rows", async () => {
    const sheet = await read(await collect(xlsx.write(source([]))));
    expect(sheet.header).toEqual(COLUMN_NAMES);
    expect(sheet.rows).toEqual([]);
  });

  it("streams: output starts before the source ends and all rows parse back", async () => {
    const empty = await collect(xlsx.write(source([])));
    const probe = await probeStreaming(xlsx);
    expect(probe.rowsBeforeFirstChunk).toBeLessThan(10_000);
    // More than an empty workbook had arrived, so rows were encoded before the last was read.
    expect(probe.bytesBeforeLastRow).toBeGreaterThan(empty.length);
    const sheet = await read(probe.output);
    expect(sheet.rows).toEqual(Array.from({ length: 10_000 }, (_, i) => recordAt(i)));
  });
});

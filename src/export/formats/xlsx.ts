/**
 * xlsx: one sheet, "events", a header row, then a row per record: strings as inline strings
 * (never formulas), numbers as numbers, null as no cell. The sheet is SpreadsheetML written as
 * the rows arrive (on DuckDB, as the lines of its tsv page are read) and zipped by zip-stream
 * (zlib deflate, on the thread pool) on its way out; the other parts of the package are fixed. A general workbook library (exceljs) spends most of
 * a 10,000-row page building cell objects for features an export never uses, several times what
 * these strings cost; the tests read the output back with exceljs.
 */
import { PassThrough, Readable, type TransformCallback } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { crc32, DeflateRaw, type ZlibOptions } from "node:zlib";
import ZipStream from "zip-stream";
import { COLUMN_NAMES, EXPORT_COLUMNS } from "../../record/columns.ts";
import { unescapeTsvField } from "./tsv.ts";
import { encodeText, type FormatWriter, type TextFraming } from "./writer.ts";
import { escapeXmlText } from "./xml.ts";

const SHEET_NAME = "events";
const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const RELATIONSHIPS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PACKAGE_RELATIONSHIPS = "http://schemas.openxmlformats.org/package/2006/relationships";
const DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** The package's fixed parts: content types, relationships, the workbook and its one style. */
const PARTS: Record<string, string> = {
  "[Content_Types].xml":
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
    '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
    "</Types>",
  "_rels/.rels":
    `<Relationships xmlns="${PACKAGE_RELATIONSHIPS}">` +
    `<Relationship Id="rId1" Type="${RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/>` +
    "</Relationships>",
  "xl/workbook.xml":
    `<workbook xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}">` +
    `<sheets><sheet name="${SHEET_NAME}" sheetId="1" r:id="rId1"/></sheets>` +
    "</workbook>",
  "xl/_rels/workbook.xml.rels":
    `<Relationships xmlns="${PACKAGE_RELATIONSHIPS}">` +
    `<Relationship Id="rId1" Type="${RELATIONSHIPS}/worksheet" Target="worksheets/sheet1.xml"/>` +
    `<Relationship Id="rId2" Type="${RELATIONSHIPS}/styles" Target="styles.xml"/>` +
    "</Relationships>",
  // The minimal style sheet spreadsheet applications expect: one font, the two required
  // fills, one border, one cell format.
  "xl/styles.xml":
    `<styleSheet xmlns="${MAIN}">` +
    '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>' +
    '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
    '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
    "</styleSheet>",
};

const SHEET_HEAD = `${DECLARATION}<worksheet xmlns="${MAIN}"><sheetData>`;
const SHEET_TAIL = "</sheetData></worksheet>";

const isSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a;
// escapeXmlText writes CR as a character reference, which readers trim like a space.
const CR = "&#13;";
const TEXT = ' t="inlineStr"><is><t>';
const TEXT_PRESERVED = ' t="inlineStr"><is><t xml:space="preserve">';
const TEXT_END = "</t></is></c>";
/**
 * The characters escapeXmlText changes or drops: C0 controls but tab and line feed, the five
 * markup characters, surrogates (a well-formed pair as well: the rare text with one takes the
 * slow path) and U+FFFE, U+FFFF. Text without any, nearly all of it, is written as it is.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it finds.
const NEEDS_ESCAPE = /[\u0000-\u0008\u000b-\u001f"&'<>\ud800-\udfff\ufffe\uffff]/;

/** A text cell from its opening `<c` on; `text` is not empty. */
function textCell(text: string): string {
  // Without xml:space="preserve", readers may trim leading and trailing whitespace.
  if (!NEEDS_ESCAPE.test(text)) {
    const edges = isSpace(text.charCodeAt(0)) || isSpace(text.charCodeAt(text.length - 1));
    return (edges ? TEXT_PRESERVED : TEXT) + text + TEXT_END;
  }
  // Tested on the escaped text, so characters XML cannot carry (dropped) are not edges.
  const escaped = escapeXmlText(text);
  const edges =
    escaped.length > 0 &&
    (isSpace(escaped.charCodeAt(0)) ||
      isSpace(escaped.charCodeAt(escaped.length - 1)) ||
      escaped.startsWith(CR) ||
      escaped.endsWith(CR));
  return (edges ? TEXT_PRESERVED : TEXT) + escaped + TEXT_END;
}

/** A, B, … Z, AA, AB, …: the column part of a cell reference. */
const columnLetters = (index: number): string => {
  let letters = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  }
  return letters;
};
const COLUMN_LETTERS = COLUMN_NAMES.map((_, i) => columnLetters(i));

/**
 * One sheet row; `rowNumber` counts from 1, the header's. An empty cell (null, the empty
 * string, or a number that is not finite) is no cell at all. OOXML lets a cell omit its
 * reference (`r`), readers placing it in the column after the previous cell's, so only a row's
 * first cell and a cell after an empty one name their column: the row numbers in references
 * are the one part of a sheet deflate cannot shrink, and a reference on every cell made the
 * zipped page 2.5 times as large and slower to write. exceljs (the tests' reader) needs the
 * row's `r` and its first cell's, and skips an empty `<c/>` without moving on a column, so
 * empty cells are left out rather than written as `<c/>`.
 */
function rowXml(
  cells: Readonly<Record<string, string | number | null>>,
  rowNumber: number,
): string {
  let out = `<row r="${rowNumber}">`;
  let placed = false;
  for (let i = 0; i < COLUMN_NAMES.length; i++) {
    const value = cells[COLUMN_NAMES[i] as string];
    // The empty string is an empty cell, as spreadsheet applications write it; a number that
    // is not finite has no spreadsheet value and is left empty, as null is.
    if (typeof value === "string" ? value === "" : !Number.isFinite(value)) {
      placed = false;
      continue;
    }
    out += placed ? "<c" : `<c r="${COLUMN_LETTERS[i]}${rowNumber}"`;
    out += typeof value === "string" ? textCell(value) : `><v>${value}</v></c>`;
    placed = true;
  }
  return `${out}</row>`;
}

// The compressor works a chunk at a time: a few KB per chunk would double the page's time.
const SHEET_CHUNK_CHARS = 64 * 1024;

/** The sheet part: the header row, then a row per record, numbered from 2. */
const SHEET: TextFraming = {
  head: SHEET_HEAD + rowXml(Object.fromEntries(COLUMN_NAMES.map((name) => [name, name])), 1),
  record: (row, index) => rowXml(row, index + 2),
  tail: () => SHEET_TAIL,
};

const IS_TEXT = EXPORT_COLUMNS.map((column) => column.type === "string");

/**
 * One sheet row from a line of the tsv page (src/export/formats/tsv.ts), the same XML as
 * rowXml writes for its record: tsv writes null and the empty string alike as an empty field,
 * both an empty cell here, and a number as JavaScript writes it, as rowXml does.
 */
function tsvRowXml(line: string, rowNumber: number): string {
  const fields = line.split("\t");
  // The escapes are undone only where there are some: a line without a backslash has none.
  const escaped = line.includes("\\");
  let out = `<row r="${rowNumber}">`;
  let placed = false;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    if (field === "" || (!IS_TEXT[i] && !Number.isFinite(Number(field)))) {
      placed = false;
      continue;
    }
    out += placed ? "<c" : `<c r="${COLUMN_LETTERS[i]}${rowNumber}"`;
    out += IS_TEXT[i]
      ? textCell(escaped ? unescapeTsvField(field) : field)
      : `><v>${field}</v></c>`;
    placed = true;
  }
  return `${out}</row>`;
}

/** The sheet part from the bytes of a tsv page, its header line first, read as it is read. */
async function* sheetFromTsv(tsv: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const decoder = new StringDecoder("utf8");
  let pending = SHEET.head;
  let partial = "";
  let lines = 0;
  for await (const chunk of tsv) {
    const text = partial + decoder.write(chunk);
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      // The header line is the sheet's first row, already in its head.
      if (lines > 0) pending += tsvRowXml(text.slice(start, end), lines + 1);
      lines++;
      start = end + 1;
    }
    partial = text.slice(start);
    if (pending.length >= SHEET_CHUNK_CHARS) {
      yield Buffer.from(pending, "utf8");
      pending = "";
    }
  }
  if (partial + decoder.end() !== "") throw new Error("the tsv page ends inside a line");
  yield Buffer.from(pending + SHEET_TAIL, "utf8");
}

/** The part of a compress-commons zip entry (ZipArchiveEntry) the deflate below fills in. */
interface ZipEntry {
  getMethod(): number;
  setCrc(crc: number): void;
  setSize(size: number): void;
  setCompressedSize(size: number): void;
}
const DEFLATED = 8;

/** Raw deflate that counts what it reads and writes and takes the CRC-32 with Node's zlib. */
class CountingDeflate extends DeflateRaw {
  checksum = 0;
  rawSize = 0;
  compressedSize = 0;

  override push(chunk: Buffer | null, encoding?: BufferEncoding): boolean {
    if (chunk) this.compressedSize += chunk.length;
    return super.push(chunk, encoding);
  }

  override _transform(chunk: Buffer, encoding: BufferEncoding, callback: TransformCallback) {
    this.checksum = crc32(chunk, this.checksum);
    this.rawSize += chunk.length;
    super._transform(chunk, encoding, callback);
  }
}

/**
 * zip-stream with its deflated entries' CRC-32 taken by Node's zlib (native code) instead of
 * the crc-32 package's JavaScript, which was an eighth of the writer's time on a 10,000-row
 * page. It replaces compress-commons's `_smartStream` (v7: the stream each entry's bytes go
 * through, whose checksum and sizes it writes after them) for deflated entries; the zip is
 * still the library's. The tests check every entry's CRC.
 */
class SheetZip extends ZipStream {
  _smartStream(entry: ZipEntry, callback: (error: Error | null, entry: ZipEntry) => void) {
    const library = ZipStream.prototype as unknown as {
      _smartStream(this: ZipStream, entry: ZipEntry, callback: unknown): unknown;
    };
    if (entry.getMethod() !== DEFLATED) return library._smartStream.call(this, entry, callback);
    const deflate = new CountingDeflate(this.zlibOptions);
    let failure: Error | null = null;
    deflate.once("end", () => {
      entry.setCrc(deflate.checksum >>> 0);
      entry.setSize(deflate.rawSize);
      entry.setCompressedSize(deflate.compressedSize);
      (this as unknown as { _afterAppend(entry: ZipEntry): void })._afterAppend(entry);
      callback(failure, entry);
    });
    deflate.once("error", (error: Error) => {
      failure = error;
    });
    deflate.pipe(this, { end: false });
    return deflate;
  }

  private get zlibOptions(): ZlibOptions {
    return (this as unknown as { options: { zlib: ZlibOptions } }).options.zlib;
  }
}

/**
 * The workbook: the fixed parts, then the sheet, deflated as `out` is read. The fastest
 * deflate: a page's sheet is most of 1 KB of XML a row, and the default level takes several
 * times as long to compress it for a download only somewhat smaller.
 */
function workbook(sheetXml: Readable): Readable {
  const zip = new SheetZip({ zlib: { level: 1 } });
  const out = new PassThrough();
  const fail = (error: unknown) =>
    out.destroy(error instanceof Error ? error : new Error(String(error)));
  // Entries go in one after another; the sheet's rows are read only as `out` is.
  const entry = (source: Buffer | Readable, name: string) =>
    new Promise<void>((resolve, reject) =>
      zip.entry(source, { name }, (error) => (error ? reject(error) : resolve())),
    );
  const fill = async () => {
    for (const [name, text] of Object.entries(PARTS)) {
      await entry(Buffer.from(DECLARATION + text, "utf8"), name);
    }
    await entry(sheetXml, "xl/worksheets/sheet1.xml");
    zip.finalize();
  };
  fill().catch(fail);
  zip.on("error", fail);
  sheetXml.on("error", fail);
  // A consumer that goes away stops the rows.
  out.on("close", () => {
    sheetXml.destroy();
    zip.destroy();
  });
  zip.pipe(out);
  return out;
}

export const xlsx: FormatWriter = {
  contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  extension: "xlsx",
  attachment: true,
  write: (rows) =>
    workbook(Readable.from(encodeText(rows, SHEET, SHEET_CHUNK_CHARS), { objectMode: false })),
  /**
   * On an engine that writes pages itself (DuckDB), the sheet is made from its tsv page: the
   * rows arrive as lines, split on tabs, rather than as one JSON text each parsed into a
   * record, and the lines carry numbers already written as JavaScript writes them.
   */
  engineEncoding: {
    encoding: "tsv",
    frame: (body) => workbook(Readable.from(sheetFromTsv(body), { objectMode: false })),
  },
};

/**
 * xlsx: one sheet, "events", a header row, then a row per record: strings as inline strings
 * (never formulas), numbers as numbers, null as no cell. The sheet is SpreadsheetML written as
 * the rows arrive (on DuckDB, as the lines of its csv page are read) and zipped by zip-stream
 * on its way out; the other parts of the package are fixed. A general workbook library
 * (exceljs) spends most of a 10,000-row page building cell objects for features an export never
 * uses, several times what these strings cost; the tests read the output back with exceljs.
 */

import { once } from "node:events";
import { PassThrough, Readable, Transform, type TransformCallback } from "node:stream";
import { crc32, DeflateRaw, type ZlibOptions } from "node:zlib";
import ZipStream from "zip-stream";
import { COLUMN_NAMES, EXPORT_COLUMNS } from "../../record/columns.ts";
import {
  COMMA,
  type CsvPageMarkup,
  copyField,
  fromCsvPage,
  longest,
  putBytes,
  SHEET_DECLINED,
} from "./csv-page.ts";
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
 * slow path) and U+FFFE, U+FFFF; and `_x`, which may begin an escape of the sheet's own.
 * Text without any, nearly all of it, is written as it is.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it finds.
const NEEDS_ESCAPE = /[\u0000-\u0008\u000b-\u001f"&'<>\ud800-\udfff\ufffe\uffff]|_x/;
/**
 * The underscore that begins text a spreadsheet reads as one of its escapes (`_x0041_` is "A"),
 * found without taking the closing one, which may begin the next (`_x0041_x0042_`); or whose
 * closing one a control character becomes once escaped (`_x0041` then U+0001).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls that are escaped after.
const ESCAPE_LIKE = /_(?=x[0-9A-Fa-f]{4}(?:_|[\u0000-\u0008\u000b\u000c\u000e-\u001f]))/g;
/** The C0 controls XML cannot carry (tab, line feed and CR it can). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it finds.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

/**
 * A cell's text with the sheet format's own escapes (ECMA-376's ST_Xstring): a control character
 * as `_xHHHH_`, which spreadsheets read back as that character where XML could not carry it, and
 * a literal `_xHHHH_` with its underscore escaped (`_x005F_`), so it is read as written.
 */
const sheetEscaped = (text: string): string =>
  text
    .replace(ESCAPE_LIKE, "_x005F_")
    .replace(
      CONTROL,
      (control) => `_x${control.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}_`,
    );

/**
 * A text cell from its opening `<c` on; undefined for text with nothing left to write once
 * escaped (the empty string, or only characters XML cannot carry), which is an empty cell.
 */
function textCell(text: string): string | undefined {
  if (text === "") return undefined;
  // Without xml:space="preserve", readers may trim leading and trailing whitespace.
  if (!NEEDS_ESCAPE.test(text)) {
    const edges = isSpace(text.charCodeAt(0)) || isSpace(text.charCodeAt(text.length - 1));
    return (edges ? TEXT_PRESERVED : TEXT) + text + TEXT_END;
  }
  // Tested on the escaped text, so characters XML cannot carry (dropped) are not edges.
  const escaped = escapeXmlText(sheetEscaped(text));
  // An empty `<t>` would be a cell exceljs skips without moving on a column, as `<c/>`.
  if (escaped === "") return undefined;
  const edges =
    isSpace(escaped.charCodeAt(0)) ||
    isSpace(escaped.charCodeAt(escaped.length - 1)) ||
    escaped.startsWith(CR) ||
    escaped.endsWith(CR);
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
 * string, text of only characters XML cannot carry, or a number that is not finite) is no cell
 * at all. OOXML lets a cell omit its
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
    const cell =
      typeof value === "string"
        ? textCell(value)
        : Number.isFinite(value)
          ? `><v>${value}</v></c>`
          : undefined;
    if (cell === undefined) {
      placed = false;
      continue;
    }
    out += (placed ? "<c" : `<c r="${COLUMN_LETTERS[i]}${rowNumber}"`) + cell;
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
 * A number's text ends in a digit when it is finite: the csv page holds JavaScript's text, and
 * DuckDB's page "Infinity", "-Infinity" and "NaN" for the rest, which are no spreadsheet value.
 */
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;

/**
 * One sheet row from a record of the csv page (src/export/formats/csv.ts), the same XML as
 * rowXml writes for its record: null (an unquoted empty field) and the empty string (a quoted
 * one) are both an empty cell, and a number is as JavaScript writes it, as rowXml does. The
 * records the line writer declines (quoted fields, markup characters, controls) come here.
 */
function fieldsRowXml(fields: readonly (string | null)[], index: number): string {
  if (fields.length !== COLUMN_COUNT) throw new Error("a csv page record of the wrong width");
  const rowNumber = index + 2;
  let out = `<row r="${rowNumber}">`;
  let placed = false;
  for (let i = 0; i < COLUMN_COUNT; i++) {
    const field = fields[i];
    const cell = !field
      ? undefined
      : IS_TEXT[i]
        ? textCell(field)
        : isDigit(field.charCodeAt(field.length - 1))
          ? `><v>${field}</v></c>`
          : undefined;
    if (cell === undefined) {
      placed = false;
      continue;
    }
    out += (placed ? "<c" : `<c r="${COLUMN_LETTERS[i]}${rowNumber}"`) + cell;
    placed = true;
  }
  return `${out}</row>`;
}

const ascii = (text: string) => Buffer.from(text, "latin1");
const COLUMN_COUNT = COLUMN_NAMES.length;
/** The most digits of a row number in a cell reference. */
const ROW_DIGITS = 10;

/**
 * A cell's closing tags are written with whatever follows them (the next cell's opening tags,
 * or the row's end) as one run of bytes: a copy of a few bytes costs a call whatever its
 * length, and three a cell were most of a sheet's calls. The cell still open is one of these.
 */
const OPEN_NONE = 0;
const OPEN_TEXT = 1;
const OPEN_NUMBER = 2;
const CLOSE = ["", TEXT_END, "</v></c>"];
const OPEN = [' t="inlineStr"><is><t>', "><v>"];
/** [closing][text or number]: the cell before closed, the next one opened without a reference. */
const NEXT_CELL = CLOSE.map((close) => OPEN.map((open) => ascii(`${close}<c${open}`)));
/** [closing][column]: the cell before closed, the next one's reference begun, up to its row. */
const NEXT_CELL_AT = CLOSE.map((close) =>
  COLUMN_LETTERS.map((letters) => ascii(`${close}<c r="${letters}`)),
);
/** [text or number]: the reference's row ended and the cell opened. */
const CELL_AT_OPENED = OPEN.map((open) => ascii(`"${open}`));
const ROW_END = CLOSE.map((close) => ascii(`${close}</row>`));
const ROW_OPEN = ascii('<row r="');
const ROW_OPENED = ascii('">');

const putCount = (out: Buffer, at: number, count: number): number => {
  let digits = 1;
  for (let rest = count; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  for (let k = digits - 1, rest = count; k >= 0; k--, rest = Math.floor(rest / 10)) {
    out[at + k] = 0x30 + (rest % 10);
  }
  return at + digits;
};
const SPACE = 0x20;

/**
 * The sheet part from a csv page, numbered from 2 (the header row is in its head). A line
 * whose text needs no escaping, and no xml:space, is copied into the sheet between fixed tag
 * bytes as it is read: building the sheet as strings cost more than deflating it, and the
 * garbage of a string per field and per tag made the service's collector a sixth of the page.
 */
const SHEET_FROM_CSV: CsvPageMarkup = {
  head: SHEET.head,
  tail: SHEET_TAIL,
  tagBytes:
    ROW_OPEN.length +
    ROW_DIGITS +
    ROW_OPENED.length +
    longest(ROW_END) +
    COLUMN_COUNT *
      (Math.max(
        longest(NEXT_CELL.flat()),
        longest(NEXT_CELL_AT.flat()) + ROW_DIGITS + longest(CELL_AT_OPENED),
      ) +
        ROW_DIGITS),
  line(csv, start, end, index, out, at) {
    const rowNumber = index + 2;
    let to = putBytes(out, putCount(out, putBytes(out, at, ROW_OPEN), rowNumber), ROW_OPENED);
    // The cell before, its closing tags not yet written; none when it was left empty.
    let open = OPEN_NONE;
    let placed = false;
    let k = start;
    for (let i = 0; i < COLUMN_COUNT; i++) {
      // Past the field before's comma; a line of fewer fields is declined.
      if (i > 0 && k++ >= end) return -1;
      if (k === end || csv[k] === COMMA) {
        placed = false;
        continue;
      }
      const text = IS_TEXT[i] as boolean;
      // Text with a space at an edge needs xml:space, and is rare: declined (and at its end,
      // below). Tab and line feed are declined already.
      if (text && csv[k] === SPACE) return -1;
      const cell = to;
      const kind = text ? 0 : 1;
      const value = placed
        ? putBytes(out, to, (NEXT_CELL[open] as Buffer[])[kind] as Buffer)
        : putBytes(
            out,
            putCount(
              out,
              putBytes(out, to, (NEXT_CELL_AT[open] as Buffer[])[i] as Buffer),
              rowNumber,
            ),
            CELL_AT_OPENED[kind] as Buffer,
          );
      to = copyField(csv, k, end, out, value, SHEET_DECLINED);
      if (to < 0) return -1;
      k += to - value;
      const last = out[to - 1] as number;
      if (text) {
        if (last === SPACE) return -1;
      } else if (!isDigit(last)) {
        // A number that is not finite: no cell, and the cell before still open.
        to = cell;
        placed = false;
        continue;
      }
      open = text ? OPEN_TEXT : OPEN_NUMBER;
      placed = true;
    }
    // A line of more fields is declined.
    return k === end ? putBytes(out, to, ROW_END[open] as Buffer) : -1;
  },
  record: fieldsRowXml,
};

/** The part of a compress-commons zip entry (ZipArchiveEntry) the deflate below fills in. */
interface ZipEntry {
  getMethod(): number;
  setCrc(crc: number): void;
  setSize(size: number): void;
  setCompressedSize(size: number): void;
}
const DEFLATED = 8;

/** What a zip entry's header needs of its data: the CRC-32 and the size before deflating. */
interface RawSums {
  checksum: number;
  rawSize: number;
}

/** Bytes deflated before they came (deflatedParts), counted on their way into the zip. */
class Counted extends Transform {
  bytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    this.bytes += chunk.length;
    callback(null, chunk);
  }
}

// The fastest deflate: a page's sheet is most of 1 KB of XML a row, and the default level
// takes several times as long to compress it for a download only somewhat smaller.
const FASTEST: ZlibOptions = { level: 1 };

/** Room for a deflated part's bytes: one pass of the thread pool a part, not one per 16 KB. */
const DEFLATED_CHUNK_BYTES = 256 * 1024;

/**
 * One raw deflate stream on the thread pool, written a part at a time, into `sums`: a part is
 * deflated while the next is made, and taken in before the one after is asked for, so the
 * parts may be two buffers written in turn (fromCsvPage's `buffers`). A sheet's megabytes in
 * fresh buffers outside V8's heap made it mark the whole heap again every few pages; on this
 * thread, the deflate added its time to the sheet's.
 */
async function* deflatedParts(parts: AsyncIterable<Buffer>, sums: RawSums) {
  const deflate = new DeflateRaw({ ...FASTEST, chunkSize: DEFLATED_CHUNK_BYTES });
  const deflated: Buffer[] = [];
  deflate.on("data", (chunk: Buffer) => deflated.push(chunk));
  const ended = once(deflate, "end");
  ended.catch(() => undefined);
  try {
    let writing: Promise<void> | undefined;
    for await (const part of parts) {
      sums.checksum = crc32(part, sums.checksum);
      sums.rawSize += part.length;
      await writing;
      writing = new Promise<void>((resolve, reject) =>
        deflate.write(part, (error) => (error ? reject(error) : resolve())),
      );
      // Its failure is met when it is awaited, before the next part.
      writing.catch(() => undefined);
      yield* deflated.splice(0);
    }
    await writing;
    deflate.end();
    await ended;
    yield* deflated.splice(0);
  } finally {
    deflate.destroy();
  }
}

/**
 * zip-stream with its sheet deflated before it comes (deflatedParts), its CRC-32 taken by
 * Node's zlib (native code) rather than the crc-32 package's JavaScript, which was an eighth of
 * the writer's time on a 10,000-row page. It replaces compress-commons's `_smartStream` (v7:
 * the stream each entry's bytes go through, whose checksum and sizes it writes after them) for
 * deflated entries, the sheet alone: the fixed parts are stored. The zip is still the
 * library's. The tests check every entry's CRC.
 */
class SheetZip extends ZipStream {
  constructor(private readonly deflated: RawSums) {
    super();
  }

  _smartStream(entry: ZipEntry, callback: (error: Error | null, entry: ZipEntry) => void) {
    const library = ZipStream.prototype as unknown as {
      _smartStream(this: ZipStream, entry: ZipEntry, callback: unknown): unknown;
    };
    if (entry.getMethod() !== DEFLATED) return library._smartStream.call(this, entry, callback);
    const deflated = new Counted();
    let failure: Error | null = null;
    deflated.once("end", () => {
      entry.setCrc(this.deflated.checksum >>> 0);
      entry.setSize(this.deflated.rawSize);
      entry.setCompressedSize(deflated.bytes);
      (this as unknown as { _afterAppend(entry: ZipEntry): void })._afterAppend(entry);
      callback(failure, entry);
    });
    deflated.once("error", (error: Error) => {
      failure = error;
    });
    deflated.pipe(this, { end: false });
    return deflated;
  }
}

/**
 * The workbook: the fixed parts, then the sheet, as `out` is read, its parts deflated as they
 * are made.
 */
function workbook(sheetParts: AsyncIterable<Buffer>): Readable {
  const sums: RawSums = { checksum: 0, rawSize: 0 };
  const sheet = Readable.from(deflatedParts(sheetParts, sums), { objectMode: false });
  const zip = new SheetZip(sums);
  const out = new PassThrough();
  const fail = (error: unknown) =>
    out.destroy(error instanceof Error ? error : new Error(String(error)));
  // Entries go in one after another; the sheet's rows are read only as `out` is.
  const entry = (source: Buffer | Readable, name: string, store: boolean) =>
    new Promise<void>((resolve, reject) =>
      zip.entry(source, { name, store }, (error) => (error ? reject(error) : resolve())),
    );
  const fill = async () => {
    // A few hundred bytes each: stored, they leave the sheet the one deflated entry.
    for (const [name, text] of Object.entries(PARTS)) {
      await entry(Buffer.from(DECLARATION + text, "utf8"), name, true);
    }
    await entry(sheet, "xl/worksheets/sheet1.xml", false);
    zip.finalize();
  };
  fill().catch(fail);
  zip.on("error", fail);
  sheet.on("error", fail);
  // A consumer that goes away stops the rows.
  out.on("close", () => {
    sheet.destroy();
    zip.destroy();
  });
  zip.pipe(out);
  return out;
}

/** The sheet made from a csv page's bytes, through two buffers (see deflatedParts). */
const workbookFromCsv = (csv: Readable): Readable =>
  workbook(fromCsvPage(csv, SHEET_FROM_CSV, { buffers: 2 }));

export const xlsx: FormatWriter = {
  contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  extension: "xlsx",
  attachment: true,
  write: (rows) => workbook(encodeText(rows, SHEET, SHEET_CHUNK_CHARS)),
  /**
   * On an engine that writes pages itself (DuckDB), the sheet is made from its csv page: the
   * rows arrive as lines, split on commas, rather than as one JSON text each parsed into a
   * record, and the lines carry numbers already written as JavaScript writes them. Not its tsv
   * page: DuckDB takes longer to escape each field for tsv than to quote the rare one for csv.
   */
  engineEncoding: {
    encoding: "csv",
    frame: workbookFromCsv,
  },
};

/**
 * xlsx: one sheet, "events", a header row, then a row per record: strings as inline strings
 * (never formulas), numbers as numbers, null as no cell. The sheet is SpreadsheetML written as
 * the rows arrive (on DuckDB, as the lines of its tsv page are read) and zipped by zip-stream
 * (zlib deflate, on the thread pool) on its way out; the other parts of the package are fixed. A general workbook library (exceljs) spends most of
 * a 10,000-row page building cell objects for features an export never uses, several times what
 * these strings cost; the tests read the output back with exceljs.
 */
import { PassThrough, Readable, Transform, type TransformCallback } from "node:stream";
import { constants, crc32, DeflateRaw, deflateRawSync, type ZlibOptions } from "node:zlib";
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
 * A number's text ends in a digit when it is finite: tsv writes JavaScript's text, and DuckDB's
 * page "Infinity", "-Infinity" and "NaN" for the rest, which are no spreadsheet value.
 */
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;

/**
 * One sheet row from a line of the tsv page (src/export/formats/tsv.ts), the same XML as
 * rowXml writes for its record: tsv writes null and the empty string alike as an empty field,
 * both an empty cell here, and a number as JavaScript writes it, as rowXml does. The lines
 * tsvRowBytes leaves (escapes, markup characters, controls) come here.
 */
function tsvRowXml(line: string, rowNumber: number): string {
  const fields = line.split("\t");
  // The escapes are undone only where there are some: a line without a backslash has none.
  const escaped = line.includes("\\");
  let out = `<row r="${rowNumber}">`;
  let placed = false;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    if (field === "" || (!IS_TEXT[i] && !isDigit(field.charCodeAt(field.length - 1)))) {
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

const ascii = (text: string) => Buffer.from(text, "latin1");
const ROW_OPEN = ascii('<row r="');
const ROW_OPENED = ascii('">');
const ROW_CLOSE = ascii("</row>");
const CELL = ascii("<c");
const CELL_AT = COLUMN_LETTERS.map((letters) => ascii(`<c r="${letters}`));
const QUOTE = ascii('"');
const TEXT_BYTES = ascii(TEXT);
const TEXT_PRESERVED_BYTES = ascii(TEXT_PRESERVED);
const TEXT_END_BYTES = ascii(TEXT_END);
const NUMBER_BYTES = ascii("><v>");
const NUMBER_END_BYTES = ascii("</v></c>");
const COLUMN_COUNT = COLUMN_NAMES.length;

/**
 * The bytes of a tsv line that send it to tsvRowXml: C0 controls but tab, the markup
 * characters, the backslash of an escape, and 0xEF, the first byte of U+FFFE and U+FFFF (and
 * of the rest of U+F000 to U+FFFF: rare). A line without any is copied into the sheet as it is:
 * DuckDB's text is well-formed UTF-8, and none of it needs escaping.
 */
const SLOW_PATH = new Uint8Array(256);
for (let byte = 0; byte < 0x20; byte++) if (byte !== 0x09) SLOW_PATH[byte] = 1;
for (const character of `"&'<>\\`) SLOW_PATH[character.charCodeAt(0)] = 1;
SLOW_PATH[0xef] = 1;

const put = (out: Buffer, at: number, bytes: Uint8Array): number => {
  for (let k = 0; k < bytes.length; k++) out[at + k] = bytes[k] as number;
  return at + bytes.length;
};
const putCount = (out: Buffer, at: number, count: number): number => {
  let digits = 1;
  for (let rest = count; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  for (let k = digits - 1, rest = count; k >= 0; k--, rest = Math.floor(rest / 10)) {
    out[at + k] = 0x30 + (rest % 10);
  }
  return at + digits;
};
/** Where each field of the line being written ends (its tab, or the line's end). */
const fieldEnds = new Int32Array(COLUMN_COUNT);

/**
 * tsvRowXml's row, written as bytes into `out` from `at` (which has room for the line and
 * 4 KB): the end of what it wrote, or -1 for a line that needs tsvRowXml. Building the sheet as
 * strings cost more than deflating it, and the garbage of a string per field and per tag made
 * the service's collector a sixth of the page.
 */
function tsvRowBytes(
  tsv: Buffer,
  start: number,
  end: number,
  rowNumber: number,
  out: Buffer,
  at: number,
): number {
  let fields = 0;
  for (let k = start; k < end; k++) {
    const byte = tsv[k] as number;
    if (SLOW_PATH[byte]) return -1;
    if (byte === 0x09) {
      if (fields === COLUMN_COUNT - 1) return -1;
      fieldEnds[fields++] = k;
    }
  }
  if (fields !== COLUMN_COUNT - 1) return -1;
  fieldEnds[fields] = end;
  let to = putCount(out, put(out, at, ROW_OPEN), rowNumber);
  to = put(out, to, ROW_OPENED);
  let placed = false;
  for (let i = 0, from = start; i < COLUMN_COUNT; from = (fieldEnds[i++] as number) + 1) {
    const last = (fieldEnds[i] as number) - 1;
    if (last < from || (!IS_TEXT[i] && !isDigit(tsv[last] as number))) {
      placed = false;
      continue;
    }
    if (placed) to = put(out, to, CELL);
    else to = put(out, putCount(out, put(out, to, CELL_AT[i] as Buffer), rowNumber), QUOTE);
    if (IS_TEXT[i]) {
      // Tab and line feed are escaped in tsv, so a space is the only edge to keep.
      const edges = tsv[from] === 0x20 || tsv[last] === 0x20;
      to = put(out, to, edges ? TEXT_PRESERVED_BYTES : TEXT_BYTES);
    } else to = put(out, to, NUMBER_BYTES);
    for (let k = from; k <= last; k++) out[to++] = tsv[k] as number;
    to = put(out, to, IS_TEXT[i] ? TEXT_END_BYTES : NUMBER_END_BYTES);
    placed = true;
  }
  return put(out, to, ROW_CLOSE);
}

// The sheet leaves in parts of about this size, each deflated on its own (see ChunkDeflate).
const SHEET_FROM_TSV_BYTES = 256 * 1024;

/** The sheet part from the bytes of a tsv page, its header line first, read as it is read. */
async function* sheetFromTsv(tsv: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let out = Buffer.allocUnsafe(2 * SHEET_FROM_TSV_BYTES);
  let at = out.write(SHEET.head);
  let partial: Buffer | undefined;
  let lines = 0;
  for await (const chunk of tsv) {
    const bytes = partial ? Buffer.concat([partial, chunk]) : chunk;
    let start = 0;
    for (let end = bytes.indexOf(0x0a); end !== -1; end = bytes.indexOf(0x0a, start)) {
      // The header line is the sheet's first row, already in its head.
      if (lines > 0) {
        // Room for the row: the line and the tags of 25 cells; a longer line is rare, and
        // takes the strings' way like a line with escapes.
        let written =
          out.length - at >= end - start + 4096
            ? tsvRowBytes(bytes, start, end, lines + 1, out, at)
            : -1;
        if (written < 0) {
          const xml = Buffer.from(tsvRowXml(bytes.toString("utf8", start, end), lines + 1));
          if (out.length - at < xml.length) {
            yield out.subarray(0, at);
            out = Buffer.allocUnsafe(Math.max(2 * SHEET_FROM_TSV_BYTES, xml.length));
            at = 0;
          }
          written = at + xml.copy(out, at);
        }
        at = written;
      }
      lines++;
      start = end + 1;
      if (at >= SHEET_FROM_TSV_BYTES) {
        yield out.subarray(0, at);
        out = Buffer.allocUnsafe(2 * SHEET_FROM_TSV_BYTES);
        at = 0;
      }
    }
    partial = start < bytes.length ? bytes.subarray(start) : undefined;
  }
  if (partial) throw new Error("the tsv page ends inside a line");
  yield Buffer.concat([out.subarray(0, at), ascii(SHEET_TAIL)]);
}

/** The part of a compress-commons zip entry (ZipArchiveEntry) the deflate below fills in. */
interface ZipEntry {
  getMethod(): number;
  setCrc(crc: number): void;
  setSize(size: number): void;
  setCompressedSize(size: number): void;
}
const DEFLATED = 8;

/** A raw deflate stream that counts what it reads and writes and takes its CRC-32. */
interface CountedDeflate extends Transform {
  readonly checksum: number;
  readonly rawSize: number;
  readonly compressedSize: number;
}

/** Node's raw deflate (on the thread pool), counted, the CRC-32 by Node's zlib. */
class CountingDeflate extends DeflateRaw implements CountedDeflate {
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
 * Raw deflate on this thread, a chunk at a time: each chunk is compressed on its own and
 * flushed to a byte boundary (Z_SYNC_FLUSH), so the chunks one after another are one deflate
 * stream, which an empty final block ends. For a sheet made as fast as the tsv page's is,
 * the thread pool's round trip per chunk cost more than the deflate (about 6 ms a 10,000-row
 * page at level 1, 0.2 ms a 256 KB chunk); each chunk starting afresh makes the download about
 * 2% larger.
 */
class ChunkDeflate extends Transform implements CountedDeflate {
  checksum = 0;
  rawSize = 0;
  compressedSize = 0;

  constructor(private readonly zlib: ZlibOptions) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    this.checksum = crc32(chunk, this.checksum);
    this.rawSize += chunk.length;
    this.deflate(chunk, constants.Z_SYNC_FLUSH, callback);
  }

  override _flush(callback: TransformCallback) {
    this.deflate(Buffer.alloc(0), constants.Z_FINISH, callback);
  }

  private deflate(chunk: Buffer, finishFlush: number, callback: TransformCallback) {
    let compressed: Buffer;
    try {
      compressed = deflateRawSync(chunk, { ...this.zlib, finishFlush });
    } catch (error) {
      callback(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.compressedSize += compressed.length;
    callback(null, compressed);
  }
}

/**
 * zip-stream with its deflated entries' CRC-32 taken by Node's zlib (native code) instead of
 * the crc-32 package's JavaScript, which was an eighth of the writer's time on a 10,000-row
 * page, and deflated on the thread pool or, with `deflateHere`, on this thread (ChunkDeflate).
 * It replaces compress-commons's `_smartStream` (v7: the stream each entry's bytes go through,
 * whose checksum and sizes it writes after them) for deflated entries; the zip is still the
 * library's. The tests check every entry's CRC.
 */
class SheetZip extends ZipStream {
  constructor(private readonly deflateHere: boolean) {
    // The fastest deflate: a page's sheet is most of 1 KB of XML a row, and the default
    // level takes several times as long to compress it for a download only somewhat smaller.
    super({ zlib: { level: 1 } });
  }

  _smartStream(entry: ZipEntry, callback: (error: Error | null, entry: ZipEntry) => void) {
    const library = ZipStream.prototype as unknown as {
      _smartStream(this: ZipStream, entry: ZipEntry, callback: unknown): unknown;
    };
    if (entry.getMethod() !== DEFLATED) return library._smartStream.call(this, entry, callback);
    const zlib = (this as unknown as { options: { zlib: ZlibOptions } }).options.zlib;
    const deflate: CountedDeflate = this.deflateHere
      ? new ChunkDeflate(zlib)
      : new CountingDeflate(zlib);
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
}

/**
 * The workbook: the fixed parts, then the sheet, deflated as `out` is read: on this thread
 * with `deflateHere`, else on the thread pool, which lets a sheet made from records (more work
 * a row than deflating it) be deflated while the next rows are.
 */
function workbook(sheetXml: Readable, deflateHere: boolean): Readable {
  const zip = new SheetZip(deflateHere);
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
    workbook(
      Readable.from(encodeText(rows, SHEET, SHEET_CHUNK_CHARS), { objectMode: false }),
      false,
    ),
  /**
   * On an engine that writes pages itself (DuckDB), the sheet is made from its tsv page: the
   * rows arrive as lines, split on tabs, rather than as one JSON text each parsed into a
   * record, and the lines carry numbers already written as JavaScript writes them.
   */
  engineEncoding: {
    encoding: "tsv",
    frame: (body) => workbook(Readable.from(sheetFromTsv(body), { objectMode: false }), true),
  },
};

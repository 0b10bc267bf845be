import { PassThrough } from "node:stream";
import { setImmediate as nextTurn } from "node:timers/promises";
import WorkbookWriter from "exceljs/lib/stream/xlsx/workbook-writer.js";
import { COLUMN_NAMES, EXPORT_COLUMNS, type ExportRecord } from "../../record/columns.ts";
import type { FormatWriter } from "./writer.ts";
import { stripInvalidXmlChars } from "./xml.ts";

const SHEET_NAME = "events";

// exceljs hands the sheet XML to its zip encoder without waiting for it (its internal buffer
// ignores backpressure), and the deflate step runs on the thread pool. Rows committed in a
// single turn of the event loop therefore pile up uncompressed; yielding every few hundred
// rows lets the compressor catch up and keeps that pile, and memory, small.
const ROWS_PER_TURN = 256;

type Cell = string | number | null;

function cells(row: ExportRecord): Cell[] {
  return EXPORT_COLUMNS.map((column) => {
    const value = row[column.name] ?? null;
    // exceljs escapes markup and drops C0 controls, but not lone surrogates or U+FFFE/U+FFFF,
    // which would make the sheet XML unreadable for Excel.
    return typeof value === "string" ? stripInvalidXmlChars(value) : value;
  });
}

/** Resolves once `out` wants more data, or once it is gone. */
function writable(out: PassThrough): Promise<void> {
  if (out.destroyed || !out.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      out.off("drain", done);
      out.off("close", done);
      resolve();
    };
    out.on("drain", done);
    out.on("close", done);
  });
}

async function fill(rows: AsyncIterable<ExportRecord>, out: PassThrough): Promise<void> {
  const workbook = new WorkbookWriter({
    stream: out,
    useSharedStrings: false,
    useStyles: false,
  });
  const sheet = workbook.addWorksheet(SHEET_NAME);
  sheet.addRow([...COLUMN_NAMES]).commit();
  let sinceTurn = 0;
  for await (const row of rows) {
    // The consumer went away: leaving the loop also stops the row source.
    if (out.destroyed) return;
    sheet.addRow(cells(row)).commit();
    if (out.writableNeedDrain) {
      await writable(out);
      sinceTurn = 0;
    } else if (++sinceTurn >= ROWS_PER_TURN) {
      await nextTurn();
      sinceTurn = 0;
    }
  }
  sheet.commit();
  await workbook.commit();
}

export const xlsx: FormatWriter = {
  contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  extension: "xlsx",
  attachment: true,
  write(rows) {
    // The zip encoder writes into `out` and ends it; only failures are handled here.
    const out = new PassThrough();
    fill(rows, out).catch((error: unknown) => {
      out.destroy(error instanceof Error ? error : new Error(String(error)));
    });
    return out;
  },
};

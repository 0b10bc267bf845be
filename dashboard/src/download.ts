/** Files the page makes for the person to keep: a Blob saved through a download link, and CSV. */

/** Saves the blob as a file of that name, through a link clicked once and removed. */
export const saveFile = (blob: Blob, fileName: string): void => {
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement("a");
  anchor.href = url;
  anchor.download = fileName;
  anchor.style.display = "none";
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
};

/** A text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or CR first). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A figure as the page formats it, signed: `-$44.00` (a refund), `-1,234`, `+12.5%`. A
 * spreadsheet reads it as the number it is, and it cannot call anything, so it is written as it
 * is rather than as text.
 */
const SIGNED_FIGURE = /^[-+]\$?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?$/;

/**
 * One field as RFC 4180 writes it: in double quotes, its quotes doubled, when it holds a comma,
 * a quote or a line break. A text that a spreadsheet would run as a formula is written after an
 * apostrophe (OWASP's advice against CSV injection); a signed figure is not such a text.
 */
export const csvField = (value: string): string => {
  const safe = FORMULA_START.test(value) && !SIGNED_FIGURE.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

/** Rows as RFC 4180 text: fields joined by commas, each record ended by CRLF. */
export const csvText = (rows: readonly (readonly string[])[]): string =>
  rows.map((row) => `${row.map(csvField).join(",")}\r\n`).join("");

/**
 * Saves rows as a UTF-8 CSV file; a byte order mark first (the export's CSV, which programs
 * read, has none), so that a spreadsheet reads "—" and names in any script as UTF-8.
 */
export const saveCsv = (rows: readonly (readonly string[])[], fileName: string): void =>
  saveFile(new Blob([`\uFEFF${csvText(rows)}`], { type: "text/csv;charset=utf-8" }), fileName);

export { csvFileName } from "./csv-file-name.ts";

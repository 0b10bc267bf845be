/**
 * A CSV file of cost rows, as `attribution costs import` (src/cli/commands/costs.ts) and the
 * dashboard's Cost page (dashboard/src/cost-csv.ts) read it: a header of the rows' field names
 * (`costRowSchema`'s), then a row a line. Each parses the text with csv-parse (the command its
 * Node build, the page its browser build) by COST_CSV_OPTIONS and hands the records here, so
 * that a file reads the same in both: the same header refused in the same words, every cell
 * trimmed (inside its quotes too), a spreadsheet's lines of empty cells no rows, and each cell
 * as POST /v1/costs takes it (numbers by `costCellValue`, empty cells left out).
 */
import { costCellValue, costRowSchema } from "./cost-requests.ts";

/** Every column a cost row may have, in the body's order (which the Cost page shows). */
export const COST_COLUMNS = Object.keys(
  costRowSchema.shape,
) as (keyof typeof costRowSchema.shape)[];
export type CostColumn = (typeof COST_COLUMNS)[number];

/** The columns every row must fill: those the row's schema requires. */
export const REQUIRED_COLUMNS: readonly CostColumn[] = COST_COLUMNS.filter(
  (name) => !costRowSchema.shape[name].safeParse(undefined).success,
);

/**
 * csv-parse's options for a cost file: records as arrays (the header is checked here, not taken
 * as the keys: a column named twice would leave one cell of two), with the line each ends on.
 */
export const COST_CSV_OPTIONS = {
  bom: true,
  trim: true,
  skip_empty_lines: true,
  info: true,
} as const;

/** A record as csv-parse gives it with COST_CSV_OPTIONS. */
export interface CostCsvRecord {
  readonly record: readonly string[];
  readonly info: { readonly lines: number };
}

/** A row of the file. */
export interface CostCsvRow {
  /** The line it starts on (the header is line 1). */
  readonly line: number;
  /** The cells as the file has them, trimmed. */
  readonly cells: Readonly<Partial<Record<CostColumn, string>>>;
  /** What POST /v1/costs is sent of it. */
  readonly row: Record<string, string | number>;
}

export type CostCsvReading =
  | {
      readonly ok: true;
      /** The file's columns, in COST_COLUMNS's order. */
      readonly columns: CostColumn[];
      readonly rows: CostCsvRow[];
    }
  | { readonly ok: false; readonly problem: string };

const quoted = (names: readonly string[]) => names.map((name) => `“${name}”`).join(", ");

/** csv-parse's reason a text is no CSV, in words for its two usual ones. */
export const costCsvFault = (caught: unknown): string => {
  const message = caught instanceof Error ? caught.message : String(caught);
  const length = /^Invalid Record Length: expect (\d+), got (\d+) on line (\d+)/.exec(message);
  if (length)
    return `Line ${length[3]} has ${length[2]} cells, and the first line names ${length[1]} columns.`;
  const quote = /^Quote Not Closed.* at line (\d+)/.exec(message);
  if (quote) return `A quoted cell is not closed by the end of the file (line ${quote[1]}).`;
  return message;
};

/**
 * Why the first line is no header of cost rows, or null. A column it leaves unnamed (a
 * spreadsheet's trailing comma) is none, so long as no row fills it.
 */
const headerProblem = (header: readonly string[]): string | null => {
  const known = new Set<string>(COST_COLUMNS);
  const unknown = header.filter((name) => name !== "" && !known.has(name));
  if (unknown.length > 0) {
    return `The first line names ${unknown.length === 1 ? "a column" : "columns"} a cost row does not have: ${quoted(unknown)}. The columns are ${quoted(COST_COLUMNS)}.`;
  }
  const twice = header.filter((name, index) => name !== "" && header.indexOf(name) !== index);
  if (twice.length > 0) return `The first line names ${quoted([...new Set(twice)])} twice.`;
  const missing = REQUIRED_COLUMNS.filter((name) => !header.includes(name));
  if (missing.length > 0) {
    return `The first line lacks ${missing.length === 1 ? "the column" : "the columns"} ${quoted(missing)}: every row needs ${quoted(REQUIRED_COLUMNS)}.`;
  }
  return null;
};

/** The file's rows, or why its header is none, in words. */
export const costCsvRows = (records: readonly CostCsvRecord[]): CostCsvReading => {
  const [head, ...body] = records;
  if (!head) return { ok: false, problem: "This file is empty: it has no header and no rows." };
  const header = head.record.map((name) => name.trim());
  const problem = headerProblem(header);
  if (problem) return { ok: false, problem };
  const rows: CostCsvRow[] = [];
  for (const { record, info } of body) {
    // csv-parse trims around a quoted cell, not inside its quotes.
    const trimmed = record.map((cell) => cell.trim());
    // A spreadsheet's line of empty cells (",,,,") is no row.
    if (trimmed.every((cell) => cell === "")) continue;
    // The line the row starts on: the parser counts the line it ends on.
    const breaks = record.reduce((sum, cell) => sum + (cell.match(/\n/g)?.length ?? 0), 0);
    const line = info.lines - breaks;
    const cells: Partial<Record<CostColumn, string>> = {};
    const row: Record<string, string | number> = {};
    for (const [index, name] of header.entries()) {
      const cell = trimmed[index] ?? "";
      if (name === "") {
        if (cell === "") continue;
        return {
          ok: false,
          problem: `Line ${line} has “${cell}” in column ${index + 1}, which the first line does not name.`,
        };
      }
      cells[name as CostColumn] = cell;
      if (cell !== "") row[name] = costCellValue(name, cell);
    }
    rows.push({ line, cells, row });
  }
  return { ok: true, columns: COST_COLUMNS.filter((name) => header.includes(name)), rows };
};

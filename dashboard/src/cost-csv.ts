/**
 * A CSV file of cost rows as the Cost page uploads it: the columns of `attribution costs import`
 * (src/cli/commands/costs.ts), read by the same parser (csv-parse, its browser build) with the
 * same options, each row as POST /v1/costs takes it (numbers as numbers by the CLI's own rule,
 * empty cells left out);
 * the requests' pages; and the service's refusal (`body.rows[3].day: …`) as each row's problem.
 * The rows' rules are the service's (src/costs/cost-requests.ts), and the page checks every row
 * by them before it sends the first request, as the command line does: the service stores each
 * request it takes, so a row it refused in a later request would leave the earlier ones stored.
 */
import { parse } from "csv-parse/browser/esm/sync";
import {
  costCellValue,
  costDayProblem,
  costMatchKeyOf,
  costRowSchema,
  costPages as pagesOf,
} from "../../src/costs/cost-requests.ts";
import { plainWords } from "../../src/validation/issues.ts";
import type { CostRowInput } from "./api.ts";
import { formatCount } from "./format.ts";
import { problemsOf } from "./messages.ts";

/** Every column a cost row may have, in the order the page shows them. */
export const COST_COLUMNS = [
  "day",
  "media_source",
  "campaign_id",
  "campaign_name",
  "adset_id",
  "adset_name",
  "ad_id",
  "ad_name",
  "country",
  "amount",
  "currency",
  "impressions",
  "clicks",
] as const;
export type CostColumn = (typeof COST_COLUMNS)[number];

/** The columns every row must fill. */
export const REQUIRED_COLUMNS: readonly CostColumn[] = [
  "day",
  "media_source",
  "campaign_id",
  "amount",
  "currency",
];

/** The largest file the page reads: bigger ones are for the CLI. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface CostFileRow {
  /** 1 for the first row under the header. */
  readonly number: number;
  /** Its line in the file (the header is line 1). */
  readonly line: number;
  /** The cells as the file has them, trimmed. */
  readonly cells: Readonly<Partial<Record<CostColumn, string>>>;
  /** What POST /v1/costs is sent. */
  readonly row: CostRowInput;
}

export interface CostFile {
  /** The file's columns, in the page's order. */
  readonly columns: CostColumn[];
  readonly rows: CostFileRow[];
}

export type CostFileReading =
  | { readonly ok: true; readonly file: CostFile }
  | { readonly ok: false; readonly problem: string };

const quoted = (names: readonly string[]) => names.map((name) => `“${name}”`).join(", ");

/** The parser's reason, in words for its two usual ones. */
const csvFault = (caught: unknown): string => {
  const message = caught instanceof Error ? caught.message : String(caught);
  const length = /^Invalid Record Length: expect (\d+), got (\d+) on line (\d+)/.exec(message);
  if (length)
    return `Line ${length[3]} has ${length[2]} cells, and the first line names ${length[1]} columns.`;
  const quote = /^Quote Not Closed.* at line (\d+)/.exec(message);
  if (quote) return `A quoted cell is not closed by the end of the file (line ${quote[1]}).`;
  return message;
};

/** The text a cell holds, as the service keys it (trimmed; an empty one is none). */
const keyText = (value: string | number | undefined): string | null =>
  value === undefined || String(value).trim() === "" ? null : String(value).trim();

/**
 * Each row with the day and keys of a row before it, names whatever their case and Unicode form
 * as the service takes them (src/costs/cost-requests.ts): its line, and the earlier one's.
 */
const sameKeyRows = (rows: readonly CostFileRow[]): { line: number; of: number }[] => {
  const firstLine = new Map<string, number>();
  const twice: { line: number; of: number }[] = [];
  for (const { row, line } of rows) {
    const key = costMatchKeyOf({
      day: keyText(row.day) ?? "",
      mediaSource: keyText(row.media_source) ?? "",
      campaignId: keyText(row.campaign_id) ?? "",
      adsetId: keyText(row.adset_id),
      adsetName: keyText(row.adset_name),
      adId: keyText(row.ad_id),
      adName: keyText(row.ad_name),
      country: keyText(row.country),
    });
    const of = firstLine.get(key);
    if (of === undefined) firstLine.set(key, line);
    else twice.push({ line, of });
  }
  return twice;
};

/** The file's rows, or why the page cannot read them, in words. */
export const readCostCsv = (text: string): CostFileReading => {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      info: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (caught) {
    return { ok: false, problem: `This file is not CSV the page can read. ${csvFault(caught)}` };
  }
  const [head, ...body] = records;
  if (!head) return { ok: false, problem: "This file is empty: it has no header and no rows." };
  const header = head.record;
  const known = new Set<string>(COST_COLUMNS);
  const unknown = header.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    return {
      ok: false,
      problem: `The first line names ${unknown.length === 1 ? "a column" : "columns"} a cost row does not have: ${quoted(unknown)}. The columns are ${quoted(COST_COLUMNS)}.`,
    };
  }
  const twice = header.filter((name, index) => header.indexOf(name) !== index);
  if (twice.length > 0) {
    return { ok: false, problem: `The first line names ${quoted([...new Set(twice)])} twice.` };
  }
  const missing = REQUIRED_COLUMNS.filter((name) => !header.includes(name));
  if (missing.length > 0) {
    return {
      ok: false,
      problem: `The first line lacks ${missing.length === 1 ? "the column" : "the columns"} ${quoted(missing)}: every row needs ${quoted(REQUIRED_COLUMNS)}.`,
    };
  }
  const rows: CostFileRow[] = [];
  for (const { record, info } of body) {
    // A spreadsheet's line of empty cells (",,,,") is no row.
    if (record.every((cell) => cell === "")) continue;
    const cells: Partial<Record<CostColumn, string>> = {};
    const row: CostRowInput = {};
    header.forEach((name, index) => {
      const cell = record[index] ?? "";
      cells[name as CostColumn] = cell;
      if (cell !== "") row[name] = costCellValue(name, cell);
    });
    // The line the row starts on: its parser counts the line it ends on.
    const breaks = record.reduce((sum, cell) => sum + (cell.match(/\n/g)?.length ?? 0), 0);
    rows.push({ number: rows.length + 1, line: info.lines - breaks, cells, row });
  }
  if (rows.length === 0) return { ok: false, problem: "This file has a header and no rows." };
  // The service refuses two rows of one day and keys in one request; in two of the file's
  // requests, the later would replace the earlier. The command line refuses such a file whole,
  // and so does the page.
  const repeated = sameKeyRows(rows);
  if (repeated.length > 0) {
    const [first = { line: 0, of: 0 }] = repeated;
    const more =
      repeated.length > 1 ? ` ${formatCount(repeated.length - 1)} more rows likewise.` : "";
    return {
      ok: false,
      problem: `Line ${formatCount(first.line)} has the day, media source, campaign, ad set, ad and country of line ${formatCount(first.of)}: one row for them, in one currency.${more}`,
    };
  }
  return {
    ok: true,
    file: { columns: COST_COLUMNS.filter((name) => header.includes(name)), rows },
  };
};

/** A required cell left empty, as the page says it rather than in the validation's words. */
const EMPTY_CELL = "is empty: every row needs one";

/** The problems a refusal at the file input lists; more are counted. */
const PROBLEMS_SAID = 5;

/**
 * Why the file's rows cannot all be sent, or null: each row checked by the service's schema and
 * its day by the service's rule at `now`, before any request. A file with a row at fault is
 * refused whole, as the command line refuses it: sent request by request, the rows before it
 * would be stored and the rest not.
 */
export const costRowsProblem = (rows: readonly CostFileRow[], now: Date): string | null => {
  const problems: string[] = [];
  for (const { row, line } of rows) {
    const where = `line ${formatCount(line)}`;
    const parsed = costRowSchema.safeParse(row, { error: plainWords });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path.map(String).join(".");
        const message = field !== "" && !(field in row) ? EMPTY_CELL : issue.message;
        problems.push(`${where}${field === "" ? "" : `, ${field}`}: ${message}`);
      }
      continue;
    }
    const dayProblem = costDayProblem(parsed.data.day, now);
    if (dayProblem) problems.push(`${where}, day: ${dayProblem}`);
  }
  if (problems.length === 0) return null;
  const said = problems.slice(0, PROBLEMS_SAID).join("; ");
  const more =
    problems.length > PROBLEMS_SAID
      ? `; and ${formatCount(problems.length - PROBLEMS_SAID)} more`
      : "";
  const text = `${said}${more}.`;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)} Nothing was sent: correct the file and choose it again.`;
};

/**
 * The requests' pages, in the file's order, as the command line sends them: each of rows and
 * bytes the route takes (src/costs/cost-requests.ts).
 */
export const costPages = (rows: readonly CostFileRow[]): CostFileRow[][] =>
  pagesOf(rows, (row) => row.row);

/** A problem the service named: of a row (its number in the file) and field, or of the file. */
export interface CostProblem {
  /** The row's number in the file (1 for the first under the header); null for the file's. */
  readonly row: number | null;
  readonly column: string | null;
  readonly message: string;
}

const ROW_PROBLEM = /^body\.rows\[(\d+)\](?:\.([A-Za-z_]+))?:\s*(.*)$/s;

/**
 * The 422's detail of one page as problems of the file's rows: `body.rows[3].day: must …` is
 * the page's fourth row. A field the row left empty is said to be so, rather than in the
 * validation's words for a value that is not there. More problems than the detail names are
 * counted in `more`.
 */
export const costProblems = (
  detail: string,
  page: readonly CostFileRow[],
): { problems: CostProblem[]; more: number } => {
  const problems: CostProblem[] = [];
  let more = 0;
  for (const part of problemsOf(detail)) {
    const counted = /^and (\d+) more$/.exec(part);
    if (counted) {
      more += Number(counted[1]);
      continue;
    }
    const match = ROW_PROBLEM.exec(part);
    const at = match ? page[Number(match[1])] : undefined;
    if (!match || !at) {
      problems.push({ row: null, column: null, message: part.replace(/^body(\.rows)?:\s*/, "") });
      continue;
    }
    const column = match[2] ?? null;
    const empty = column !== null && !(column in at.row);
    // Another row the problem names (two rows of one day and keys) by its number in the file.
    const message = (match[3] ?? "").replace(/body\.rows\[(\d+)\]/g, (named, index: string) => {
      const other = page[Number(index)];
      return other ? `row ${formatCount(other.number)}` : named;
    });
    problems.push({
      row: at.number,
      column,
      message: empty ? EMPTY_CELL : message,
    });
  }
  return { problems, more };
};

/** A problem as the page says it beside its row: "day: must not be after tomorrow (…)". */
export const problemText = (problem: CostProblem): string =>
  problem.column ? `${problem.column}: ${problem.message}` : problem.message;

/** "Row 4 (line 5), day: must …", for the list under the form. */
export const problemLine = (problem: CostProblem, rows: readonly CostFileRow[]): string => {
  if (problem.row === null) return problem.message;
  const line = rows[problem.row - 1]?.line;
  const where = `Row ${formatCount(problem.row)}${line ? ` (line ${formatCount(line)})` : ""}`;
  return `${where}${problem.column ? `, ${problem.column}` : ""}: ${problem.message}`;
};

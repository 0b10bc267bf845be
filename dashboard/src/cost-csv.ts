/**
 * A CSV file of cost rows as the Cost page uploads it: read as `attribution costs import` reads
 * it (src/costs/cost-csv.ts, csv-parse's browser build here), each row as POST /v1/costs takes it;
 * the requests' pages; and the service's refusal (`body.rows[3].day: …`) as each row's problem.
 * The rows' rules are the service's (src/costs/cost-requests.ts), and the page checks every row
 * by them before it sends the first request, as the command line does: the service stores each
 * request it takes, so a row it refused in a later request would leave the earlier ones stored.
 */
import { parse } from "csv-parse/browser/esm/sync";
import {
  COST_COLUMNS,
  COST_CSV_OPTIONS,
  type CostColumn,
  type CostCsvRecord,
  type CostCsvRow,
  costCsvFault,
  costCsvRows,
  REQUIRED_COLUMNS,
} from "../../src/costs/cost-csv.ts";
import {
  costDayProblem,
  costMatchKeyOf,
  costRowSchema,
  costPages as pagesOf,
} from "../../src/costs/cost-requests.ts";
import { plainWords } from "../../src/validation/issues.ts";
import type { CostRowInput } from "./api.ts";
import { formatCount } from "./format.ts";
import { problemsOf } from "./messages.ts";

export { COST_COLUMNS, type CostColumn, REQUIRED_COLUMNS };

/** The largest file the page reads: bigger ones are for the CLI. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface CostFileRow extends CostCsvRow {
  /** 1 for the first row under the header. */
  readonly number: number;
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
  let records: CostCsvRecord[];
  try {
    records = parse(text, COST_CSV_OPTIONS) as unknown as CostCsvRecord[];
  } catch (caught) {
    return {
      ok: false,
      problem: `This file is not CSV the page can read. ${costCsvFault(caught)}`,
    };
  }
  const reading = costCsvRows(records);
  if (!reading.ok) return reading;
  const rows = reading.rows.map((row, index) => ({ ...row, number: index + 1 }));
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
  return { ok: true, file: { columns: reading.columns, rows } };
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

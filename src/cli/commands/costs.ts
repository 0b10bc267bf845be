/**
 * `attribution costs import --file costs.csv`: what campaigns cost, from a CSV of the cost
 * API's rows (a header of its field names: day, media_source, campaign_id, amount, currency,
 * and any of campaign_name, adset_id, adset_name, ad_id, ad_name, country, impressions,
 * clicks), posted to `POST /v1/costs` with a server key in pages the route takes (1,000 rows and
 * its body's bytes at most), so the service checks and converts them as it does every row. A
 * file with a row at fault posts nothing: every row is checked first by the service's rules, its
 * day too (`--dry-run` stops there). Should the service still refuse a page (its clock past
 * midnight before this one's, say), the command says which rows the pages before stored.
 */
import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import {
  COST_CSV_OPTIONS,
  type CostCsvRecord,
  costCsvFault,
  costCsvRows,
} from "../../costs/cost-csv.ts";
import { costDayProblem, costPages } from "../../costs/cost-requests.ts";
import {
  type CostRequestRow,
  costRowSchema,
  keysOfRequestRow,
  sameKeyProblems,
} from "../../costs/cost-rows.ts";
import { ValidationError } from "../../domain/errors.ts";
import { joinProblems } from "../../validation/issues.ts";
import { answerOf, refusalOf } from "../service-answer.ts";
import { serviceUrl } from "../service-url.ts";
import { unreachable } from "../unreachable.ts";

/**
 * A CSV's rows as the API's, each with the line of the file it starts on, read as the Cost page
 * reads them (src/costs/cost-csv.ts): a header that names a column the rows do not have, one
 * twice, or lacks a required one is refused, naming `source`, as is text that is no CSV.
 */
export const costRowsOfCsv = (
  text: string,
  source = "the file",
): { rows: Record<string, string | number>[]; lines: number[] } => {
  let records: CostCsvRecord[];
  try {
    records = parse(text, COST_CSV_OPTIONS) as unknown as CostCsvRecord[];
  } catch (caught) {
    throw new ValidationError(`${source} is not CSV: ${costCsvFault(caught)}`);
  }
  const reading = costCsvRows(records);
  if (!reading.ok) throw new ValidationError(`${source}: ${reading.problem}`);
  return { rows: reading.rows.map(({ row }) => row), lines: reading.rows.map(({ line }) => line) };
};

/** What an import that would send its rows says without a key. */
export const MISSING_KEY =
  "required option '--key <key>' not specified: the server key the rows are sent with (or ATTRIBUTION_API_KEY); --dry-run checks the file without one";

export const importCostsCommand = async (options: {
  file: string;
  /** Where the rows go, and the server key they go with: not needed for a dry run. */
  url?: string;
  key?: string;
  dryRun?: boolean;
  /** The clock the days are checked by. */
  now?: () => Date;
}) => {
  // A file not there (or a folder) named as the flag's, as the other commands' files are.
  const text = await readFile(options.file, "utf8").catch((error: unknown) => {
    throw new ValidationError(`--file ${options.file}: ${(error as Error).message}`);
  });
  const { rows, lines } = costRowsOfCsv(text, options.file);
  const lineNumber = (row: number) => lines[row] ?? row + 2;
  const lineOf = (row: number) => `line ${lineNumber(row)}`;
  if (rows.length === 0) throw new ValidationError(`${options.file} holds no rows`);
  const now = (options.now ?? (() => new Date()))();
  // Every row checked by the service's rules before any is sent: its shape, and its day, which
  // the service would otherwise refuse only once the pages before it were stored.
  const problems: string[] = [];
  const checked: CostRequestRow[] = [];
  rows.forEach((row, index) => {
    const parsed = costRowSchema.safeParse(row);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path.join(".");
        problems.push(`${lineOf(index)}${field === "" ? "" : `, ${field}`}: ${issue.message}`);
      }
      return;
    }
    const dayProblem = costDayProblem(parsed.data.day, now);
    if (dayProblem) problems.push(`${lineOf(index)}, day: ${dayProblem}`);
    checked.push(parsed.data);
  });
  if (problems.length > 0) throw new ValidationError(`${options.file}: ${joinProblems(problems)}`);
  // The service refuses a page with two rows of one day and keys; two in different pages would
  // replace each other, the later one standing. Either is for the file's sender to settle.
  const twice = sameKeyProblems(checked.map(keysOfRequestRow), lineOf);
  if (twice.length > 0) throw new ValidationError(`${options.file}: ${joinProblems(twice)}`);
  if (options.dryRun) {
    console.log(`${rows.length} rows of ${options.file} are well formed; nothing sent.`);
    return;
  }
  const { url, key } = options;
  if (url === undefined || key === undefined) throw new ValidationError(MISSING_KEY);
  // Pages the route takes: at most 1,000 rows, and a body within its bytes (long names in a
  // script of several bytes a character make 1,000 rows more than that).
  const pages = costPages(
    rows.map((row, index) => ({ row, index })),
    ({ row }) => row,
  );
  let accepted = 0;
  let replaced = 0;
  /** The file's rows stored so far: those of the pages before. */
  let stored = 0;
  const warnings: string[] = [];
  const linesOf = (from: number, to: number) =>
    from === to ? `line ${lineNumber(from)}` : `lines ${lineNumber(from)} to ${lineNumber(to)}`;
  // What a stop after some pages leaves: those rows are stored, and the file sent again
  // replaces them rather than adding to them.
  const storedSoFar = () =>
    `The rows of ${linesOf(0, stored - 1)} were stored (${replaced} replaced an earlier one)`;
  const again = (when: string) =>
    `Import the whole file again ${when}: a row stored again replaces itself.`;
  const route = serviceUrl(url, "/v1/costs").href;
  for (const page of pages) {
    const from = page[0]?.index ?? stored;
    const to = page.at(-1)?.index ?? stored;
    const response = await fetch(route, {
      method: "POST",
      headers: { authorization: key, "content-type": "application/json" },
      body: JSON.stringify({ rows: page.map(({ row }) => row) }),
    }).catch((error: unknown) => {
      const cause = unreachable(url, error);
      if (stored === 0) throw cause;
      throw new Error(
        `${cause.message} ${storedSoFar()}; nothing after them was sent. ${again("once it answers")}`,
        { cause },
      );
    });
    const body = await answerOf(response);
    if (response.status !== 200) {
      // The service names a row by its place in the page (body.rows[3].day): the file's line
      // here (line 1005, day), as the checks above name it.
      const detail = refusalOf(response, body).replace(
        /body\.rows\[(\d+)\](\.)?/g,
        (named, index: string, field: string | undefined) => {
          const row = page[Number(index)];
          return row ? `${lineOf(row.index)}${field ? ", " : ""}` : named;
        },
      );
      const refused = `the service refused the rows of ${linesOf(from, to)} (${response.status}): ${detail}`;
      throw new Error(
        stored === 0
          ? `Nothing was stored: ${refused}`
          : `${storedSoFar()}; ${refused}. Nothing after them was sent. ${again("once it is fixed")}`,
      );
    }
    stored += page.length;
    accepted += Number(body.accepted ?? 0);
    replaced += Number(body.replaced ?? 0);
    if (Array.isArray(body.warnings)) warnings.push(...body.warnings.map(String));
  }
  console.log(
    `Imported ${accepted} cost ${accepted === 1 ? "row" : "rows"} (${replaced} replaced ${replaced === 1 ? "a row" : "rows"} of the same day and keys).`,
  );
  // A later page may say again what an earlier one said.
  for (const warning of new Set(warnings)) console.error(`Warning: ${warning}`);
};

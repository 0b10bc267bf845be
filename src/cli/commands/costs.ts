/**
 * `attribution costs import --file costs.csv`: what campaigns cost, from a CSV of the cost
 * API's rows (a header of its field names: day, media_source, campaign_id, amount, currency,
 * and any of campaign_name, adset_id, adset_name, ad_id, ad_name, country, impressions,
 * clicks), posted to `POST /v1/costs` a thousand rows at a time with a server key, so the
 * service checks and converts them as it does every row. A file with a row at fault posts
 * nothing: every page is checked first (`--dry-run` stops there).
 */
import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import {
  COST_LIMITS,
  type CostRequestRow,
  costRequestSchema,
  keysOfRequestRow,
  sameKeyProblems,
} from "../../costs/cost-rows.ts";
import { ValidationError } from "../../domain/errors.ts";
import { joinProblems } from "../../validation/issues.ts";
import { unreachable } from "../unreachable.ts";

const NUMBERS = new Set(["amount", "impressions", "clicks"]);

/**
 * A CSV's rows as the API's, each with the line of the file it ends on: numbers as numbers,
 * empty cells left out. A number column's cell that is no number stays text, so the API's rules
 * name it rather than it going as null. A spreadsheet's byte order mark and its lines of empty
 * cells (`,,,,`) are no part of the rows, as the dashboard's Cost page reads them.
 */
export const costRowsOfCsv = (
  text: string,
): { rows: Record<string, unknown>[]; lines: number[] } => {
  const records = (
    parse(text, { bom: true, columns: true, info: true, skip_empty_lines: true, trim: true }) as {
      record: Record<string, string>;
      info: { lines: number };
    }[]
  ).filter(({ record }) => Object.values(record).some((value) => value !== ""));
  return {
    rows: records.map(({ record }) =>
      Object.fromEntries(
        Object.entries(record)
          .filter(([, value]) => value !== "")
          .map(([name, value]) => [
            name,
            NUMBERS.has(name) && Number.isFinite(Number(value)) ? Number(value) : value,
          ]),
      ),
    ),
    lines: records.map(({ info }) => info.lines),
  };
};

export const importCostsCommand = async (options: {
  file: string;
  url: string;
  key: string;
  dryRun?: boolean;
}) => {
  const { rows, lines } = costRowsOfCsv(await readFile(options.file, "utf8"));
  const lineOf = (row: number) => `line ${lines[row] ?? row + 2}`;
  if (rows.length === 0) throw new ValidationError(`${options.file} holds no rows`);
  const pages: Record<string, unknown>[][] = [];
  for (let start = 0; start < rows.length; start += COST_LIMITS.maxRows) {
    pages.push(rows.slice(start, start + COST_LIMITS.maxRows));
  }
  // Every page's shape checked before any is sent: a file at fault changes nothing. The days
  // and the rates are the service's to judge.
  const checked: CostRequestRow[] = [];
  pages.forEach((page, index) => {
    const parsed = costRequestSchema.safeParse({ rows: page });
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => {
        const [, row, ...field] = issue.path;
        const where =
          typeof row === "number"
            ? `${lineOf(index * COST_LIMITS.maxRows + row)}${field.length > 0 ? `, ${field.join(".")}` : ""}`
            : options.file;
        return `${where}: ${issue.message}`;
      });
      throw new ValidationError(`${options.file}: ${joinProblems(problems)}`);
    }
    checked.push(...parsed.data.rows);
  });
  // The service refuses a page with two rows of one day and keys; two in different pages would
  // replace each other, the later one standing. Either is for the file's sender to settle.
  const twice = sameKeyProblems(checked.map(keysOfRequestRow), lineOf);
  if (twice.length > 0) throw new ValidationError(`${options.file}: ${joinProblems(twice)}`);
  if (options.dryRun) {
    console.log(`${rows.length} rows of ${options.file} are well formed; nothing sent.`);
    return;
  }
  let accepted = 0;
  let replaced = 0;
  const warnings: string[] = [];
  for (const page of pages) {
    const response = await fetch(`${options.url}/v1/costs`, {
      method: "POST",
      headers: { authorization: options.key, "content-type": "application/json" },
      body: JSON.stringify({ rows: page }),
    }).catch((error: unknown) => {
      throw unreachable(options.url, error);
    });
    const body = (await response.json()) as {
      accepted?: number;
      replaced?: number;
      warnings?: string[];
      detail?: string;
    };
    if (response.status !== 200) {
      throw new Error(
        `The service refused rows ${accepted + 1} to ${accepted + page.length} (${response.status}): ${body.detail ?? ""}`,
      );
    }
    accepted += body.accepted ?? 0;
    replaced += body.replaced ?? 0;
    warnings.push(...(body.warnings ?? []));
  }
  console.log(
    `Imported ${accepted} cost rows (${replaced} replaced rows of the same day and keys).`,
  );
  // A later page may say again what an earlier one said.
  for (const warning of new Set(warnings)) console.error(`Warning: ${warning}`);
};

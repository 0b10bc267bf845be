/**
 * The rules of `POST /v1/costs` a client applies before it sends anything, one definition for
 * the service (./cost-rows.ts) and its clients (the CLI's `costs import`, the dashboard's Cost
 * page): the request's limits and the pages a file is sent in, a row's shape, the days a row
 * may be of, and when two rows are one. A file is sent page by page, and the service stores each page it takes:
 * a rule only the service applied would refuse a later page after the earlier ones were stored.
 * Nothing here needs Node, so that the dashboard's bundle takes it as it is.
 */
import * as z from "zod";
import { DAY_MS } from "../domain/time.ts";
import { INGEST_LIMITS } from "../ingest/limits.ts";
import type { CostRow } from "../ports/costs.ts";
import { dayOf } from "../reports/days.ts";
import { idKey, nameKey } from "../reports/name-keys.ts";
import { requiredOr } from "../validation/issues.ts";
import { unicodeText, withoutControlCharacters } from "../validation/text.ts";
import { currencyCode } from "./touch-cost.ts";

export const COST_LIMITS = { maxRows: 1_000, maxDaysBack: 90, maxText: 200 } as const;

/**
 * A name as a network gives it, without the spaces around it: the CSV uploads trim their cells,
 * and a name sent with a space more than the touches' would be another campaign's to the
 * reports, and another row's key. A control character is in no such name; a NUL would end the
 * reports' filters on it and the lake's text, so it is refused here, before anything is stored.
 */
const trimmedText = (description: string, rules: (text: z.ZodString) => z.ZodString) =>
  unicodeText(
    withoutControlCharacters(
      rules(z.string({ error: requiredOr("must be a string") }).trim()).max(COST_LIMITS.maxText, {
        error: `must be at most ${COST_LIMITS.maxText} characters`,
      }),
    ),
  ).meta({ description });

const text = (description: string) =>
  trimmedText(description, (name) => name.min(1, { error: "must not be empty" }));

/** An optional name: one of nothing but spaces is none, as an empty cell of a CSV upload is. */
const optionalText = (description: string) => trimmedText(description, (name) => name).nullish();

const count = (description: string) =>
  z
    .int({ error: "must be a whole number" })
    .min(0, { error: "must be at least 0" })
    // The lake's column is a 32-bit integer.
    .max(2_147_483_647, { error: "must be at most 2147483647" })
    .nullish()
    .meta({ description });

/**
 * A row of the body (./cost-rows.ts's costRequestSchema): the schema the service checks each row
 * by, and the CLI and the Cost page check a file's rows by before they send any.
 */
export const costRowSchema = z
  .strictObject({
    day: z.iso
      .date({ error: requiredOr("must be a UTC day, YYYY-MM-DD") })
      .meta({ example: "2026-11-28" }),
    media_source: text("The network, as links and touches name it.").meta({
      example: "facebook_ads",
    }),
    campaign_id: text("The campaign's id.").meta({ example: "123" }),
    campaign_name: optionalText("The campaign's name."),
    adset_id: optionalText("The ad set's id: a row of one ad set."),
    adset_name: optionalText("The ad set's name."),
    ad_id: optionalText("The ad's id: a row of one ad."),
    ad_name: optionalText("The ad's name."),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, { error: "must be an ISO 3166-1 alpha-2 code (DE)" })
      .nullish()
      .meta({ description: "A row of one country; none for every country together." }),
    amount: z
      .number({ error: requiredOr("must be a number") })
      .min(0, { error: "must be at least 0" })
      .max(1e12, { error: "must be at most 1000000000000" })
      .meta({ example: 1250.5 }),
    currency: currencyCode().meta({ example: "EUR" }),
    impressions: count("Impressions the network reports for the row."),
    clicks: count("Clicks the network reports for the row."),
  })
  .meta({ id: "CostRow" });

/** The columns of a cost row that hold numbers. */
export const COST_NUMBER_COLUMNS: ReadonlySet<string> = new Set([
  "amount",
  "impressions",
  "clicks",
]);

/**
 * A number as a spreadsheet writes one: decimal digits, a sign and a decimal point at most.
 * JavaScript's Number() also reads `0x10`, `1e2`, `12.` or `Infinity`, which no cost file means.
 */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/;

/**
 * A CSV file's cell (trimmed, not empty) as a row of the body takes it, one rule for the CLI's
 * `costs import` and the dashboard's Cost page, so that a file reads the same in both: in a number
 * column, a plain decimal number as a number; anything else as its text, which the row's schema
 * then refuses by name rather than the upload sending another number.
 */
export const costCellValue = (column: string, text: string): string | number =>
  COST_NUMBER_COLUMNS.has(column) && DECIMAL.test(text) ? Number(text) : text;

/**
 * The largest body the route reads (src/http/json-body.ts refuses a larger one, a 413): a page
 * of 1,000 rows of long names in a script of three bytes a character is larger.
 */
export const COST_BODY_BYTES = INGEST_LIMITS.maxBodyBytes;

const utf8 = new TextEncoder();

/** `{"rows":[` and `]}` around the rows, which commas part. */
const BODY_FRAME_BYTES = utf8.encode(JSON.stringify({ rows: [] })).length;

/**
 * The requests' pages, in the rows' order: each of at most COST_LIMITS.maxRows rows whose body
 * (`{"rows":[…]}`, each row as `bodyRowOf` gives it) is at most COST_BODY_BYTES in UTF-8. A row
 * too large for any body goes on a page of its own, which the service refuses.
 */
export const costPages = <T>(rows: readonly T[], bodyRowOf: (row: T) => unknown): T[][] => {
  const pages: T[][] = [];
  let page: T[] = [];
  let bytes = BODY_FRAME_BYTES;
  for (const row of rows) {
    const size = utf8.encode(JSON.stringify(bodyRowOf(row))).length;
    // A row after the first adds its comma.
    if (
      page.length > 0 &&
      (page.length >= COST_LIMITS.maxRows || bytes + 1 + size > COST_BODY_BYTES)
    ) {
      pages.push(page);
      page = [];
      bytes = BODY_FRAME_BYTES;
    }
    bytes += (page.length > 0 ? 1 : 0) + size;
    page.push(row);
  }
  if (page.length > 0) pages.push(page);
  return pages;
};

/**
 * Why a row's day is not taken, or undefined: days up to COST_LIMITS.maxDaysBack back are
 * (AppsFlyer lets cost be corrected that long), and up to tomorrow, UTC: a row's day is a day of
 * the app's time zone (the reports match it to theirs), whose today may be ahead of UTC's, as
 * the reports' windows allow.
 */
export const costDayProblem = (day: string, now: Date): string | undefined => {
  const latest = dayOf(new Date(now.getTime() + DAY_MS));
  const earliest = dayOf(new Date(now.getTime() - COST_LIMITS.maxDaysBack * DAY_MS));
  if (day > latest) return `must not be after tomorrow (${latest}, UTC)`;
  if (day < earliest) return `must be within ${COST_LIMITS.maxDaysBack} days (from ${earliest})`;
  return undefined;
};

/** What makes two rows one: their day and keys. */
export type CostKeys = Pick<
  CostRow,
  "day" | "mediaSource" | "campaignId" | "adsetId" | "adsetName" | "adId" | "adName" | "country"
>;

/**
 * An ad set or ad as the reports take it: by its id when the row has one, else by its name,
 * tagged, so that an id and a name never meet.
 */
const matchedBy = (id: string | null, name: string | null) =>
  id !== null ? ["id", idKey(id)] : name !== null ? ["name", nameKey(name)] : null;

/**
 * The spend a row is of, as the reports read it: its day, media source, campaign (by its id,
 * which a row always has), ad set, ad and country, names whatever their case and Unicode form
 * (src/reports/name-keys.ts). Two rows of one key are one spend: a body may not hold both, and
 * of those stored, the one received last stands (standingCostRows), whatever spelling each was
 * stored under.
 */
export const costMatchKeyOf = (row: CostKeys): string =>
  JSON.stringify([
    row.day,
    row.mediaSource,
    idKey(row.campaignId),
    matchedBy(row.adsetId, row.adsetName),
    matchedBy(row.adId, row.adName),
    row.country,
  ]);

/**
 * Whether a stored row takes its spend back: one sent again with amount 0 (a row sent by
 * mistake) is spend of no level, and replaces no cost the touches carry. The row is kept, as
 * sent, and listed with its 0.
 */
export const isTakenBack = (row: Pick<CostRow, "amount">): boolean => row.amount === 0;

/** What tells the rows of one spend apart: their keys, and when each was received. */
export type CostVersion = CostKeys & Pick<CostRow, "receivedAt">;

/**
 * Of stored rows, the latest of each spend (costMatchKeyOf: names whatever their case and
 * Unicode form), by its key, in the order the spends first appear: the one received last; of two
 * received at once, the later in `rows`. A spend sent in two spellings is stored under a key for
 * each (./cost-rows.ts's costKeyOf, the names as sent): each row is a version of the one spend,
 * not a spend of its own. `versionOf` reads a row as stored (the service's) or as listed (the
 * dashboard's `GET /v1/costs` answer), so that both tell the same rows apart.
 */
export const latestOfEachSpend = <T>(
  rows: readonly T[],
  versionOf: (row: T) => CostVersion,
): Map<string, T> => {
  const latest = new Map<string, { row: T; receivedAt: string }>();
  for (const row of rows) {
    const version = versionOf(row);
    const key = costMatchKeyOf(version);
    const found = latest.get(key);
    if (found === undefined || version.receivedAt >= found.receivedAt) {
      latest.set(key, { row, receivedAt: version.receivedAt });
    }
  }
  return new Map([...latest].map(([key, { row }]) => [key, row]));
};

/**
 * The stored rows that are spend, as the reports count them: the latest of each spend, and none
 * of one whose latest took it back (a row with amount 0 in any spelling takes back the rows of
 * its spend sent before).
 */
export const standingCostRows = (stored: readonly CostRow[]): CostRow[] =>
  [...latestOfEachSpend(stored, (row) => row).values()].filter((row) => !isTakenBack(row));

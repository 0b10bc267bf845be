/**
 * The body of `POST /v1/costs` (and of the CLI's and the dashboard's CSV uploads, row for row):
 * what a campaign cost on a day, as Adjust's and AppsFlyer's cost APIs take it. A row names its
 * day, media source and campaign, optionally an ad set, an ad and a country, and the amount in
 * its currency, with impressions and clicks when the network reports them. Days up to 90 back
 * are taken (AppsFlyer lets cost be corrected that long); a day ahead of today is not. The
 * amount is converted to USD with the ECB's rate of its day (or the peg of a currency fixed to
 * the dollar), as revenue is; as for revenue, a row without a rate that day is kept, its USD
 * amount null rather than invented. A body names each day and keys once: two rows of the same
 * (the same spend in two currencies, say) would replace each other, the last one standing.
 */
import { createHash } from "node:crypto";
import * as z from "zod";
import { ValidationError } from "../domain/errors.ts";
import { type FxRates, noUsdRateReason } from "../fx/ecb-rates.ts";
import type { CostRow } from "../ports/costs.ts";
import { formatIssues, plainWords } from "../validation/issues.ts";
import {
  COST_LIMITS,
  type CostKeys,
  costDayProblem,
  costMatchKeyOf,
  costRowSchema,
  isTakenBack,
  standingCostRows,
} from "./cost-requests.ts";

export { COST_LIMITS, costRowSchema, isTakenBack, standingCostRows };

export const costRequestSchema = z
  .strictObject({
    rows: z
      .array(costRowSchema)
      .min(1, { error: "must hold at least one row" })
      .max(COST_LIMITS.maxRows, { error: `must hold at most ${COST_LIMITS.maxRows} rows` }),
  })
  .meta({ id: "CostRequest" });
export type CostRequestRow = z.output<typeof costRowSchema>;

const nullable = <T>(value: T | null | undefined): T | null => value ?? null;

/** An optional name as stored: none when it was left out, null, or empty once trimmed. */
const nameOrNull = (value: string | null | undefined): string | null =>
  value === undefined || value === null || value === "" ? null : value;

/** The row an issue's path (`body.rows.3.day`) names; the body's own issues come after the rows'. */
const rowIndexOf = (path: readonly PropertyKey[]): number => {
  const at = path.indexOf("rows");
  const index = at === -1 ? undefined : path[at + 1];
  return typeof index === "number" ? index : Number.MAX_SAFE_INTEGER;
};

/**
 * Of a body the schema refused, the days it would take that are outside those taken, as issues
 * of their rows: the refusal names each row at fault, a day's beside another field's, not the
 * day's only once the rest was mended.
 */
const dayIssuesOf = (body: unknown, now: Date): z.core.$ZodIssue[] => {
  const rows = (body as { rows?: unknown } | null)?.rows;
  if (!Array.isArray(rows) || rows.length > COST_LIMITS.maxRows) return [];
  return rows.flatMap((row: unknown, index): z.core.$ZodIssue[] => {
    const day = costRowSchema.shape.day.safeParse((row as { day?: unknown } | null)?.day);
    const problem = day.success ? costDayProblem(day.data, now) : undefined;
    return problem === undefined
      ? []
      : [{ code: "custom", path: ["rows", index, "day"], message: problem, input: day.data }];
  });
};

/**
 * The body's rows as stored: checked, within the days taken, converted to USD. A ValidationError
 * (a 422) names each row and field at fault; nothing is stored of a body with one.
 */
export const costRowsOf = (appId: string, body: unknown, fx: FxRates, now: Date): CostRow[] => {
  const parsed = costRequestSchema.safeParse(body, { error: plainWords });
  if (!parsed.success) {
    const issues = [...parsed.error.issues, ...dayIssuesOf(body, now)]
      .map((issue) => ({ ...issue, path: ["body", ...issue.path] }))
      .sort((a, b) => rowIndexOf(a.path) - rowIndexOf(b.path));
    throw new ValidationError(formatIssues(issues, "body"));
  }
  const problems: string[] = [];
  const rows = parsed.data.rows.map((row, index): CostRow => {
    const dayProblem = costDayProblem(row.day, now);
    if (dayProblem) problems.push(`body.rows[${index}].day: ${dayProblem}`);
    return {
      appId,
      day: row.day,
      mediaSource: row.media_source,
      campaignId: row.campaign_id,
      campaignName: nameOrNull(row.campaign_name),
      adsetId: nameOrNull(row.adset_id),
      adsetName: nameOrNull(row.adset_name),
      adId: nameOrNull(row.ad_id),
      adName: nameOrNull(row.ad_name),
      country: nullable(row.country),
      amount: row.amount,
      currency: row.currency,
      // A day refused is not one the rates can read (0000-01-01): the body fails below.
      amountUsd: dayProblem ? null : fx.toUsd(row.amount, row.currency, row.day),
      impressions: nullable(row.impressions),
      clicks: nullable(row.clicks),
      receivedAt: now.toISOString(),
    };
  });
  problems.push(...sameKeyProblems(rows, (index) => `body.rows[${index}]`));
  if (problems.length > 0) throw new ValidationError(problems.slice(0, 5).join("; "));
  return rows;
};

/**
 * An ad set or ad as a row names it: by its id when it has one (a name changed since is the same
 * one), else by its name, as the reports match it; tagged, so that an id and a name never meet.
 */
const namedBy = (id: string | null, name: string | null) =>
  id !== null ? ["id", id] : name !== null ? ["name", name] : null;

/**
 * The key a row is stored under: its day and keys as sent, a row sent again under the same key
 * replacing the first. A digest of them: four names of 200 characters are more bytes than a
 * DynamoDB key holds. Names are keyed as sent, not as the reports match them
 * (./cost-requests.ts's costMatchKeyOf): the rows stored before are keyed so, and a row sent
 * again as it was sent then must still replace its own. Rows of one spend stored under two
 * spellings are read as one by standingCostRows.
 */
export const costKeyOf = (row: CostKeys) =>
  createHash("sha256")
    .update(
      JSON.stringify([
        row.day,
        row.mediaSource,
        row.campaignId,
        namedBy(row.adsetId, row.adsetName),
        namedBy(row.adId, row.adName),
        row.country,
      ]),
    )
    .digest("base64url");

/** A row of the body's schema by the keys a stored row has (src/cli's files read so). */
export const keysOfRequestRow = (row: CostRequestRow): CostKeys => ({
  day: row.day,
  mediaSource: row.media_source,
  campaignId: row.campaign_id,
  adsetId: nameOrNull(row.adset_id),
  adsetName: nameOrNull(row.adset_name),
  adId: nameOrNull(row.ad_id),
  adName: nameOrNull(row.ad_name),
  country: nullable(row.country),
});

/**
 * A problem for each row of the same day and keys as an earlier one, naming both (`where` says
 * where the row of an index is); names are the same whatever their case and Unicode form, as the
 * reports match them. Stored, they would replace each other, the last one standing: which is the
 * spend (the same row in two currencies, a total sent twice) is the sender's to say.
 */
export const sameKeyProblems = (
  rows: readonly CostKeys[],
  where: (index: number) => string,
): string[] => {
  const firstOfKey = new Map<string, number>();
  const problems: string[] = [];
  rows.forEach((row, index) => {
    const key = costMatchKeyOf(row);
    const first = firstOfKey.get(key);
    if (first === undefined) firstOfKey.set(key, index);
    else {
      problems.push(
        `${where(index)}: has the day, media source, campaign, ad set, ad and country of ${where(first)}: one row for them, in one currency`,
      );
    }
  });
  return problems;
};

/** What a row names beyond its campaign: its level of detail, in words. */
const levelOf = (row: CostRow): string => {
  const named = [
    row.adsetId !== null || row.adsetName !== null ? "ad set" : null,
    row.adId !== null || row.adName !== null ? "ad" : null,
    row.country !== null ? "country" : null,
  ].filter((name) => name !== null);
  return named.length === 0 ? "the campaign's total" : `by ${named.join(" and ")}`;
};

/** Warnings an upload's answer gives at most; the rest are counted. */
const MAX_LEVEL_WARNINGS = 20;

/**
 * The campaigns' days an upload touched whose stored rows are at several levels of detail (a
 * day's total, and the same day by country): each row is a spend of its own, as the network
 * sent it, so a total and its split count the same spend twice. Said, not settled: the service
 * cannot tell a split from spend the total left out.
 */
export const mixedLevelWarnings = (
  stored: readonly CostRow[],
  uploaded: readonly CostRow[],
): string[] => {
  const keyOf = (row: CostRow) => JSON.stringify([row.day, row.mediaSource, row.campaignId]);
  const touched = new Set(uploaded.map(keyOf));
  // What is stored read through an index may not hold the upload's own writes yet (DynamoDB's
  // indexes follow their table): the upload's rows are stored whatever it gives, and stand over
  // the stored rows of their spend, as the reports read them.
  const uploadedKeys = new Set(uploaded.map(costMatchKeyOf));
  const current = standingCostRows([
    ...stored.filter((row) => !uploadedKeys.has(costMatchKeyOf(row))),
    ...uploaded,
  ]);
  const levels = new Map<string, { row: CostRow; levels: Set<string> }>();
  for (const row of current) {
    const key = keyOf(row);
    if (!touched.has(key)) continue;
    const entry = levels.get(key) ?? { row, levels: new Set<string>() };
    entry.levels.add(levelOf(row));
    levels.set(key, entry);
  }
  const mixed = [...levels.values()].filter((entry) => entry.levels.size > 1);
  const words = mixed
    .slice(0, MAX_LEVEL_WARNINGS)
    .map(
      ({ row, levels: found }) =>
        `Campaign ${row.campaignId} of ${row.mediaSource} on ${row.day} has cost rows at ${found.size} levels of detail (${[...found].sort().join("; ")}): every row counts as spend of its own, so a total and its split count twice. Keep one level for a campaign's day (a row sent again with amount 0 takes it back).`,
    );
  if (mixed.length > MAX_LEVEL_WARNINGS) {
    words.push(`And ${mixed.length - MAX_LEVEL_WARNINGS} more campaigns' days likewise.`);
  }
  return words;
};

/**
 * The upload's rows no rate converted to USD, one warning a currency and reason: they are kept,
 * but a report leaves their spend out (it counts them in `cost_rows_unconverted`), and a marketer
 * who hears of it only there reads a cost, eCPI or ROAS short of it. A row of 0 takes nothing out.
 */
export const unconvertedWarnings = (
  uploaded: readonly CostRow[],
  fx: Pick<FxRates, "currencies" | "firstDate" | "lastDate">,
): string[] => {
  const groups = new Map<string, { currency: string; reason: string; days: string[] }>();
  for (const row of uploaded) {
    if (row.amountUsd !== null || row.amount === 0) continue;
    const reason = noUsdRateReason(fx, row.currency, row.day);
    const key = JSON.stringify([row.currency, reason]);
    const group = groups.get(key) ?? { currency: row.currency, reason, days: [] };
    group.days.push(row.day);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ currency, reason, days }) => {
    const sorted = days.sort();
    const first = sorted[0] ?? "";
    const last = sorted[sorted.length - 1] ?? "";
    const span = first === last ? `of ${first}` : `of ${first} to ${last}`;
    const rows = days.length === 1 ? "1 row" : `${days.length} rows`;
    return `${rows} in ${currency} ${span} ${days.length === 1 ? "has" : "have"} no USD amount: ${reason}. Kept, but their spend is in no cost, eCPI or ROAS figure (the reports count them in cost_rows_unconverted); a row sent again replaces its own, converted at the rates known then.`;
  });
};

/** A row as it goes to the lake's costs table (src/lake/lake-tables.ts). */
export const costLakeRecord = (row: CostRow) => ({
  app_id: row.appId,
  day: row.day,
  media_source: row.mediaSource,
  campaign_id: row.campaignId,
  campaign_name: row.campaignName,
  adset_id: row.adsetId,
  adset_name: row.adsetName,
  ad_id: row.adId,
  ad_name: row.adName,
  country: row.country,
  amount: row.amount,
  currency: row.currency,
  amount_usd: row.amountUsd,
  impressions: row.impressions,
  clicks: row.clicks,
  received_at: row.receivedAt,
});

/** A stored row as the API answers it: its lake row, without the app the key names. */
export const costAnswer = (row: CostRow) => {
  const { app_id: _app, ...answer } = costLakeRecord(row);
  return answer;
};
export type CostAnswer = ReturnType<typeof costAnswer>;

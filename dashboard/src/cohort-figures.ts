/**
 * Decisions the Cohorts page makes from the report's figures, apart from the page so that they
 * can be held to their rules without a browser.
 */
import type { CohortFigures, CohortReport, CohortRow } from "./api.ts";
import { formatCount } from "./format.ts";

/**
 * Whether the range's installs were seen to have no session at all: at least one day's share is
 * known, and every known share is 0. A share not known (null: the day is not over, as every day
 * of today's installs) says nothing of sessions, so installs of today alone are no such case.
 */
export const noSessionsSeen = (cohorts: readonly CohortRow[]): boolean => {
  const known = cohorts.flatMap((cohort) =>
    cohort.retention.filter((share): share is number => share !== null && share !== undefined),
  );
  return known.length > 0 && known.every((share) => share === 0);
};

/**
 * Whether a range's figures tell of its acquisition even without installs: a cost (spend that
 * won nothing is worth seeing most of all), or impressions and clicks.
 */
export const hasAcquisition = (totals: CohortFigures): boolean =>
  totals.cost_usd !== null || totals.impressions > 0 || totals.clicks > 0;

/** What the page says of the cost the report left out for want of a rate, and why it is unknown. */
type CostCounts = Pick<
  CohortReport,
  "filters" | "cost_rows_unconverted" | "touch_costs_unconverted"
>;

/**
 * The lines under the acquisition cards: how many cost rows, and how many installs, clicks and
 * impressions whose link or click carried a price, are left out of the cost because no rate of
 * their day converts their currency. Each is spend the cost, eCPI and ROAS do not count.
 */
export const unconvertedCostLines = (report: CostCounts): { testId: string; text: string }[] => {
  const rows = report.cost_rows_unconverted ?? 0;
  const touches = report.touch_costs_unconverted ?? 0;
  const lines: { testId: string; text: string }[] = [];
  if (rows > 0) {
    lines.push({
      testId: "cost-unconverted",
      text:
        rows === 1
          ? "1 cost row of this range is left out of the cost: no rate of its day converts its currency to US dollars."
          : `${formatCount(rows)} cost rows of this range are left out of the cost: no rate of their day converts their currency to US dollars.`,
    });
  }
  if (touches > 0) {
    lines.push({
      testId: "touch-costs-unconverted",
      text:
        touches === 1
          ? "1 install, click or impression of this range is left out of the cost: no rate of its day converts the currency of the price its link or click carried to US dollars."
          : `${formatCount(touches)} installs, clicks and impressions of this range are left out of the cost: no rate of their day converts the currency of the price their link or click carried to US dollars.`,
    });
  }
  return lines;
};

/** The campaigns the line below names; the rest it counts. */
const MISSING_NAMED = 3;

/** A list of words as a sentence writes it: "a", "a and b", "a, b and c". */
const listed = (words: readonly string[]): string =>
  words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;

/** A campaign's days with no cost: each of a few, else how many from the first to the last. */
const daysText = (days: readonly string[]): string =>
  days.length <= 3
    ? `on ${listed(days)}`
    : `on ${formatCount(days.length)} days from ${days[0]} to ${days.at(-1)}`;

/**
 * The line under the acquisition cards that names the campaigns whose paid installs fell on days
 * with no cost (`cost_days_missing`), of which eCPI and ROAS count them as free: a network's cost
 * of a day often comes a day or two late. Null when there are none.
 */
export const costDaysMissingLine = (
  report: Pick<CohortReport, "cost_days_missing">,
): string | null => {
  const missing = report.cost_days_missing ?? [];
  if (missing.length === 0) return null;
  const named = missing.slice(0, MISSING_NAMED).map((found) => {
    const installs = `${formatCount(found.paid_installs)} paid install${found.paid_installs === 1 ? "" : "s"}`;
    return `${found.media_source ?? "none"} ${found.campaign ?? "(no campaign)"} ${daysText(found.days)} (${installs})`;
  });
  const others = missing.length - named.length;
  if (others > 0) named.push(`${others} more campaign${others === 1 ? "" : "s"}`);
  return `Paid installs on days with no cost count as free in eCPI and ROAS until the network's cost of those days comes, often a day or two late: ${listed(named)}.`;
};

/**
 * Why the cost is not known, in a few words under its "—": with a platform filter, cost rows
 * name none; with a country filter, a cost row of every country holds no one country's share;
 * and otherwise there is no cost at all, unless some was left out for want of a rate, which is
 * then the reason (no cost would be false: one was sent or carried).
 */
export const noCostReason = (report: CostCounts): string => {
  const { filters } = report;
  const touches = (report.touch_costs_unconverted ?? 0) > 0;
  const unconverted = touches || (report.cost_rows_unconverted ?? 0) > 0;
  if (filters.platform !== undefined) {
    return `Cost rows name no platform, so with any of these installs' media source and campaign in this range one platform's cost is not known; without them, ${touches ? "the links and clicks of these installs carried prices in a currency no rate converts to US dollars" : "no link or click of these installs carried a cost"}.`;
  }
  const withoutRate =
    "The cost rows, links or clicks that price these installs are in a currency no rate converts to US dollars";
  if (filters.country !== undefined) {
    return unconverted
      ? `${withoutRate} (the line below says how many), or a cost row for every country holds no share of one country's.`
      : "No cost row or cost carried by a link or click for these installs, or a cost row for every country holds no share of one country's.";
  }
  return unconverted
    ? `${withoutRate}: the line below says how many.`
    : "No cost row, and no cost carried by a link or click, for these installs.";
};

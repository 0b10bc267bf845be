/**
 * Decisions the Cohorts page makes from the report's figures, apart from the page so that they
 * can be held to their rules without a browser.
 */
import type { CohortFigures, CohortRow } from "./api.ts";

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

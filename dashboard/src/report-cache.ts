/**
 * The reports' answers, asked once for the same question within 30 s, as the service keeps them:
 * the Overview and Cohorts pages ask for an unfiltered report beside the filtered one (the
 * filters' choices), the same when no filter is set, and each other's when the person moves
 * between them. A change of the app's cost rows forgets its answers. An answer is kept under the
 * time zone the page asked it in (the app's as the app list says): once the list names another,
 * the page asks anew rather than be shown the days of the zone the app no longer counts in.
 */
import {
  type CohortGroupBy,
  type CohortReport,
  getCohorts,
  getOverview,
  type Overview,
  type ReportFilters,
} from "./api.ts";
import { filterParams } from "./report-query.ts";

/** How long an answer is reused: as long as the service keeps it. */
const REUSE_MS = 30_000;
const answers = new Map<string, { at: number; appId: string; answer: Promise<unknown> }>();

const remembered = <T>(appId: string, key: string, ask: () => Promise<T>): Promise<T> => {
  const now = Date.now();
  for (const [old, entry] of answers) if (now - entry.at > REUSE_MS) answers.delete(old);
  const known = answers.get(key);
  if (known) return known.answer as Promise<T>;
  const answer = ask();
  answers.set(key, { at: now, appId, answer });
  answer.catch(() => answers.delete(key));
  return answer;
};

/** `zone`: the time zone the page counts the range's days in, as the app list says. */
export const cohortsOf = (
  appId: string,
  params: { from: string; to: string; group_by: CohortGroupBy } & ReportFilters,
  zone: string,
): Promise<CohortReport> => {
  const asked = {
    from: params.from,
    to: params.to,
    group_by: params.group_by,
    ...filterParams(params),
  };
  return remembered(appId, JSON.stringify(["cohorts", appId, zone, asked]), () =>
    getCohorts(appId, asked),
  );
};

/** `zone`: the time zone the page counts the range's days in, as the app list says. */
export const overviewOf = (
  appId: string,
  params: { from: string; to: string } & ReportFilters,
  zone: string,
): Promise<Overview> => {
  const asked = { from: params.from, to: params.to, ...filterParams(params) };
  return remembered(appId, JSON.stringify(["overview", appId, zone, asked]), () =>
    getOverview(appId, asked),
  );
};

/** Forgets the app's answers: its cost rows changed, so the cohorts' cost did. */
export const forgetReports = (appId: string): void => {
  for (const [key, entry] of answers) if (entry.appId === appId) answers.delete(key);
};

/**
 * Forgets every answer: at sign-out and at sign-in, so that the next person on this tab is
 * never shown the previous one's figures from here, whatever apps they may see.
 */
export const forgetAllReports = (): void => {
  answers.clear();
};

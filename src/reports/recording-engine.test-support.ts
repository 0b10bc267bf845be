/** A report engine for tests of what stands in front of one: it records what it is asked. */
import type {
  CohortQuery,
  LatestEventsQuery,
  OverviewQuery,
  RenamedCampaign,
  ReportEngine,
} from "../ports/reports.ts";
import { overviewReport } from "./overview.ts";

export const recordingEngine = (
  clicks: ReadonlyMap<string, number> = new Map(),
  /** The campaigns it finds renamed in every window. */
  renamed: readonly RenamedCampaign[] = [],
) => {
  const asked: (OverviewQuery | LatestEventsQuery | CohortQuery)[] = [];
  const engine: ReportEngine = {
    async overview(query) {
      asked.push(query);
      return overviewReport(query, []);
    },
    async cohorts(query) {
      asked.push(query);
      return [];
    },
    async renamedCampaigns() {
      return [...renamed];
    },
    async skadnetwork() {
      return [];
    },
    async latestEvents(query) {
      asked.push(query);
      return [];
    },
    async linkClicks() {
      return clicks;
    },
  };
  return { engine, asked };
};

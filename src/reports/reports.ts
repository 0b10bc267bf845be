/**
 * The dashboard's reports: what the report routes ask of the query engine (ReportEngine),
 * with the installs to leave out read as the export reads them: every report leaves out the
 * installs of the app's deletion requests, from the moment a request is made, before their
 * rows are purged from the lake, and after.
 */
import { standingCostRows } from "../costs/cost-rows.ts";
import { deletedInstalls } from "../deletion/deletions.ts";
import { DEFAULT_TIME_ZONE, dayIn } from "../domain/time-zone.ts";
import type { AppStore } from "../ports/apps.ts";
import type { CostStore } from "../ports/costs.ts";
import type { DeletionStore } from "../ports/deletions.ts";
import type { OverviewReport, ReportEngine } from "../ports/reports.ts";
import type { ExportRecord } from "../record/columns.ts";
import { withinLiteralBudget, withLatestCampaignNames } from "./campaign-names.ts";
import { type CohortReport, cohortReport, costKeysNamedBy } from "./cohorts.ts";
import { dayOf } from "./days.ts";
import { type CohortParams, filtersOf, type OverviewParams } from "./params.ts";

export interface ReportsDeps {
  readonly engine: ReportEngine;
  /** The app, whose time zone the reports count days in. */
  readonly apps: Pick<AppStore, "get">;
  readonly deletions: Pick<DeletionStore, "tombstones" | "listByApp">;
  /** The cost rows cohorts weigh their revenue against (ROAS, eCPI). */
  readonly costs: Pick<CostStore, "listByApp">;
  readonly now?: () => Date;
}

export interface LinkClicksAnswer {
  readonly clicks: { readonly deeplink_id: string; readonly clicks: number }[];
}

export interface LatestEventsAnswer {
  readonly events: ExportRecord[];
}

/** A report, with the time zone its days are of. */
export type InTimeZone<T> = T & {
  /** The app's IANA time zone, in which its days are counted (src/domain/time-zone.ts). */
  readonly time_zone: string;
};

export const createReports = (deps: ReportsDeps) => {
  const now = deps.now ?? (() => new Date());
  const excluded = (appId: string) => deletedInstalls(deps.deletions, appId);
  const timeZoneOf = async (appId: string) =>
    (await deps.apps.get(appId))?.timeZone ?? DEFAULT_TIME_ZONE;
  /**
   * The app's time zone, and the window's renamed campaigns (of that zone's days) whose names
   * the report's query text has room for.
   */
  const renamedCampaigns = async (appId: string, from: string, to: string) => {
    const timeZone = await timeZoneOf(appId);
    const renamed = await deps.engine.renamedCampaigns({ appId, from, to, timeZone });
    return { timeZone, renamed: withinLiteralBudget(renamed) };
  };
  return {
    async overview(appId: string, params: OverviewParams): Promise<InTimeZone<OverviewReport>> {
      const { from, to } = params;
      // First: the report's query names each renamed campaign by its latest name.
      const [{ timeZone, renamed }, excludeServiceIds] = await Promise.all([
        renamedCampaigns(appId, from, to),
        excluded(appId),
      ]);
      return {
        ...(await deps.engine.overview({
          appId,
          from,
          to,
          timeZone,
          filters: filtersOf(params),
          excludeServiceIds,
          renamed,
        })),
        time_zone: timeZone,
      };
    },

    async cohorts(appId: string, params: CohortParams): Promise<InTimeZone<CohortReport>> {
      const { from, to, group_by: groupBy } = params;
      const filters = filtersOf(params);
      // The cost rows first: the rows the query gives carry the keys they name, and only those.
      // And the renamed campaigns, which the report's query names by their latest names, as the
      // cost rows naming their ids then do.
      const [excludeServiceIds, stored, { timeZone, renamed }] = await Promise.all([
        excluded(appId),
        deps.costs.listByApp(appId, { from, to }),
        renamedCampaigns(appId, from, to),
      ]);
      // One spend stored under two spellings of a name (sent again in another case, say) is
      // counted once, at its latest; a latest row taken back counts as none.
      const costs = withLatestCampaignNames(standingCostRows(stored), renamed);
      const rows = await deps.engine.cohorts({
        appId,
        from,
        to,
        timeZone,
        groupBy,
        filters,
        costKeys: costKeysNamedBy(costs),
        excludeServiceIds,
        renamed,
      });
      return {
        ...cohortReport({ from, to, today: dayIn(now(), timeZone), groupBy, filters, rows, costs }),
        time_zone: timeZone,
      };
    },

    async latestEvents(appId: string, limit: number): Promise<LatestEventsAnswer> {
      const events = await deps.engine.latestEvents({
        appId,
        limit,
        today: dayOf(now()),
        excludeServiceIds: await excluded(appId),
      });
      return { events };
    },

    /** Most clicked first. Touches name no install: a deletion request leaves them be. */
    async linkClicks(appId: string): Promise<LinkClicksAnswer> {
      const counts = await deps.engine.linkClicks(appId);
      const clicks = [...counts]
        .map(([deeplinkId, count]) => ({ deeplink_id: deeplinkId, clicks: count }))
        .sort((a, b) => b.clicks - a.clicks || (a.deeplink_id < b.deeplink_id ? -1 : 1));
      return { clicks };
    },
  };
};

export type Reports = ReturnType<typeof createReports>;

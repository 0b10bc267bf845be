/**
 * Every statement the AWS runtime sends to Athena, built by the service's own builders in the
 * Athena dialect, over the inputs that change their shape: the reports in UTC and in a zone
 * whose clocks change within the days read, with and without filters, installs left out and
 * renamed campaigns, the renamed campaigns' own, the cohorts by each grouping with and without
 * cost keys, the latest events, the link clicks,
 * the SKAdNetwork report and the export. Written to the folder named on the command line, one
 * `<name>.sql` a statement, for ParseAthenaSql.java to parse with Trino's own parser.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXCLUSIONS_TABLE } from "../../src/adapters/athena/exclusions.ts";
import { buildExportQuery, type Exclusion, sqlString } from "../../src/lake/export-query.ts";
import {
  APPLE_POSTBACKS_TABLE,
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  SESSIONS_TABLE,
  TOUCHES_TABLE,
} from "../../src/lake/lake-tables.ts";
import { linkClicksQuery } from "../../src/lake/link-clicks-query.ts";
import type { CohortCostKey, CohortGroup, RenamedCampaign } from "../../src/ports/reports.ts";
import { buildRenamedCampaignsQuery } from "../../src/reports/campaign-names-query.ts";
import { buildCohortQuery, COHORT_GROUPS } from "../../src/reports/cohort-query.ts";
import { buildLatestEventsQuery, buildOverviewQuery } from "../../src/reports/queries.ts";
import { buildSkadnetworkQuery } from "../../src/skadnetwork/report-query.ts";

const table = (name: string) => `"attribution_lake"."${name}"`;
const sources = {
  events: table(EVENTS_TABLE.name),
  attributions: table(ATTRIBUTIONS_TABLE.name),
  touches: table(TOUCHES_TABLE.name),
  sessions: table(SESSIONS_TABLE.name),
};
/** An app id with a quote in it: every literal must stay one. */
const appId = "com.example.o'game";
/** As uploadExclusion names a list of installs to leave out. */
const exclude: Exclusion = {
  serviceIdsFrom: `SELECT ${EXCLUSIONS_TABLE.column} FROM ${table(EXCLUSIONS_TABLE.name)} WHERE ${EXCLUSIONS_TABLE.partitionKey} = ${sqlString("ab12")}`,
  count: 2,
};
const filters = {
  media_source: "meta_ads",
  campaign: "Winter's Sale",
  country: "DE",
  platform: "ios",
} as const;
/** UTC, and a zone whose clocks go back within November's first days. */
const zones = [undefined, "America/Los_Angeles"] as const;
const COST_KEYS: readonly CohortCostKey[] = ["campaign", "adset", "ad", "country"];
/** Three campaigns renamed, one of an id two networks use, names with a quote. */
const renamed: readonly RenamedCampaign[] = [
  {
    media_source: "meta_ads",
    campaign_id: "123",
    campaign_name: "Winter's Deals",
    former_names: ["Winter's Sale", "Winter"],
  },
  { media_source: "google_ads", campaign_id: "123", campaign_name: "Search", former_names: ["S"] },
  { media_source: "meta_ads", campaign_id: "9'9", campaign_name: "Spring", former_names: ["Sp"] },
];

export const athenaStatements = (): Record<string, string> => {
  const statements: Record<string, string> = {};
  for (const timeZone of zones) {
    const zone = timeZone === undefined ? "utc" : "zone";
    statements[`renamed-campaigns-${zone}`] = buildRenamedCampaignsQuery({
      dialect: "athena",
      appId,
      from: "2026-10-28",
      to: "2026-11-06",
      timeZone,
      touches: sources.touches,
    });
    for (const narrowed of [false, true]) {
      const variant = `${zone}${narrowed ? "-filtered-excluded" : ""}`;
      statements[`overview-${variant}`] = buildOverviewQuery({
        dialect: "athena",
        appId,
        from: "2026-10-28",
        to: "2026-11-06",
        timeZone,
        sources,
        ...(narrowed ? { filters, exclude, renamed } : {}),
      });
      for (const groupBy of Object.keys(COHORT_GROUPS) as CohortGroup[]) {
        statements[`cohorts-${groupBy}-${variant}`] = buildCohortQuery({
          dialect: "athena",
          appId,
          from: "2026-10-28",
          to: "2026-11-06",
          timeZone,
          groupBy,
          filters: narrowed ? filters : {},
          costKeys: narrowed ? COST_KEYS : [],
          sources,
          ...(narrowed ? { exclude, renamed } : {}),
        });
      }
    }
  }
  statements["latest-events"] = buildLatestEventsQuery({
    dialect: "athena",
    appId,
    limit: 50,
    today: "2026-11-06",
    sources,
  });
  statements["latest-events-excluded"] = buildLatestEventsQuery({
    dialect: "athena",
    appId,
    limit: 50,
    today: "2026-11-06",
    sources,
    exclude,
  });
  statements["link-clicks"] = linkClicksQuery(`"${TOUCHES_TABLE.name}"`, appId);
  statements.skadnetwork = buildSkadnetworkQuery({
    dialect: "athena",
    appId,
    from: new Date("2026-10-28T00:00:00.000Z"),
    to: new Date("2026-11-07T00:00:00.000Z"),
    source: table(APPLE_POSTBACKS_TABLE.name),
    now: new Date("2026-11-08T00:00:00.000Z"),
  });
  for (const excluded of [false, true]) {
    statements[`export${excluded ? "-excluded" : ""}`] = buildExportQuery({
      dialect: "athena",
      appId,
      since: new Date("2026-10-28T00:00:00.000Z"),
      sources: { events: sources.events, attributions: sources.attributions },
      ...(excluded ? { exclude } : {}),
    });
  }
  return statements;
};

const [folder] = process.argv.slice(2);
if (folder) {
  mkdirSync(folder, { recursive: true });
  for (const [name, sql] of Object.entries(athenaStatements())) {
    writeFileSync(join(folder, `${name}.sql`), sql);
  }
}

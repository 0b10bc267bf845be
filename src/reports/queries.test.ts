import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Dialect } from "../lake/export-query.ts";
import { sqlString } from "../lake/export-query.ts";
import { LAKE_LATE_DAYS } from "../lake/lake-tables.ts";
import type { CohortCostKey } from "../ports/reports.ts";
import { buildSkadnetworkQuery } from "../skadnetwork/report-query.ts";
import { buildCohortQuery } from "./cohort-query.ts";
import {
  buildLatestEventsQuery,
  buildOverviewQuery,
  groupingIdOf,
  INSTALL_EVENT_NAME,
  latestEventDays,
  OVERVIEW_KEYS,
  OVERVIEW_SETS,
  reportDays,
  TOUCH_LEAD_DAYS,
  timestampLiteral,
} from "./queries.ts";

const SOURCES = { events: '"events"', attributions: '"attributions"', touches: '"touches"' };

const overview = (dialect: Dialect) =>
  buildOverviewQuery({
    dialect,
    appId: "com.example.game",
    from: "2026-11-01",
    to: "2026-11-30",
    sources: SOURCES,
    exclude: { serviceIds: ["s-1"] },
  });

const latest = (dialect: Dialect) =>
  buildLatestEventsQuery({
    dialect,
    appId: "com.example.game",
    limit: 50,
    today: "2026-12-01",
    sources: SOURCES,
  });

describe("the report queries", () => {
  let duckdb: DuckDBInstance;
  beforeAll(async () => {
    duckdb = await DuckDBInstance.create(":memory:");
  });
  afterAll(() => duckdb.closeSync());

  /** DuckDB's parser's verdict on a query, of either dialect: it parses without binding. */
  const syntaxError = async (query: string): Promise<string | undefined> => {
    const connection = await duckdb.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT json_serialize_sql(${sqlString(query)}) AS tree`,
      );
      const tree = JSON.parse(String(reader.getRowObjectsJS()[0]?.tree));
      return tree.error ? String(tree.error_message) : undefined;
    } finally {
      connection.closeSync();
    }
  };

  it("parse, in both dialects", async () => {
    for (const dialect of ["duckdb", "athena"] as const) {
      expect(await syntaxError(overview(dialect))).toBeUndefined();
      expect(await syntaxError(latest(dialect))).toBeUndefined();
      for (const groupBy of ["country", "adset"] as const) {
        expect(
          await syntaxError(
            buildCohortQuery({
              dialect,
              appId: "com.example.game",
              from: "2026-11-01",
              to: "2026-11-30",
              groupBy,
              filters: { media_source: "meta_ads", platform: "ios" },
              costKeys: ["campaign", "adset", "ad", "country"],
              sources: { ...SOURCES, sessions: '"sessions"' },
              exclude: { serviceIds: ["s-1"] },
            }),
          ),
        ).toBeUndefined();
      }
      expect(
        await syntaxError(
          buildSkadnetworkQuery({
            dialect,
            appId: "com.example.game",
            from: new Date("2026-11-01T00:00:00Z"),
            to: new Date("2026-12-01T00:00:00Z"),
            source: '"apple_postbacks"',
            now: new Date("2026-12-02T00:00:00Z"),
          }),
        ),
      ).toBeUndefined();
    }
    // The parser's verdict is read: a query that does not parse says where.
    expect(await syntaxError("SELECT FROM WHERE (")).toMatch(/syntax error/i);
  });

  it("count a moment's day in the app's zone by the offset of that moment, through a change of its clocks on the report's last day", async () => {
    // Los Angeles goes from UTC-7 to UTC-8 at 09:00 UTC on 1 November 2026.
    const span = { from: "2026-10-30", to: "2026-11-01" };
    const days = reportDays("duckdb", "America/Los_Angeles", span);
    const dayOf = async (iso: string) => {
      const connection = await duckdb.connect();
      try {
        const moment = timestampLiteral.duckdb(new Date(iso));
        const reader = await connection.runAndReadAll(`SELECT ${days.day(moment)} AS day`);
        return String(reader.getRowObjectsJS()[0]?.day);
      } finally {
        connection.closeSync();
      }
    };
    // 23:59:59 and 00:30 summer time, each side of midnight.
    expect(await dayOf("2026-11-01T06:59:59.000Z")).toBe("2026-10-31");
    expect(await dayOf("2026-11-01T07:30:00.000Z")).toBe("2026-11-01");
    // 23:30 winter time, the last day's, and the next day's first moment.
    expect(await dayOf("2026-11-02T07:30:00.000Z")).toBe("2026-11-01");
    expect(await dayOf("2026-11-02T08:00:00.000Z")).toBe("2026-11-02");
    // A zone's day is read from the UTC days either side of it.
    expect(days.utcDays(span.from, span.to)).toEqual({ from: "2026-10-29", to: "2026-11-02" });
    expect(reportDays("duckdb").utcDays(span.from, span.to)).toEqual(span);
  });

  it("differ between dialects only in how a time is written and a deep link path read", () => {
    const duckdb = overview("duckdb");
    const athena = overview("athena");
    expect(duckdb).toContain("TIMESTAMP '2026-12-01T00:00:00.000'");
    expect(athena).toContain("from_iso8601_timestamp('2026-12-01T00:00:00.000Z')");
    expect(duckdb).toContain("json_extract_string(params, '$.deep_link_path')");
    expect(athena).toContain("json_extract_scalar(params, '$.deep_link_path')");
  });

  it("make the overview one aggregation with a grouping set per chart", () => {
    const query = overview("athena");
    expect(query.match(/GROUP BY GROUPING SETS/g)).toHaveLength(1);
    for (const keys of Object.values(OVERVIEW_SETS))
      expect(query).toContain(`(${keys.join(", ")})`);
    expect(query).toContain(`grouping(${OVERVIEW_KEYS.join(", ")}) AS grouping_id`);
    expect(query).toContain(`r.event_name = ${sqlString(INSTALL_EVENT_NAME)}`);
    expect(query).toContain("events.service_id NOT IN ('s-1')");
    // Partitions: the window's events (and the day before's, for earlier copies of them), the
    // touches its installs' clicks may lie on, each with the partitions after them that rows
    // taken late lie in; the window's times exactly.
    expect(LAKE_LATE_DAYS).toBe(31);
    expect(query).toContain("bounded.dt BETWEEN '2026-10-31' AND '2026-12-31'");
    expect(query).toContain(
      "AND bounded.event_time >= from_iso8601_timestamp('2026-10-31T00:00:00.000Z')\n    AND bounded.event_time < from_iso8601_timestamp('2026-12-01T00:00:00.000Z')",
    );
    expect(query).toContain(
      "WHERE ev.copy_no = 1\n  AND ev.event_time >= from_iso8601_timestamp('2026-11-01T00:00:00.000Z')",
    );
    expect(TOUCH_LEAD_DAYS).toBe(31);
    expect(query).toContain("dt BETWEEN '2026-10-01' AND '2027-01-01'");
  });

  it("read the export's rows unsorted, and the latest events newest first", () => {
    expect(overview("duckdb")).not.toContain("ORDER BY ev.event_time");
    const query = latest("duckdb");
    expect(query).not.toContain("ORDER BY ev.event_time");
    expect(query).toMatch(/ORDER BY event_time DESC, event_id DESC\nLIMIT 50$/);
    expect(query).toContain("bounded.dt BETWEEN '2026-11-29' AND '2027-01-01'");
    expect(() =>
      buildLatestEventsQuery({
        dialect: "duckdb",
        appId: "a",
        limit: 0,
        today: "2026-12-01",
        sources: SOURCES,
      }),
    ).toThrow(RangeError);
  });

  it("split the cohorts' rows by their campaign, and by only the cost keys asked: none without cost rows", () => {
    const cohortsWith = (costKeys: readonly CohortCostKey[]) =>
      buildCohortQuery({
        dialect: "duckdb",
        appId: "com.example.game",
        from: "2026-11-01",
        to: "2026-11-30",
        groupBy: "country",
        filters: {},
        costKeys,
        sources: { ...SOURCES, sessions: '"sessions"' },
      });
    expect(cohortsWith([])).toContain(
      "GROUP BY i.cohort_day, i.media_source, i.group_key, i.campaign_key\n",
    );
    expect(cohortsWith(["campaign", "country"])).toContain(
      "GROUP BY i.cohort_day, i.media_source, i.group_key, i.campaign_key, i.campaign_id, i.campaign_name, i.cost_country\n",
    );
    // By ad set, with cost rows naming ad sets: the ad set's own id and name, whatever it cost.
    const byAdset = buildCohortQuery({
      dialect: "athena",
      appId: "com.example.game",
      from: "2026-11-01",
      to: "2026-11-30",
      groupBy: "adset",
      filters: {},
      costKeys: ["campaign", "adset"],
      sources: { ...SOURCES, sessions: '"sessions"' },
    });
    expect(byAdset).toContain("r.adset_id AS group_id, r.adset_name AS group_name");
    expect(byAdset).toContain("i.cost_adset_id, i.cost_adset_name, i.group_id, i.group_name\n");
  });

  it("read only the export's columns a report groups and filters by; the latest events all", () => {
    const cohorts = buildCohortQuery({
      dialect: "duckdb",
      appId: "com.example.game",
      from: "2026-11-01",
      to: "2026-11-30",
      groupBy: "ad",
      filters: {},
      costKeys: [],
      sources: { ...SOURCES, sessions: '"sessions"' },
    });
    for (const query of [overview("duckdb"), overview("athena"), cohorts]) {
      expect(query).toMatch(/SELECT app_id, dt, service_id, event_id, event_time, received_at, /);
      expect(query).not.toMatch(/\b(idfv|maid|customer_user_id|app_name)\b/);
    }
    expect(overview("duckdb")).toContain("att.matching_type AS matching_type");
    expect(cohorts).toContain("att.ad_name AS ad_name");
    expect(latest("duckdb")).toMatch(/\bev\.idfv AS idfv\b/);
  });

  it("name each grouping set by grouping()'s bits: one per key left out, the first the highest", () => {
    expect(groupingIdOf(OVERVIEW_KEYS)).toBe(0);
    expect(groupingIdOf([])).toBe(2 ** OVERVIEW_KEYS.length - 1);
    expect(groupingIdOf(OVERVIEW_KEYS.slice(-1))).toBe(2 ** OVERVIEW_KEYS.length - 2);
    expect(groupingIdOf(["day"])).toBe(2 ** (OVERVIEW_KEYS.length - 1) - 1);
    const ids = Object.values(OVERVIEW_SETS).map(groupingIdOf);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("read the latest events from yesterday's and today's partitions", () => {
    expect(latestEventDays("2026-03-01")).toEqual({ from: "2026-02-28", to: "2026-03-01" });
  });
});

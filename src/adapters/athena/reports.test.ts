import {
  AthenaClient,
  GetQueryExecutionCommand,
  StartQueryExecutionCommand,
  type StartQueryExecutionCommandInput,
} from "@aws-sdk/client-athena";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { COLUMN_NAMES, EXPORT_COLUMNS, type ExportRecord } from "../../record/columns.ts";
import {
  groupingIdOf,
  OVERVIEW_KEYS,
  OVERVIEW_MEASURES,
  OVERVIEW_SETS,
} from "../../reports/queries.ts";
import { exclusionList } from "./exclusions.ts";
import { createFakeS3 } from "./fake-s3.test-support.ts";
import { createAthenaReportEngine } from "./reports.ts";

const BUCKET = "athena-results";
const APP = "com.example.o'game";

/** A value written the way Athena does: quoted, NULL an unquoted empty field. */
const field = (value: string | number | null): string =>
  value === null ? "" : `"${String(value).replaceAll('"', '""')}"`;

const csv = (rows: readonly (readonly (string | number | null)[])[]): string =>
  rows.map((row) => `${row.map(field).join(",")}\n`).join("");

const OVERVIEW_HEADER = ["grouping_id", ...OVERVIEW_KEYS, ...OVERVIEW_MEASURES];

/** An overview result row of `set`, its keys given, the rest null; measures not given 0. */
const overviewRow = (
  set: keyof typeof OVERVIEW_SETS,
  keys: Partial<Record<(typeof OVERVIEW_KEYS)[number], string>>,
  measures: readonly (number | string)[],
) => [
  groupingIdOf(OVERVIEW_SETS[set]),
  ...OVERVIEW_KEYS.map((key) => keys[key] ?? null),
  ...OVERVIEW_HEADER.slice(1 + OVERVIEW_KEYS.length).map((_, index) => measures[index] ?? 0),
];

describe("Athena report engine", () => {
  const athena = new AthenaClient({ region: "eu-west-1" });
  const athenaMock = mockClient(athena);
  let s3: ReturnType<typeof createFakeS3>;
  let results: string[];

  /** Each started query succeeds with the next result, written to the results bucket. */
  beforeEach(() => {
    athenaMock.reset();
    s3 = createFakeS3();
    results = [];
    let started = 0;
    athenaMock.on(StartQueryExecutionCommand).callsFake(async () => {
      started += 1;
      s3.put(BUCKET, `reports/q${started}.csv`, results[started - 1] ?? "");
      return { QueryExecutionId: `q${started}` };
    });
    athenaMock.on(GetQueryExecutionCommand).callsFake(async ({ QueryExecutionId }) => ({
      QueryExecution: {
        Status: { State: "SUCCEEDED" },
        ResultConfiguration: { OutputLocation: `s3://${BUCKET}/reports/${QueryExecutionId}.csv` },
      },
    }));
  });

  const engine = () =>
    createAthenaReportEngine({
      athena,
      s3: s3.client,
      workGroup: "exports",
      database: "lake",
      resultsBucket: BUCKET,
      pollIntervalMs: 1,
      now: () => new Date("2026-11-20T10:15:30.000Z"),
    });

  const sent = (): StartQueryExecutionCommandInput[] =>
    athenaMock.commandCalls(StartQueryExecutionCommand).map((call) => call.args[0].input);

  it("asks for the overview in one query, pruned to the window's partitions", async () => {
    results.push(csv([OVERVIEW_HEADER, overviewRow("totals", {}, [0, 0, 0, 0, 0])]));
    await engine().overview({
      appId: APP,
      from: "2026-11-01",
      to: "2026-11-14",
      excludeServiceIds: [],
    });
    const [input, ...more] = sent();
    expect(more).toEqual([]);
    const sql = input?.QueryString ?? "";
    expect(input?.WorkGroup).toBe("exports");
    expect(input?.QueryExecutionContext?.Database).toBe("lake");
    expect(sql).toContain('FROM "lake"."events" AS bounded');
    expect(sql).toContain('FROM "lake"."attributions"');
    expect(sql).toContain('FROM "lake"."touches" AS touches');
    expect(sql).toContain("bounded.app_id = 'com.example.o''game'");
    // The window's partitions and the 31 after it, where its events taken late lie, and the
    // day before, where earlier copies of them may.
    expect(sql).toContain("bounded.dt BETWEEN '2026-10-31' AND '2026-12-15'");
    expect(sql).toContain(
      "bounded.event_time < from_iso8601_timestamp('2026-11-15T00:00:00.000Z')",
    );
    expect(sql).toContain("ev.event_time >= from_iso8601_timestamp('2026-11-01T00:00:00.000Z')");
    // The clicks that won the window's installs: up to the longest click window before it.
    expect(sql).toContain("dt BETWEEN '2026-10-01' AND '2026-12-16'");
    expect(sql).toContain("json_extract_scalar(params, '$.deep_link_path')");
    expect(sql).toContain("max_by(match_status, attributed_at)");
    expect(sql).toContain("GROUP BY GROUPING SETS");
    expect(sql).toContain("(day, media_source)");
    expect(sql).not.toContain("NOT IN");
    expect(sql).not.toContain("ORDER BY ev.event_time, ev.event_id");
    // A run asked again within the minute joins this one.
    expect(input?.ClientRequestToken).toMatch(/^[0-9a-f]{64}$/);
  });

  it("counts the days of the app's time zone: its first moments, and the UTC days either side", async () => {
    results.push(csv([OVERVIEW_HEADER, overviewRow("totals", {}, [0, 0, 0, 0, 0])]));
    await engine().overview({
      appId: APP,
      from: "2026-11-01",
      to: "2026-11-14",
      timeZone: "America/Los_Angeles",
      excludeServiceIds: [],
    });
    const sql = sent()[0]?.QueryString ?? "";
    // Daylight saving time ends on 1 November 2026 at 02:00: the day begins at UTC-7 (as
    // the day before, read for earlier copies of the window's events).
    expect(sql).toContain("ev.event_time >= from_iso8601_timestamp('2026-11-01T07:00:00.000Z')");
    expect(sql).toContain(
      "bounded.event_time >= from_iso8601_timestamp('2026-10-31T07:00:00.000Z')",
    );
    expect(sql).toContain(
      "bounded.event_time < from_iso8601_timestamp('2026-11-15T08:00:00.000Z')",
    );
    expect(sql).toContain("bounded.dt BETWEEN '2026-10-30' AND '2026-12-16'");
    // Each event's day by the offset of its moment: UTC-7 until the clocks go back, then UTC-8.
    expect(sql).toContain(
      "CAST(CAST((CASE WHEN r.event_time < from_iso8601_timestamp('2026-11-01T09:00:00.000Z') THEN date_add('second', -25200, r.event_time) ELSE date_add('second', -28800, r.event_time) END) AS DATE) AS VARCHAR) AS day",
    );
  });

  it("reads the renamed campaigns from the touches table, each with its former names, and joins them in the overview", async () => {
    results.push(
      csv([
        ["media_source", "campaign_id", "campaign_name", "name_rank", "campaign_rank"],
        ["meta_ads", "123", "Summer v2", "1", "1"],
        ["meta_ads", "123", "Summer v1", "2", "1"],
        ["google_ads", "9'9", "Search", "1", "2"],
        ["google_ads", "9'9", "Search's, old", "2", "2"],
      ]),
      csv([OVERVIEW_HEADER, overviewRow("totals", {}, [0, 0, 0, 0, 0])]),
    );
    const window = { appId: APP, from: "2026-11-01", to: "2026-11-14" };
    const renamed = await engine().renamedCampaigns(window);
    expect(renamed).toEqual([
      {
        media_source: "meta_ads",
        campaign_id: "123",
        campaign_name: "Summer v2",
        former_names: ["Summer v1"],
      },
      {
        media_source: "google_ads",
        campaign_id: "9'9",
        campaign_name: "Search",
        former_names: ["Search's, old"],
      },
    ]);
    const [names] = sent();
    expect(names?.QueryString).toContain('FROM "lake"."touches" AS t');
    // The touches its installs' winning clicks may be, up to the window's end.
    expect(names?.QueryString).toContain("t.dt BETWEEN '2026-10-01' AND '2026-12-16'");
    expect(names?.QueryString).toContain(
      "t.touch_time < from_iso8601_timestamp('2026-11-15T00:00:00.000Z')",
    );
    await engine().overview({ ...window, excludeServiceIds: [], renamed });
    const sql = sent()[1]?.QueryString ?? "";
    expect(sql).toMatch(/^WITH renamed_campaigns AS \(/);
    expect(sql).toContain("('google_ads', '9''9', CAST(NULL AS VARCHAR), 'Search')");
    expect(sql).toContain("('meta_ads', CAST(NULL AS VARCHAR), 'Summer v1', 'Summer v2')");
    expect(sql).toContain("LEFT JOIN renamed_campaigns AS r_renamed");
  });

  it("reads each grouping set's rows into the overview's parts", async () => {
    results.push(
      csv([
        OVERVIEW_HEADER,
        overviewRow("totals", {}, [3, 2, 1, 10, "1.2345E1", 2, "2.5E5", 1]),
        overviewRow("revenue_unconverted", { currency: "VND" }, [0, 0, 0, 2, 0, 2, "2.5E5"]),
        overviewRow(
          "installs_by_day",
          { day: "2026-11-01", media_source: "meta_ads" },
          [2, 2, 0, 6, 10],
        ),
        overviewRow(
          "installs_by_day",
          { day: "2026-11-01", media_source: "organic" },
          [1, 0, 1, 3, 2.345],
        ),
        // A group of events without installs: no row of the installs chart.
        overviewRow("installs_by_day", { day: "2026-11-02" }, [0, 0, 0, 1, 0]),
        overviewRow("revenue_by_day", { day: "2026-11-01" }, [3, 2, 1, 9, 12.345]),
        overviewRow("revenue_by_day", { day: "2026-11-02" }, [0, 0, 0, 1, 0]),
        overviewRow(
          "events_by_day",
          { day: "2026-11-01", event_name: "service_install" },
          [3, 2, 1, 3, 0],
        ),
        overviewRow(
          "events_by_day",
          { day: "2026-11-01", event_name: 'say "hi", then\nleave' },
          [0, 0, 0, 6, 12.345],
        ),
        overviewRow(
          "events_by_day",
          { day: "2026-11-02", event_name: "service_login" },
          [0, 0, 0, 1, 0],
        ),
        overviewRow(
          "campaigns",
          { media_source: "meta_ads", campaign: "Winter" },
          [2, 2, 0, 6, 10, 0, 0, 1],
        ),
        overviewRow("campaigns", { media_source: "organic" }, [1, 0, 1, 3, 2.345]),
        overviewRow("campaigns", {}, [0, 0, 0, 1, 0]),
        overviewRow("match_status", { status: "matched" }, [2, 2, 0, 2, 0]),
        overviewRow("match_status", { status: "organic" }, [1, 0, 1, 1, 0]),
        overviewRow("match_status", {}, [0, 0, 0, 7, 12.345]),
        overviewRow("match_method", { method: "network" }, [2, 2, 0, 2, 0]),
        overviewRow("match_method", { method: "organic" }, [1, 0, 1, 1, 0]),
        overviewRow("deep_link_paths", { deep_link_path: "/levels/7" }, [2, 2, 0, 2, 0]),
        overviewRow("countries", {}, [0, 0, 0, 2, 0]),
        overviewRow("countries", { country: "DE" }, [3, 2, 1, 8, "1.2345E1"]),
      ]),
    );
    const report = await engine().overview({
      appId: APP,
      from: "2026-11-01",
      to: "2026-11-02",
      excludeServiceIds: [],
    });
    expect(report).toEqual({
      from: "2026-11-01",
      to: "2026-11-02",
      totals: {
        installs: 3,
        paid_installs: 2,
        organic_installs: 1,
        reinstalls: 1,
        events: 10,
        revenue_usd: 12.345,
      },
      installs_by_day: [
        { date: "2026-11-01", media_source: "meta_ads", installs: 2 },
        { date: "2026-11-01", media_source: "organic", installs: 1 },
      ],
      match_status: [
        { status: "matched", installs: 2 },
        { status: "organic", installs: 1 },
      ],
      match_method: [
        { method: "network", installs: 2 },
        { method: "organic", installs: 1 },
      ],
      events_by_day: [
        { date: "2026-11-01", event_name: 'say "hi", then\nleave', events: 6 },
        { date: "2026-11-01", event_name: "service_install", events: 3 },
        { date: "2026-11-02", event_name: "service_login", events: 1 },
      ],
      revenue_by_day: [
        { date: "2026-11-01", revenue_usd: 12.345 },
        { date: "2026-11-02", revenue_usd: 0 },
      ],
      campaigns: [
        {
          media_source: "meta_ads",
          campaign: "Winter",
          installs: 2,
          reinstalls: 1,
          events: 6,
          revenue_usd: 10,
          revenue_per_install: 5,
        },
        {
          media_source: "organic",
          campaign: null,
          installs: 1,
          reinstalls: 0,
          events: 3,
          revenue_usd: 2.345,
          revenue_per_install: 2.345,
        },
        {
          media_source: null,
          campaign: null,
          installs: 0,
          reinstalls: 0,
          events: 1,
          revenue_usd: 0,
          revenue_per_install: 0,
        },
      ],
      deep_link_paths: [{ deep_link_path: "/levels/7", installs: 2 }],
      countries: [
        { country: "DE", installs: 3, events: 8, revenue_usd: 12.345 },
        { country: null, installs: 0, events: 2, revenue_usd: 0 },
      ],
      revenue_events_unconverted: 2,
      revenue_unconverted: [{ currency: "VND", events: 2, amount: 250_000 }],
    });
  });

  it("fails on a result that is not the overview's rather than chart part of it", async () => {
    results.push(
      csv([
        OVERVIEW_HEADER,
        [99, ...OVERVIEW_KEYS.map(() => null), ...OVERVIEW_MEASURES.map(() => 0)],
      ]),
    );
    await expect(
      engine().overview({
        appId: APP,
        from: "2026-11-01",
        to: "2026-11-01",
        excludeServiceIds: [],
      }),
    ).rejects.toThrow(/no grouping set/);
    results.push(csv([OVERVIEW_HEADER, overviewRow("totals", {}, [1, 0, 0, "x", 0])]));
    await expect(
      engine().overview({
        appId: APP,
        from: "2026-11-01",
        to: "2026-11-01",
        excludeServiceIds: [],
      }),
    ).rejects.toThrow(/events is not a number/);
  });

  it("leaves out deleted installs through the list it puts in the results bucket", async () => {
    results.push(csv([OVERVIEW_HEADER]));
    results.push(csv([COLUMN_NAMES]));
    const ids = ["s-2", "s-1", "s-2"];
    const reports = engine();
    await reports.overview({
      appId: APP,
      from: "2026-11-01",
      to: "2026-11-01",
      excludeServiceIds: ids,
    });
    await reports.latestEvents({
      appId: APP,
      limit: 5,
      today: "2026-11-20",
      excludeServiceIds: ids,
    });
    const list = exclusionList(ids);
    expect(s3.text(BUCKET, list.key)).toBe("s-1\ns-2\n");
    expect(s3.mock.commandCalls(PutObjectCommand)).toHaveLength(2);
    for (const input of sent()) {
      expect(input.QueryString).toContain(
        `events.service_id NOT IN (SELECT service_id FROM "lake"."export_exclusions" WHERE list = '${list.list}')`,
      );
      expect(input.QueryString).toContain("= 2 THEN '1'");
    }
  });

  it("asks for the newest events of yesterday's and today's partitions, and reads them as records", async () => {
    const record = (values: Partial<ExportRecord>): ExportRecord => ({
      ...(Object.fromEntries(EXPORT_COLUMNS.map((c) => [c.name, null])) as ExportRecord),
      ...values,
    });
    const newest = record({
      event_id: "e2",
      event_time: "2026-11-20T10:00:00.000Z",
      event_name: "service_purchase",
      service_id: "s1",
      media_source: "meta_ads",
      click_to_first_open_hours: 3,
      app_id: APP,
      revenue: 4.99,
      revenue_usd: 5.4,
    });
    const older = record({ event_id: "e1", event_time: "2026-11-19T23:00:00.000Z", app_id: APP });
    results.push(
      csv([COLUMN_NAMES, ...[newest, older].map((r) => COLUMN_NAMES.map((name) => r[name]))]),
    );
    const events = await engine().latestEvents({
      appId: APP,
      limit: 50,
      today: "2026-11-20",
      excludeServiceIds: [],
    });
    expect(events).toEqual([newest, older]);
    const sql = sent()[0]?.QueryString ?? "";
    expect(sql).toContain("bounded.dt BETWEEN '2026-11-18' AND '2026-12-21'");
    expect(sql).toContain("ORDER BY event_time DESC, event_id DESC\nLIMIT 50");
    expect(sql).toContain('FROM "lake"."attributions"');
    expect(sql).not.toContain("touches");
  });

  it("fails on a result whose columns are not the export's", async () => {
    results.push(csv([["event_id"], ["e1"]]));
    await expect(
      engine().latestEvents({ appId: APP, limit: 1, today: "2026-11-20", excludeServiceIds: [] }),
    ).rejects.toThrow(/header does not match/);
  });

  it("counts link clicks with the touches table's query", async () => {
    results.push(
      csv([
        ["deeplink_id", "clicks"],
        ["Kx3v9QpZ2aQ", 12],
      ]),
    );
    const clicks = await engine().linkClicks(APP);
    expect(clicks).toEqual(new Map([["Kx3v9QpZ2aQ", 12]]));
    expect(sent()[0]?.QueryString).toContain("source = 'link' AND touch_type = 'click'");
  });

  it("names each run by its query and minute, so a retry or a reload joins it", async () => {
    results.push(csv([OVERVIEW_HEADER]), csv([OVERVIEW_HEADER]), csv([OVERVIEW_HEADER]));
    const reports = engine();
    const window = { appId: APP, from: "2026-11-01", to: "2026-11-01", excludeServiceIds: [] };
    await reports.overview(window);
    await reports.overview(window);
    await reports.overview({ ...window, to: "2026-11-02" });
    const [first, second, third] = sent().map((input) => input.ClientRequestToken);
    expect(second).toBe(first);
    expect(third).not.toBe(first);
  });

  it("runs the live figures anew each time, never from an earlier run's result", async () => {
    results.push(csv([COLUMN_NAMES]), csv([COLUMN_NAMES]), csv([["deeplink_id", "clicks"]]));
    const reports = engine();
    const today = { appId: APP, limit: 10, today: "2026-11-20", excludeServiceIds: [] };
    await reports.latestEvents(today);
    await reports.latestEvents(today);
    await reports.linkClicks(APP);
    const [first, second, clicks] = sent();
    expect(second?.ClientRequestToken).not.toBe(first?.ClientRequestToken);
    for (const input of [first, second, clicks]) {
      expect(input?.ResultReuseConfiguration?.ResultReuseByAgeConfiguration).toEqual({
        Enabled: false,
      });
    }
  });

  it("reads the cohorts query's rows, each part with its numbers, over the sessions table", async () => {
    results.push(
      csv([
        [
          "part",
          "cohort_day",
          "media_source",
          "group_key",
          "day_n",
          "installs",
          "active",
          "revenue_usd",
          "clicks",
          "impressions",
        ],
        ["installs", "2026-11-02", "meta_ads", "Winter", null, 10, 0, 0, 0, 0],
        ["days", "2026-11-02", "meta_ads", "Winter", 1, 0, 4, 2.5, 0, 0],
        ["touches", "2026-11-02", "meta_ads", null, null, 0, 0, 0, 20, 5],
      ]),
    );
    const rows = await engine().cohorts({
      appId: APP,
      from: "2026-11-02",
      to: "2026-11-02",
      groupBy: "campaign",
      filters: { country: "DE" },
      costKeys: [],
      excludeServiceIds: [],
    });
    expect(rows).toEqual([
      expect.objectContaining({ part: "installs", day_n: null, installs: 10 }),
      expect.objectContaining({ part: "days", day_n: 1, active: 4, revenue_usd: 2.5 }),
      expect.objectContaining({ part: "touches", group_key: null, clicks: 20, impressions: 5 }),
    ]);
    const query = sent()[0]?.QueryString ?? "";
    expect(query).toContain('"lake"."sessions"');
    expect(query).toContain("AND r.country = 'DE'");
  });

  it("reads the SKAdNetwork groups of the apple_postbacks table, each with its count", async () => {
    results.push(
      csv([
        [
          "ad_network_id",
          "source_identifier",
          "postback_sequence_index",
          "did_win",
          "redownload",
          "conversion_type",
          "conversion_value",
          "coarse_conversion_value",
          "verification",
          "environment",
          "identifier_field",
          "values_disputed",
          "postbacks",
        ],
        [
          "example.skadnetwork",
          "39",
          0,
          1,
          0,
          null,
          63,
          null,
          "verified",
          "production",
          "source-identifier",
          0,
          3,
        ],
        [
          "example.skadnetwork",
          "39",
          1,
          1,
          0,
          "re-engagement",
          null,
          "high",
          "unverified",
          null,
          "source-identifier",
          1,
          1,
        ],
      ]),
    );
    const groups = await engine().skadnetwork({
      appId: APP,
      from: new Date("2026-11-01T00:00:00Z"),
      to: new Date("2026-11-02T00:00:00Z"),
    });
    expect(groups).toEqual([
      {
        adNetworkId: "example.skadnetwork",
        sourceIdentifier: "39",
        identifierField: "source-identifier",
        sequenceIndex: 0,
        didWin: true,
        redownload: false,
        reengagement: false,
        conversionValue: 63,
        coarseValue: null,
        verification: { status: "verified", environment: "production" },
        valuesDisputed: false,
        postbacks: 3,
      },
      expect.objectContaining({
        sequenceIndex: 1,
        reengagement: true,
        valuesDisputed: true,
        conversionValue: null,
        coarseValue: "high",
        verification: { status: "unverified", environment: null },
      }),
    ]);
    expect(sent()[0]?.QueryString).toContain('FROM "lake"."apple_postbacks"');
  });
});

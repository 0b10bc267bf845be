/**
 * The report routes' middy chains called in process with API Gateway-shaped events: over a
 * DuckDB lake, their answers hold to the routes' contracts; over an engine in memory, what
 * each asks for, and each error's answer.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lakeAttribution, lakeEvent } from "../../../test/support/records.ts";
import { createReadWriteLock } from "../../adapters/duckdb/read-write-lock.ts";
import { createDuckDbReportEngine } from "../../adapters/duckdb/reports.ts";
import { createLocalDeliveryStream } from "../../adapters/local-stream/delivery-stream.ts";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  nullColumns,
  TOUCHES_TABLE,
} from "../../lake/lake-tables.ts";
import type { DeletionRequest } from "../../ports/deletions.ts";
import { recordingEngine } from "../../reports/recording-engine.test-support.ts";
import type { ReportsDeps } from "../../reports/reports.ts";
import { apiEvent, CONTEXT, principal } from "../api-event.test-support.ts";
import { REPORT_CONTRACTS } from "../contracts/reports.ts";
import type { HttpResponse } from "../middleware.ts";
import { createReportHandlers } from "./reports.ts";

/** An app that sets no time zone: its reports count UTC days. */
const NO_APP = { get: async () => undefined };

const APP = "com.example.game";
const json = (response: HttpResponse) => JSON.parse(String(response.body));

/** The success body schema of a report route's contract. */
const answerSchema = (route: keyof typeof REPORT_CONTRACTS) => {
  const schema = REPORT_CONTRACTS[route].success.content["application/json"];
  if (!schema) throw new Error(`${route} has no JSON answer`);
  return schema;
};

const deletions = (serviceIds: string[]): ReportsDeps["deletions"] => ({
  tombstones: async () => ({ serviceIds, version: 1 }),
  listByApp: async () => [] as DeletionRequest[],
});

type Handlers = ReturnType<typeof createReportHandlers>;
const call = (
  handler: Handlers[keyof Handlers],
  query: Record<string, string>,
  scopes: Parameters<typeof principal>[1] = ["reports"],
) => handler(apiEvent({ authorizer: principal(APP, scopes), query }), CONTEXT);

describe("the report routes over a DuckDB lake", () => {
  let dir: string;
  let duckdb: DuckDBInstance;
  let handlers: Handlers;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "report-routes-"));
    duckdb = await DuckDBInstance.create(":memory:");
    const lakeDir = join(dir, "lake");
    const walDir = join(dir, "wal");
    const records = {
      events: [
        lakeEvent({
          app_id: APP,
          event_id: "i1",
          service_id: "s1",
          event_name: "service_install",
          event_time: "2026-11-02T08:00:00.000Z",
        }),
        lakeEvent({
          app_id: APP,
          event_id: "p1",
          service_id: "s1",
          event_name: "service_purchase",
          event_time: "2026-11-02T09:00:00.000Z",
          revenue: 4.99,
          currency: "USD",
          revenue_usd: 4.99,
        }),
        lakeEvent({
          app_id: APP,
          event_id: "i2",
          service_id: "s2",
          event_name: "service_install",
          event_time: "2026-11-03T08:00:00.000Z",
        }),
        lakeEvent({
          app_id: APP,
          event_id: "i3",
          service_id: "s3",
          event_name: "service_install",
          event_time: "2026-11-03T09:00:00.000Z",
        }),
      ],
      attributions: [
        lakeAttribution({
          app_id: APP,
          service_id: "s1",
          media_source: "meta_ads",
          campaign_name: "Winter",
          matching_type: "network",
          match_status: "matched",
          click_id: "c1",
        }),
        lakeAttribution({ app_id: APP, service_id: "s2", match_status: "organic" }),
      ],
      touches: [
        {
          ...nullColumns(TOUCHES_TABLE),
          app_id: APP,
          click_id: "c1",
          touch_type: "click",
          touch_time: "2026-11-01T20:00:00.000Z",
          received_at: "2026-11-01T20:00:00.000Z",
          source: "link",
          deeplink_id: "Kx3v9QpZ2aQ",
          params: JSON.stringify({ deep_link_path: "/levels/7" }),
        },
      ],
    };
    for (const [table, rows] of [
      [EVENTS_TABLE, records.events],
      [ATTRIBUTIONS_TABLE, records.attributions],
      [TOUCHES_TABLE, records.touches],
    ] as const) {
      const stream = await createLocalDeliveryStream({ table, duckdb, lakeDir, walDir });
      await stream.put(rows);
      await stream.close();
    }
    handlers = createReportHandlers({
      engine: createDuckDbReportEngine({ duckdb, lakeDir, lakeFiles: createReadWriteLock() }),
      apps: NO_APP,
      deletions: deletions(["s3"]),
      costs: { listByApp: async () => [] },
      now: () => new Date("2026-11-03T12:00:00.000Z"),
    });
  });

  afterAll(async () => {
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers the overview as its contract describes it, deleted installs left out", async () => {
    const response = await call(handlers.overview, { from: "2026-11-01", to: "2026-11-03" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    const body = answerSchema("report-overview").parse(json(response));
    expect(body).toMatchObject({
      from: "2026-11-01",
      to: "2026-11-03",
      totals: {
        installs: 2,
        paid_installs: 1,
        organic_installs: 1,
        reinstalls: 0,
        events: 3,
        revenue_usd: 4.99,
      },
      deep_link_paths: [{ deep_link_path: "/levels/7", installs: 1 }],
      campaigns: [
        {
          media_source: "meta_ads",
          campaign: "Winter",
          installs: 1,
          events: 2,
          revenue_usd: 4.99,
          revenue_per_install: 4.99,
        },
        {
          media_source: "organic",
          campaign: null,
          installs: 1,
          events: 1,
          revenue_usd: 0,
          revenue_per_install: 0,
        },
      ],
    });
  });

  it("answers the latest events and the link clicks as their contracts describe them", async () => {
    const latest = await call(handlers.latestEvents, { limit: "2" });
    expect(latest.statusCode).toBe(200);
    const { events } = answerSchema("report-latest-events").parse(json(latest)) as {
      events: { event_id: string }[];
    };
    expect(events.map((event) => event.event_id)).toEqual(["i2", "p1"]);
    const clicks = await call(handlers.linkClicks, {});
    expect(clicks.statusCode).toBe(200);
    expect(answerSchema("report-link-clicks").parse(json(clicks))).toEqual({
      clicks: [{ deeplink_id: "Kx3v9QpZ2aQ", clicks: 1 }],
    });
  });
});

describe("the report routes' parameters and errors", () => {
  const { engine, asked } = recordingEngine();
  const handlers = createReportHandlers({
    engine,
    apps: NO_APP,
    deletions: deletions([]),
    costs: { listByApp: async () => [] },
    now: () => new Date("2026-11-20T01:00:00.000Z"),
  });

  const unprocessable = async (response: Promise<HttpResponse>, detail: string) => {
    const answer = await response;
    expect(answer.statusCode).toBe(422);
    expect(json(answer)).toEqual({ error: "Unprocessable Entity", detail });
  };

  it("answers 422 to a window that is not two days in order, at most 366 days long", async () => {
    const day = "must be a UTC day, YYYY-MM-DD";
    await unprocessable(call(handlers.overview, {}), "from: is required; to: is required");
    await unprocessable(
      call(handlers.overview, { from: "2026-11-01", to: "11/02/2026" }),
      `to: ${day}`,
    );
    await unprocessable(
      call(handlers.overview, { from: "2026-02-30", to: "2026-03-01" }),
      `from: ${day}`,
    );
    await unprocessable(
      call(handlers.overview, { from: "2026-11-02", to: "2026-11-01" }),
      "to: must be on or after `from`",
    );
    await unprocessable(
      call(handlers.overview, { from: "2024-01-01", to: "2025-01-01" }),
      "to: must end a window of at most 366 days, `from` and `to` counted",
    );
    expect(asked).toEqual([]);
    const leapYear = await call(handlers.overview, { from: "2024-01-01", to: "2024-12-31" });
    expect(leapYear.statusCode).toBe(200);
    const oneDay = await call(handlers.overview, { from: "2026-11-01", to: "2026-11-01" });
    expect(json(oneDay)).toMatchObject({ from: "2026-11-01", to: "2026-11-01" });
  });

  it("takes 50 latest events unless asked for 1 to 200", async () => {
    asked.length = 0;
    await call(handlers.latestEvents, {});
    await call(handlers.latestEvents, { limit: "200" });
    expect(asked).toEqual([
      { appId: APP, limit: 50, today: "2026-11-20", excludeServiceIds: [] },
      { appId: APP, limit: 200, today: "2026-11-20", excludeServiceIds: [] },
    ]);
    // Plain digits only: `1e1` is not 10, nor `0x5` 5.
    for (const limit of ["0", "201", "ten", "1e1", "0x5"]) {
      await unprocessable(
        call(handlers.latestEvents, { limit }),
        "limit: must be a whole number from 1 to 200",
      );
    }
  });

  it("answers 401 to a key without the reports scope, before looking at its parameters", async () => {
    for (const handler of [handlers.overview, handlers.linkClicks, handlers.latestEvents]) {
      const response = await call(handler, { from: "nope", limit: "0" }, ["links", "export"]);
      expect(response.statusCode).toBe(401);
      expect(json(response)).toMatchObject({ error: "Unauthorized" });
    }
  });

  it("answers 404 to an app_id other than the caller's app, and takes its own", async () => {
    const window = { from: "2026-11-01", to: "2026-11-02" };
    for (const [handler, query] of [
      [handlers.overview, window],
      [handlers.linkClicks, {}],
      [handlers.latestEvents, {}],
    ] as const) {
      const other = await call(handler, { ...query, app_id: "com.example.other" });
      expect(other.statusCode).toBe(404);
      expect(json(other)).toEqual({ error: "Not Found", detail: "No such app." });
      expect((await call(handler, { ...query, app_id: APP })).statusCode).toBe(200);
    }
  });
});

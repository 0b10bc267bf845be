/**
 * The report routes' parameters as a caller meets them: the window's days bounded (from the
 * epoch to tomorrow, UTC) and filters without control characters, each refused with a 422 whose
 * detail names the parameter, before any engine is asked.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cohortParamsSchema, overviewParamsSchema } from "../../reports/params.ts";
import { recordingEngine } from "../../reports/recording-engine.test-support.ts";
import { apiEvent, CONTEXT, principal } from "../api-event.test-support.ts";
import { createReportHandlers } from "./reports.ts";

/** An app that sets no time zone: its reports count UTC days. */
const NO_APP = { get: async () => undefined };

const APP = "com.example.game";
/** The service's clock in these tests: tomorrow is 2026-11-04. */
const NOW = new Date("2026-11-03T23:59:59.000Z");

const handlersAsking = () => {
  const { engine, asked } = recordingEngine();
  const handlers = createReportHandlers({
    engine,
    apps: NO_APP,
    deletions: {
      tombstones: async () => ({ serviceIds: [], version: 1 }),
      listByApp: async () => [],
    },
    costs: { listByApp: async () => [] },
    now: () => NOW,
  });
  const call = async (
    route: "overview" | "cohorts",
    query: Record<string, string>,
  ): Promise<{ statusCode: number; body: string }> => {
    const answer = await handlers[route](
      apiEvent({ authorizer: principal(APP, ["reports"]), query }),
      CONTEXT,
    );
    return { statusCode: answer.statusCode, body: String(answer.body) };
  };
  return { call, asked };
};

describe("the report parameters", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: NOW, toFake: ["Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("refuse a window of days after tomorrow (UTC) with a 422, and ask no engine", async () => {
    const { call, asked } = handlersAsking();
    for (const route of ["overview", "cohorts"] as const) {
      const far = await call(route, { from: "9999-12-01", to: "9999-12-31" });
      expect(far.statusCode).toBe(422);
      expect(JSON.parse(far.body)).toEqual({
        error: "Unprocessable Entity",
        detail:
          "from: must not be after tomorrow (2026-11-04, UTC); to: must not be after tomorrow (2026-11-04, UTC)",
      });
      const dayAfter = await call(route, { from: "2026-11-01", to: "2026-11-05" });
      expect(dayAfter.statusCode).toBe(422);
      expect(JSON.parse(dayAfter.body).detail).toBe(
        "to: must not be after tomorrow (2026-11-04, UTC)",
      );
    }
    expect(asked).toEqual([]);
  });

  it("take a window to tomorrow: a caller's day may be ahead of UTC's", async () => {
    const { call } = handlersAsking();
    const cohorts = await call("cohorts", { from: "2026-11-01", to: "2026-11-04" });
    expect(cohorts.statusCode).toBe(200);
    // Its daily active users end today (2026-11-03): tomorrow has not begun.
    expect(JSON.parse(cohorts.body).active_users.daily).toHaveLength(3);
    expect((await call("overview", { from: "2026-11-04", to: "2026-11-04" })).statusCode).toBe(200);
  });

  it("refuse days before the epoch, which no event has", () => {
    const parsed = overviewParamsSchema.safeParse({ from: "0000-01-01", to: "1970-01-01" });
    expect(parsed.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [["from"], "must not be before 1970-01-01"],
    ]);
    expect(cohortParamsSchema.safeParse({ from: "1970-01-01", to: "1970-01-31" }).success).toBe(
      true,
    );
  });

  it("refuse a parameter they do not take, listing those they do, rather than answer unfiltered", async () => {
    const { call, asked } = handlersAsking();
    const window = { from: "2026-11-01", to: "2026-11-02" };
    const overview = await call("overview", { ...window, mediasource: "meta_ads" });
    expect(overview.statusCode).toBe(422);
    expect(JSON.parse(overview.body)).toEqual({
      error: "Unprocessable Entity",
      detail:
        'query: takes no "mediasource": its parameters are app_id, from, to, media_source, campaign, country, platform',
    });
    const cohorts = await call("cohorts", { ...window, groupby: "country", Campaign: "x" });
    expect(JSON.parse(cohorts.body).detail).toBe(
      'query: takes no "groupby", "Campaign": its parameters are app_id, from, to, group_by, media_source, campaign, country, platform',
    );
    const many = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`p${i}`, "1"]));
    expect(JSON.parse((await call("overview", { ...window, ...many })).body).detail).toMatch(
      /^query: takes no "p0", "p1", "p2", "p3", "p4" and 2 more: /,
    );
    expect(asked).toEqual([]);
  });

  it("refuse a filter holding a control character with a 422 naming it", async () => {
    const { call, asked } = handlersAsking();
    const window = { from: "2026-11-01", to: "2026-11-02" };
    for (const route of ["overview", "cohorts"] as const) {
      for (const [filter, value] of [
        ["media_source", "meta\u0000ads"],
        ["campaign", "Winter\nSale"],
      ] as const) {
        const answer = await call(route, { ...window, [filter]: value });
        expect(answer.statusCode).toBe(422);
        expect(JSON.parse(answer.body)).toEqual({
          error: "Unprocessable Entity",
          detail: `${filter}: must not contain control characters`,
        });
      }
    }
    expect(asked).toEqual([]);
    // Quotes and other marks are a name's own, kept inert by the query's literals.
    const quoted = await call("cohorts", { ...window, campaign: "x'); DROP TABLE t; --\\" });
    expect(quoted.statusCode).toBe(200);
  });
  it("take a country and a platform in any case as stored, and refuse what is neither", async () => {
    const { call, asked } = handlersAsking();
    const window = { from: "2026-11-01", to: "2026-11-02" };
    for (const route of ["overview", "cohorts"] as const) {
      for (const [filter, value, detail] of [
        ["country", "Germany", "must be a two-letter country code (ISO 3166-1 alpha-2)"],
        ["country", "D\u007fE", "must be a two-letter country code (ISO 3166-1 alpha-2)"],
        ["platform", "web", "must be android or ios"],
        ["platform", "ios\u0085", "must be android or ios"],
      ] as const) {
        const answer = await call(route, { ...window, [filter]: value });
        expect(answer.statusCode).toBe(422);
        expect(JSON.parse(answer.body)).toEqual({
          error: "Unprocessable Entity",
          detail: `${filter}: ${detail}`,
        });
      }
      expect(asked).toEqual([]);
      // `de` and `iOS` would match nothing as given: they are `DE` and `ios`.
      const answer = await call(route, { ...window, country: "de", platform: "iOS" });
      expect(answer.statusCode).toBe(200);
      expect(asked.pop()).toMatchObject({ filters: { country: "DE", platform: "ios" } });
    }
  });
});

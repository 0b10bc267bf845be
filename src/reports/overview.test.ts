import { describe, expect, it } from "vitest";
import { overviewReport, overviewRowOf } from "./overview.ts";
import { groupingIdOf, OVERVIEW_SETS } from "./queries.ts";

const row = (
  set: keyof typeof OVERVIEW_SETS,
  values: Record<string, unknown>,
): Record<string, unknown> => ({
  grouping_id: BigInt(groupingIdOf(OVERVIEW_SETS[set])),
  installs: 0n,
  paid_installs: 0n,
  organic_installs: 0n,
  reinstalls: 0n,
  events: 0n,
  revenue_usd: 0,
  revenue_events_unconverted: 0n,
  revenue_unconverted: 0,
  ...values,
});

describe("the overview's answer", () => {
  it("reads DuckDB's values and Athena's text alike", () => {
    const fromDuckDb = overviewRowOf(
      row("campaigns", { media_source: "x", installs: 2n, revenue_usd: 1.5 }),
    );
    const fromAthena = overviewRowOf({
      ...row("campaigns", {}),
      grouping_id: String(groupingIdOf(OVERVIEW_SETS.campaigns)),
      media_source: "x",
      installs: "2",
      paid_installs: "0",
      organic_installs: "0",
      reinstalls: "0",
      events: "0",
      revenue_usd: "1.5E0",
      revenue_events_unconverted: "0",
      revenue_unconverted: "0.0",
    });
    expect(fromAthena).toEqual(fromDuckDb);
    expect(fromDuckDb).toMatchObject({
      set: "campaigns",
      media_source: "x",
      campaign: null,
      installs: 2,
    });
    expect(() => overviewRowOf(row("totals", { events: "" }))).toThrow(/events is not a number/);
    expect(() => overviewRowOf(row("totals", { events: null }))).toThrow(/events is not a number/);
  });

  it("rounds money to a millionth, and a campaign without installs earns 0 per install", () => {
    const report = overviewReport({ from: "2026-11-01", to: "2026-11-01" }, [
      overviewRowOf(row("totals", { installs: 3n, events: 5n, revenue_usd: 0.1 + 0.2 })),
      overviewRowOf(row("revenue_by_day", { day: "2026-11-01", revenue_usd: 0.1 + 0.2 })),
      overviewRowOf(row("campaigns", { media_source: "a", installs: 3n, revenue_usd: 1 })),
      overviewRowOf(row("campaigns", { media_source: "b", events: 2n, revenue_usd: 4 })),
    ]);
    expect(report.totals.revenue_usd).toBe(0.3);
    expect(report.revenue_by_day).toEqual([{ date: "2026-11-01", revenue_usd: 0.3 }]);
    expect(report.campaigns.map((c) => [c.media_source, c.revenue_per_install])).toEqual([
      ["a", 0.333333],
      ["b", 0],
    ]);
  });

  it("lists campaigns most installs first, then most revenue, then by name", () => {
    const report = overviewReport({ from: "2026-11-01", to: "2026-11-01" }, [
      overviewRowOf(row("campaigns", { media_source: "a", installs: 2n, revenue_usd: 1 })),
      overviewRowOf(row("campaigns", { media_source: "b", installs: 2n, revenue_usd: 5 })),
      overviewRowOf(row("campaigns", { media_source: "c", installs: 3n, revenue_usd: 0 })),
      overviewRowOf(row("campaigns", { media_source: "d", installs: 2n, revenue_usd: 5 })),
    ]);
    expect(report.campaigns.map((c) => c.media_source)).toEqual(["c", "b", "d", "a"]);
  });

  it("lists deep link paths most installs first", () => {
    const paths = Array.from({ length: 10 }, (_, i) =>
      overviewRowOf(row("deep_link_paths", { deep_link_path: `/p${i}`, installs: BigInt(i + 1) })),
    );
    const report = overviewReport({ from: "2026-11-01", to: "2026-11-01" }, paths);
    expect(report.deep_link_paths.map((p) => p.deep_link_path)).toEqual(
      Array.from({ length: 10 }, (_, i) => `/p${9 - i}`),
    );
  });

  it("says how many revenue events no rate converted, per currency, most first", () => {
    const report = overviewReport({ from: "2026-11-01", to: "2026-11-01" }, [
      overviewRowOf(row("totals", { events: 9n, revenue_usd: 5, revenue_events_unconverted: 3n })),
      // Converted events' rows of the set name no currency.
      overviewRowOf(row("revenue_unconverted", { events: 6n, revenue_usd: 5 })),
      // A currency whose every event a rate converted.
      overviewRowOf(row("revenue_unconverted", { currency: "EUR", events: 4n, revenue_usd: 2 })),
      overviewRowOf(
        row("revenue_unconverted", {
          currency: "TWD",
          events: 1n,
          revenue_events_unconverted: 1n,
          revenue_unconverted: 300,
        }),
      ),
      overviewRowOf(
        row("revenue_unconverted", {
          currency: "VND",
          events: 2n,
          revenue_events_unconverted: 2n,
          revenue_unconverted: 350_000.0000001,
        }),
      ),
    ]);
    expect(report.revenue_events_unconverted).toBe(3);
    expect(report.revenue_unconverted).toEqual([
      { currency: "VND", events: 2, amount: 350_000 },
      { currency: "TWD", events: 1, amount: 300 },
    ]);
    expect(overviewReport({ from: "2026-11-01", to: "2026-11-01" }, [])).toMatchObject({
      revenue_events_unconverted: 0,
      revenue_unconverted: [],
    });
  });
});

describe("the overview's order", () => {
  it("lists each chart's rows in its order, a missing name after the others, rows of no install left out", () => {
    const report = overviewReport({ from: "2026-11-01", to: "2026-11-02" }, [
      overviewRowOf(row("totals", { installs: 9n, organic_installs: 4n })),
      overviewRowOf(row("installs_by_day", { day: "2026-11-02", media_source: "b", installs: 3n })),
      overviewRowOf(
        row("installs_by_day", { day: "2026-11-01", media_source: null, installs: 2n }),
      ),
      overviewRowOf(row("installs_by_day", { day: "2026-11-01", media_source: "c", installs: 2n })),
      overviewRowOf(row("installs_by_day", { day: "2026-11-01", media_source: "a", installs: 1n })),
      overviewRowOf(row("installs_by_day", { day: "2026-11-01", media_source: "z", installs: 0n })),
      overviewRowOf(row("match_status", { status: "organic", installs: 4n })),
      overviewRowOf(row("match_status", { status: "matched", installs: 4n })),
      overviewRowOf(row("match_status", { status: "skipped", installs: 5n })),
      overviewRowOf(row("match_method", { method: "referrer", installs: 1n })),
      overviewRowOf(row("match_method", { method: "click_id", installs: 3n })),
      overviewRowOf(row("events_by_day", { day: "2026-11-02", event_name: "a", events: 9n })),
      overviewRowOf(row("events_by_day", { day: "2026-11-01", event_name: "b", events: 1n })),
      overviewRowOf(row("events_by_day", { day: "2026-11-01", event_name: "c", events: 1n })),
      overviewRowOf(row("events_by_day", { day: "2026-11-01", event_name: "d", events: 2n })),
      overviewRowOf(row("revenue_by_day", { day: "2026-11-02", revenue_usd: 1 })),
      overviewRowOf(row("revenue_by_day", { day: "2026-11-01", revenue_usd: 2 })),
      overviewRowOf(row("countries", { country: null, installs: 1n })),
      overviewRowOf(row("countries", { country: "FR", installs: 1n, events: 3n })),
      overviewRowOf(row("countries", { country: "DE", installs: 1n })),
      overviewRowOf(row("countries", { country: "US", installs: 2n })),
    ]);
    expect(report.totals).toMatchObject({ installs: 9, organic_installs: 4, paid_installs: 0 });
    expect(report.installs_by_day.map((r) => [r.date, r.media_source, r.installs])).toEqual([
      ["2026-11-01", "c", 2],
      ["2026-11-01", null, 2],
      ["2026-11-01", "a", 1],
      ["2026-11-02", "b", 3],
    ]);
    expect(report.match_status.map((r) => r.status)).toEqual(["skipped", "matched", "organic"]);
    expect(report.match_method.map((r) => r.method)).toEqual(["click_id", "referrer"]);
    expect(report.events_by_day.map((r) => [r.date, r.event_name])).toEqual([
      ["2026-11-01", "d"],
      ["2026-11-01", "b"],
      ["2026-11-01", "c"],
      ["2026-11-02", "a"],
    ]);
    expect(report.revenue_by_day.map((r) => r.date)).toEqual(["2026-11-01", "2026-11-02"]);
    expect(report.countries.map((r) => r.country)).toEqual(["US", "FR", "DE", null]);
  });

  it("refuses a row of no chart, and a chart's row without its key", () => {
    expect(() => overviewRowOf({ ...row("totals", {}), grouping_id: 12345n })).toThrow(
      "overview result row of no grouping set: 12345",
    );
    expect(() =>
      overviewReport({ from: "2026-11-01", to: "2026-11-01" }, [
        overviewRowOf(row("installs_by_day", { installs: 1n })),
      ]),
    ).toThrow("overview installs_by_day row without its day");
  });
});

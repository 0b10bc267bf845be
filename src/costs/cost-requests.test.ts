import { describe, expect, it } from "vitest";
import { INGEST_LIMITS } from "../ingest/limits.ts";
import {
  COST_BODY_BYTES,
  COST_LIMITS,
  type CostVersion,
  costCellValue,
  costDayProblem,
  costMatchKeyOf,
  costPages,
  latestOfEachSpend,
} from "./cost-requests.ts";

const bodyBytes = (page: readonly unknown[]) =>
  Buffer.byteLength(JSON.stringify({ rows: page }), "utf8");

describe("the pages of a cost upload", () => {
  it("are at most the route's body limit, however long the names, and the rows in order", () => {
    expect(COST_BODY_BYTES).toBe(INGEST_LIMITS.maxBodyBytes);
    // 120 characters of three bytes each, in three names: some 1,100 bytes a row.
    const long = "広告キャンペーン".repeat(15);
    const rows = Array.from({ length: 2_500 }, (_, n) => ({
      day: "2026-11-27",
      media_source: "net",
      campaign_id: `c${n}`,
      campaign_name: `${long}${n}`,
      adset_name: `${long}${n}`,
      ad_name: `${long}${n}`,
      amount: 1.5,
      currency: "USD",
    }));
    const pages = costPages(rows, (row) => row);
    for (const page of pages) {
      expect(bodyBytes(page)).toBeLessThanOrEqual(INGEST_LIMITS.maxBodyBytes);
      expect(page.length).toBeLessThanOrEqual(COST_LIMITS.maxRows);
    }
    // Not 1,000 rows a page: that body would be over the limit.
    expect(bodyBytes(rows.slice(0, COST_LIMITS.maxRows))).toBeGreaterThan(COST_BODY_BYTES);
    expect(pages.flat()).toEqual(rows);
  });

  it("fill a page up to the limit exactly, and to 1,000 rows of short ones", () => {
    const short = Array.from({ length: 2_001 }, (_, n) => ({ n }));
    expect(costPages(short, (row) => row).map((page) => page.length)).toEqual([1_000, 1_000, 1]);
    // Two rows whose body is the limit to the byte share a page; a byte more parts them.
    const frame = bodyBytes([]);
    const half = (COST_BODY_BYTES - frame - 1) / 2;
    const row = (size: number) => "x".repeat(size - 2);
    expect(bodyBytes([row(half), row(half)])).toBe(COST_BODY_BYTES);
    expect(costPages([row(half), row(half)], (r) => r)).toHaveLength(1);
    expect(costPages([row(half), row(half + 1)], (r) => r)).toHaveLength(2);
  });

  it("measure the body as sent: each row as its sender gives it", () => {
    const pages = costPages(
      Array.from({ length: 3 }, (_, n) => ({ n, body: "y".repeat(COST_BODY_BYTES / 2) })),
      (row) => row.body,
    );
    expect(pages.map((page) => page.map((row) => row.n))).toEqual([[0], [1], [2]]);
  });
});

describe("the pages of a cost upload, at their ends", () => {
  it("are none for no rows, and one of its own for a row too large for any body", () => {
    expect(costPages([], (row) => row)).toEqual([]);
    const huge = "z".repeat(COST_BODY_BYTES);
    expect(costPages([huge], (row) => row)).toEqual([[huge]]);
    expect(costPages(["a", huge, "b"], (row) => row)).toEqual([["a"], [huge], ["b"]]);
  });
});

describe("the spend a cost row is of", () => {
  const version = (overrides: Partial<CostVersion> = {}): CostVersion => ({
    day: "2026-11-27",
    mediaSource: "net",
    campaignId: "c1",
    adsetId: null,
    adsetName: null,
    adId: null,
    adName: null,
    country: null,
    receivedAt: "2026-11-28T10:00:00.000Z",
    ...overrides,
  });

  it("tells an ad set or ad by its id from one named the same", () => {
    for (const [byId, byName] of [
      [{ adsetId: "summer" }, { adsetName: "summer" }],
      [{ adId: "summer" }, { adName: "summer" }],
    ] as const) {
      expect(costMatchKeyOf(version(byId))).not.toBe(costMatchKeyOf(version(byName)));
    }
    // A name, whatever its case, is one ad set.
    expect(costMatchKeyOf(version({ adsetName: "Summer" }))).toBe(
      costMatchKeyOf(version({ adsetName: "summer" })),
    );
  });

  it("is the row received last, and of two received at once, the later listed", () => {
    const first = { n: 1, ...version({ receivedAt: "2026-11-28T10:00:00.000Z" }) };
    const sameTime = { n: 2, ...version({ receivedAt: "2026-11-28T10:00:00.000Z" }) };
    const earlier = { n: 3, ...version({ receivedAt: "2026-11-28T09:00:00.000Z" }) };
    const latestOf = (rows: readonly (CostVersion & { n: number })[]) =>
      [...latestOfEachSpend(rows, (row) => row).values()].map((row) => row.n);
    expect(latestOf([first, sameTime])).toEqual([2]);
    expect(latestOf([sameTime, first])).toEqual([1]);
    expect(latestOf([first, earlier])).toEqual([1]);
    expect(latestOf([first, { ...earlier, campaignId: "c2" }])).toEqual([1, 3]);
  });
});

describe("the days a cost row may be of", () => {
  const now = new Date("2026-11-29T23:59:59Z");
  it("are the 90 days before today and up to tomorrow, UTC: an app's today may be ahead", () => {
    expect(costDayProblem("2026-11-29", now)).toBeUndefined();
    expect(costDayProblem("2026-11-30", now)).toBeUndefined();
    expect(costDayProblem("2026-08-31", now)).toBeUndefined();
    expect(costDayProblem("2026-12-01", now)).toBe("must not be after tomorrow (2026-11-30, UTC)");
    expect(costDayProblem("2026-08-30", now)).toBe("must be within 90 days (from 2026-08-31)");
  });
});

describe("a CSV cell as a cost row takes it", () => {
  it("reads a plain decimal in a number column as a number", () => {
    for (const column of ["amount", "impressions", "clicks"]) {
      expect(
        ["12", "12.5", ".5", "+3", "-2", "007"].map((cell) => costCellValue(column, cell)),
      ).toEqual([12, 12.5, 0.5, 3, -2, 7]);
    }
  });

  it("keeps any other number Number() would read as text, for the row's schema to refuse", () => {
    const cells = ["0x10", "0b101", "0o17", "1e3", "1.8E+05", "12.", "Infinity", "1,000", " ", "-"];
    expect(cells.map((cell) => costCellValue("amount", cell))).toEqual(cells);
  });

  it("keeps the cells of other columns as text, digits or not", () => {
    expect(costCellValue("campaign_id", "123")).toBe("123");
    expect(costCellValue("day", "2026-11-27")).toBe("2026-11-27");
  });
});

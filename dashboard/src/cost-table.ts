/**
 * The Cost page's table of stored cost rows, as it shows them and its CSV holds them, cell for
 * cell: a row per cost row and a total row. The total is of the rows the reports count, by the
 * service's own rule (src/costs/cost-requests.ts's standingCostRows): a spend sent again under
 * another spelling of its names is listed twice, and counted once, at its latest.
 */
import {
  type CostVersion,
  costMatchKeyOf,
  isTakenBack,
  latestOfEachSpend,
} from "../../src/costs/cost-requests.ts";
import type { CostRow } from "./api.ts";
import { costRowKey } from "./cost-key.ts";
import { formatCount, formatKnownUsd, formatTime, UNKNOWN } from "./format.ts";
import type { TextTable } from "./text-table.ts";

/** A listed row as the service tells the versions of one spend apart. */
const versionOf = (row: CostRow): CostVersion => ({
  day: row.day,
  mediaSource: row.media_source,
  campaignId: row.campaign_id,
  adsetId: row.adset_id,
  adsetName: row.adset_name,
  adId: row.ad_id,
  adName: row.ad_name,
  country: row.country,
  receivedAt: row.received_at,
});

/**
 * Whether the reports count a listed row: `counted`; `replaced`, when a later row of its spend
 * (its names spelt otherwise) stands for it; `taken back`, when the latest of its spend has
 * amount 0.
 */
export type CostRowCount = "counted" | "replaced" | "taken back";

export const costRowCounts = (rows: readonly CostRow[]): Map<CostRow, CostRowCount> => {
  const latest = latestOfEachSpend(rows, versionOf);
  return new Map(
    rows.map((row) => {
      const last = latest.get(costMatchKeyOf(versionOf(row))) ?? row;
      return [row, isTakenBack(last) ? "taken back" : last === row ? "counted" : "replaced"];
    }),
  );
};

/** The rows the reports count whose amount no rate converts: those the cohorts' cost lacks. */
export const costRowsUnconverted = (rows: readonly CostRow[]): number => {
  const counts = costRowCounts(rows);
  return rows.filter((row) => counts.get(row) === "counted" && row.amount_usd === null).length;
};

export const rowsWord = (count: number) => `${formatCount(count)} ${count === 1 ? "row" : "rows"}`;

const formatKnownCount = (value: number | null) => (value === null ? UNKNOWN : formatCount(value));

const count = (value: number | null) => (value === null ? "" : formatCount(value));
const amount = new Intl.NumberFormat("en-US", { maximumFractionDigits: 6 });

export const costTable = (rows: readonly CostRow[]): TextTable => {
  const counts = costRowCounts(rows);
  const counted = rows.filter((row) => counts.get(row) === "counted");
  const sum = (of: (row: CostRow) => number | null) =>
    counted.reduce((total, row) => total + (of(row) ?? 0), 0);
  /**
   * Null when no row counted has the figure: rows none of whose currency converts total "—",
   * not $0, and rows none of which reports impressions total "—", not 0.
   */
  const knownSum = (of: (row: CostRow) => number | null) =>
    counted.some((row) => of(row) !== null) ? sum(of) : null;
  /** A row the reports do not count says why beside when it was received. */
  const received = (row: CostRow) => {
    const count = counts.get(row) ?? "counted";
    return `${formatTime(row.received_at)}${count === "counted" ? "" : ` (${count})`}`;
  };
  return {
    head: [
      "Day",
      "Media source",
      "Campaign id",
      "Campaign name",
      "Ad set id",
      "Ad set name",
      "Ad id",
      "Ad name",
      "Country",
      "Amount",
      "Currency",
      "Amount USD",
      "Impressions",
      "Clicks",
      "Received",
    ],
    body: rows.map((row) => ({
      key: costRowKey(row),
      cells: [
        row.day,
        row.media_source,
        row.campaign_id,
        row.campaign_name ?? "",
        row.adset_id ?? "",
        row.adset_name ?? "",
        row.ad_id ?? "",
        row.ad_name ?? "",
        row.country ?? "",
        amount.format(row.amount),
        row.currency,
        formatKnownUsd(row.amount_usd),
        count(row.impressions),
        count(row.clicks),
        received(row),
      ],
    })),
    foot: [
      "Total",
      counted.length === rows.length
        ? rowsWord(rows.length)
        : `${rowsWord(rows.length)}, ${formatCount(counted.length)} counted`,
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      formatKnownUsd(knownSum((row) => row.amount_usd)),
      // Impressions and clicks are reported by some networks only: rows none of which has them
      // total "—", as their own cells are empty, not a count of 0.
      formatKnownCount(knownSum((row) => row.impressions)),
      formatKnownCount(knownSum((row) => row.clicks)),
      "",
    ],
    numeric: [
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      true,
      false,
      true,
      true,
      true,
      false,
    ],
  };
};

/**
 * The Cost page's table of stored cost rows, as it shows them and its CSV holds them, cell for
 * cell: a row per cost row and a total row.
 */
import type { CostRow } from "./api.ts";
import { costRowKey } from "./cost-key.ts";
import { formatCount, formatKnownUsd, formatTime, UNKNOWN } from "./format.ts";
import type { TextTable } from "./text-table.ts";

export const rowsWord = (count: number) => `${formatCount(count)} ${count === 1 ? "row" : "rows"}`;

const formatKnownCount = (value: number | null) => (value === null ? UNKNOWN : formatCount(value));

const count = (value: number | null) => (value === null ? "" : formatCount(value));
const amount = new Intl.NumberFormat("en-US", { maximumFractionDigits: 6 });

export const costTable = (rows: readonly CostRow[]): TextTable => {
  const sum = (of: (row: CostRow) => number | null) =>
    rows.reduce((total, row) => total + (of(row) ?? 0), 0);
  /**
   * Null when no row has the figure: rows none of whose currency converts total "—", not $0,
   * and rows none of which reports impressions total "—", not 0.
   */
  const knownSum = (of: (row: CostRow) => number | null) =>
    rows.some((row) => of(row) !== null) ? sum(of) : null;
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
        formatTime(row.received_at),
      ],
    })),
    foot: [
      "Total",
      rowsWord(rows.length),
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

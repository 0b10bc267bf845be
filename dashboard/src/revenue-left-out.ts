/**
 * The line the Overview and Cohorts pages show under their revenue when some of it is left out:
 * events whose currency no rate of their day converts to US dollars are in no revenue figure, and
 * a page that said nothing would show a smaller revenue as though it were all.
 */
import { formatCount } from "./format.ts";

/** What a report says it left out (the overview's and the cohorts' answers alike). */
export interface RevenueLeftOut {
  readonly revenue_events_unconverted: number;
  readonly revenue_unconverted: readonly {
    readonly currency: string;
    readonly events: number;
    readonly amount: number;
  }[];
}

/** Amounts in their own currency, to the last digit the report gives: "7.5 KWD". */
const currencyAmount = new Intl.NumberFormat("en-US", { maximumFractionDigits: 6 });

/** Whose revenue each page shows, and which of its figures lack the events left out. */
const WORDS = {
  overview: { of: "this range", from: "its revenue" },
  cohorts: { of: "these installs", from: "revenue, ARPU and ROAS" },
} as const;

/** The line, or null when no revenue event is left out. */
export const unconvertedRevenueLine = (
  report: RevenueLeftOut,
  page: keyof typeof WORDS,
): string | null => {
  const events = report.revenue_events_unconverted ?? 0;
  if (events <= 0) return null;
  const { of, from } = WORDS[page];
  const amounts = (report.revenue_unconverted ?? [])
    .map(({ currency, amount }) => `${currencyAmount.format(amount)} ${currency}`)
    .join("; ");
  return events === 1
    ? `1 revenue event of ${of} is left out of ${from}: no rate of its day converts its currency to US dollars (${amounts}).`
    : `${formatCount(events)} revenue events of ${of} are left out of ${from}: no rate of their day converts their currency to US dollars (${amounts}).`;
};

/**
 * The Cohorts table's column of the revenue events each row's revenue lacks, when any row lacks
 * some (none otherwise: most apps' revenue all converts): a column of its own, so that the
 * table's CSV keeps the revenue a figure.
 */
export const leftOutColumn = (
  rows: readonly { readonly revenue_events_unconverted?: number }[],
): { readonly head: string; readonly cell: (row: (typeof rows)[number]) => string } | null =>
  rows.some((row) => (row.revenue_events_unconverted ?? 0) > 0)
    ? {
        head: "Revenue events left out",
        cell: (row) => formatCount(row.revenue_events_unconverted ?? 0),
      }
    : null;

/**
 * A table the page shows as text and downloads as CSV, cell for cell (the Cohorts and Cost
 * pages' tables), apart from its view (components/text-table.tsx) so that the tables' makers
 * are plain functions, held to their rules without a browser.
 */

/** A table as text, header first: what the page shows and its CSV holds, cell for cell. */
export interface TextTable {
  readonly head: string[];
  readonly body: { key: string; cells: string[] }[];
  readonly foot: string[];
  /** Which columns hold numbers (set right). */
  readonly numeric: boolean[];
}

/** The table's records for saveCsv: the header, the rows, the total row. */
export const csvOf = (table: TextTable): string[][] => [
  table.head,
  ...table.body.map((row) => row.cells),
  table.foot,
];

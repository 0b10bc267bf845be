/**
 * A table the page shows as text and downloads as CSV, cell for cell (the Cohorts and Cost
 * pages' tables): its header, its rows (the first cell of each the row's header) and a total
 * row, and the *Download CSV* button beside it.
 */
import { UNKNOWN } from "../format.ts";
import type { TextTable } from "../text-table.ts";
import { TableScroll } from "./page.tsx";

export { csvOf, type TextTable } from "../text-table.ts";

/** "Download CSV", named for screen readers by what it saves. */
export function DownloadCsv(props: { of: string; onDownload: () => void }) {
  return (
    <button type="button" class="secondary" onClick={props.onDownload}>
      Download CSV<span class="visually-hidden"> of {props.of}</span>
    </button>
  );
}

export function TextTableView(props: { table: TextTable; label: string; testId: string }) {
  const { table } = props;
  const cellClass = (index: number, text: string) =>
    [table.numeric[index] ? "num" : "", text === UNKNOWN ? "unknown" : ""].join(" ").trim() ||
    undefined;
  return (
    <TableScroll label={props.label}>
      <table class="text-table" aria-label={props.label} data-testid={props.testId}>
        <thead>
          <tr>
            {table.head.map((text, index) => (
              <th key={text || index} scope="col" class={table.numeric[index] ? "num" : undefined}>
                {text}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.body.map((row) => (
            <tr key={row.key}>
              {row.cells.map((text, index) =>
                index === 0 ? (
                  <th key={index} scope="row">
                    {text}
                  </th>
                ) : (
                  <td key={index} class={cellClass(index, text)}>
                    {text}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            {table.foot.map((text, index) =>
              index === 0 ? (
                <th key={index} scope="row">
                  {text}
                </th>
              ) : (
                <td key={index} class={cellClass(index, text)}>
                  {text}
                </td>
              ),
            )}
          </tr>
        </tfoot>
      </table>
    </TableScroll>
  );
}

/**
 * The report filters' choices for a range, asked once the page's own figures are in, so that
 * the report the person waits for does not share the service with the reports the choices
 * come from (an unfiltered page's own report is one of them, asked once: ./report-cache.ts).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { type FilterOptions, NO_OPTIONS } from "./components/report-filters.tsx";

export interface ReportRange {
  readonly from: string;
  readonly to: string;
}

/**
 * `range` null: none that can be asked. `ready`: the page's own answer is in (or failed).
 * `choicesOf` asks the range's unfiltered reports for them.
 */
export const useFilterOptions = (
  appId: string,
  range: ReportRange | null,
  ready: boolean,
  choicesOf: (appId: string, range: ReportRange) => Promise<FilterOptions>,
): FilterOptions => {
  const [options, setOptions] = useState<FilterOptions>(NO_OPTIONS);
  // The asking function changes with every render; the app and the range are what ask again.
  const asker = useRef(choicesOf);
  asker.current = choicesOf;
  const from = range?.from;
  const to = range?.to;
  useEffect(() => {
    setOptions(NO_OPTIONS);
    if (from === undefined || to === undefined || !ready) return;
    let current = true;
    asker.current(appId, { from, to }).then(
      (choices) => {
        if (current) setOptions(choices);
      },
      // Without them the selects offer what is chosen, and "All".
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [appId, from, to, ready]);
  return options;
};

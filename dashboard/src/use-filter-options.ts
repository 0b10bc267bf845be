/**
 * The report filters' choices for a range, asked once the page's own figures are in, so that
 * the report the person waits for does not share the service with the reports the choices
 * come from (an unfiltered page's own report is one of them, asked once: ./report-cache.ts).
 * Kept while the range stays: a filter chosen changes the figures, not the choices.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { type FilterOptions, NO_OPTIONS } from "./components/report-filters.tsx";

export interface ReportRange {
  readonly from: string;
  readonly to: string;
  /** The time zone the page counts the days in, as the app list says (the reports' cache key). */
  readonly zone: string;
}

/**
 * `range` null: none that can be asked. `ready`: the answer to the page's own question is in
 * (or its refusal). `choicesOf` asks the range's unfiltered reports for them.
 */
export const useFilterOptions = (
  appId: string,
  range: ReportRange | null,
  ready: boolean,
  choicesOf: (appId: string, range: ReportRange) => Promise<FilterOptions>,
): FilterOptions => {
  const [loaded, setLoaded] = useState<{ of: string; options: FilterOptions } | null>(null);
  // The asking function changes with every render; the app and the range are what ask again.
  const asker = useRef(choicesOf);
  asker.current = choicesOf;
  const wanted = range === null ? null : JSON.stringify([appId, range.from, range.to, range.zone]);
  const askNow = wanted !== null && ready && loaded?.of !== wanted;
  useEffect(() => {
    if (!askNow || wanted === null) return;
    const [app, from, to, zone] = JSON.parse(wanted) as [string, string, string, string];
    let current = true;
    asker.current(app, { from, to, zone }).then(
      (options) => {
        if (current) setLoaded({ of: wanted, options });
      },
      // Without them the selects offer what is chosen, and "All".
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [askNow, wanted]);
  return loaded !== null && loaded.of === wanted ? loaded.options : NO_OPTIONS;
};

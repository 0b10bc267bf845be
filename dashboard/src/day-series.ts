/**
 * The overview's per-day charts as series: one value per day of the range per key, the keys
 * ranked by their total. A series is keyed by what the report stores (a media source, an event
 * name), never by the words it is shown in, which two stored values may share.
 */
import type { Overview } from "./api.ts";
import { daysBetween } from "./format.ts";
import { eventLabels } from "./words.ts";

export interface DaySeries<K> {
  /** The range's days, in order. */
  readonly days: string[];
  /** The series' keys, the largest total first. */
  readonly names: K[];
  readonly series: Map<K, number[]>;
}

/** Series of per-day figures: one value per day of the range per key. */
export const seriesByDay = <R, K>(
  range: { from: string; to: string },
  rows: readonly R[],
  day: (row: R) => string,
  key: (row: R) => K,
  value: (row: R) => number,
): DaySeries<K> => {
  const days = daysBetween(range.from, range.to);
  const index = new Map(days.map((d, i) => [d, i]));
  const series = new Map<K, number[]>();
  for (const row of rows) {
    const at = index.get(day(row).slice(0, 10));
    if (at === undefined) continue;
    const name = key(row);
    let values = series.get(name);
    if (!values) {
      values = days.map(() => 0);
      series.set(name, values);
    }
    values[at] = (values[at] ?? 0) + value(row);
  }
  const total = (values: number[]) => values.reduce((sum, v) => sum + v, 0);
  const names = [...series.keys()].sort(
    (a, b) => total(series.get(b) ?? []) - total(series.get(a) ?? []),
  );
  return { days, names, series };
};

/**
 * The events per day, a series per stored event name (null: events without one), each labelled
 * by its word, or by its word and stored name where two names read the same word.
 */
export const eventSeries = (
  data: Pick<Overview, "from" | "to" | "events_by_day">,
): DaySeries<string | null> & { readonly labels: Map<string | null, string> } => {
  const built = seriesByDay(
    data,
    data.events_by_day,
    (row) => row.date,
    (row) => row.event_name,
    (row) => row.events,
  );
  return { ...built, labels: eventLabels(built.names) };
};

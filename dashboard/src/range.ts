/**
 * A report's range of days (`YYYY-MM-DD`, both included) and the range shown when the address
 * names none: no markup, so that the report helpers and their tests take it without the range's
 * form (./components/date-range.tsx).
 */
import { addDays, today } from "./format.ts";

export type Range = { from: string; to: string };

/** The last 7 days, today (UTC unless given) included. */
export const defaultRange = (last: string = today()): Range => ({
  from: addDays(last, -6),
  to: last,
});

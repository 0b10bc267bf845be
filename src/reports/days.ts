/** UTC days as the reports name them (`YYYY-MM-DD`, the lake's `dt`), and their arithmetic. */
import { DAY_MS } from "../domain/time.ts";

/** The UTC day of a moment. */
export const dayOf = (moment: Date): string => moment.toISOString().slice(0, 10);

/** Midnight UTC at the start of a day. */
export const startOfDay = (day: string): Date => new Date(`${day}T00:00:00.000Z`);

/** The day `days` after `day` (before it when negative). */
export const addDays = (day: string, days: number): string =>
  dayOf(new Date(startOfDay(day).getTime() + days * DAY_MS));

/** How many days from `from` to `to`, both included (0 when `to` is before `from`). */
export const daysSpanned = (from: string, to: string): number =>
  Math.max(0, Math.round((startOfDay(to).getTime() - startOfDay(from).getTime()) / DAY_MS) + 1);

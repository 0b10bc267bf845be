/** UTC days as the reports name them (`YYYY-MM-DD`, the lake's `dt`), and their arithmetic. */
import { DAY_MS } from "../domain/time.ts";

/** The UTC day of a moment. */
export const dayOf = (moment: Date): string => moment.toISOString().slice(0, 10);

/** Midnight UTC at the start of a day. */
export const startOfDay = (day: string): Date => new Date(`${day}T00:00:00.000Z`);

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `day` is a real calendar day `YYYY-MM-DD` (2026-02-30 is not: Date rolls it over). */
export const isUtcDay = (day: string): boolean =>
  DAY.test(day) && !Number.isNaN(startOfDay(day).getTime()) && dayOf(startOfDay(day)) === day;

/**
 * The day `days` after `day` (before it when negative). A result outside years 0000 to 9999 is
 * no `YYYY-MM-DD` (`+010000-01-01` sorts before `9999-12-31`, so a loop to that day would never
 * end): it is an error, not a day.
 */
export const addDays = (day: string, days: number): string => {
  const moment = new Date(startOfDay(day).getTime() + days * DAY_MS);
  const result = Number.isNaN(moment.getTime()) ? "" : dayOf(moment);
  if (!DAY.test(result)) {
    throw new RangeError(`${days} days after ${day} is no UTC day YYYY-MM-DD`);
  }
  return result;
};

/** How many days from `from` to `to`, both included (0 when `to` is before `from`). */
export const daysSpanned = (from: string, to: string): number =>
  Math.max(0, Math.round((startOfDay(to).getTime() - startOfDay(from).getTime()) / DAY_MS) + 1);

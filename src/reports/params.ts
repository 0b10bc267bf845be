/** The report routes' query parameters, parsed once with zod: the handlers' and the contract's. */
import * as z from "zod";
import { dayOf, daysSpanned, startOfDay } from "./days.ts";

export const REPORT_LIMITS = {
  /** The longest overview window, in days, both ends counted: a leap year. */
  maxDays: 366,
  /** The latest events' page size. */
  defaultLimit: 50,
  maxLimit: 200,
} as const;

/**
 * The app the report is about. A key (or a session) acts for one app: naming another is a 404,
 * as an app the caller may not see is.
 */
const appIdParam = z
  .string()
  .optional()
  .meta({ description: "The app; optional, and when given it must be the caller's app." });

const day = (which: string, example: string) =>
  z.iso
    .date({ error: "must be a UTC day, YYYY-MM-DD" })
    .meta({ description: `The window's ${which} UTC day, included.`, example });

/** A real calendar day `YYYY-MM-DD` (2026-02-30 is none). */
const isDay = (value: unknown): boolean =>
  typeof value === "string" &&
  /^\d{4}-\d{2}-\d{2}$/.test(value) &&
  !Number.isNaN(startOfDay(value).getTime()) &&
  dayOf(startOfDay(value)) === value;

const bothDays = (window: { from: unknown; to: unknown }): boolean =>
  isDay(window.from) && isDay(window.to);

export const overviewParamsSchema = z
  .object({
    app_id: appIdParam,
    from: day("first", "2026-11-01"),
    to: day("last", "2026-11-14"),
  })
  // Zod runs these on days it already refused: each holds only of two good days.
  .refine((window) => !bothDays(window) || window.from <= window.to, {
    error: "must be on or after `from`",
    path: ["to"],
  })
  .refine(
    (window) => !bothDays(window) || daysSpanned(window.from, window.to) <= REPORT_LIMITS.maxDays,
    {
      error: `must end a window of at most ${REPORT_LIMITS.maxDays} days, \`from\` and \`to\` counted`,
      path: ["to"],
    },
  );

export type OverviewParams = z.infer<typeof overviewParamsSchema>;

export const linkClicksParamsSchema = z.object({ app_id: appIdParam });

const { defaultLimit, maxLimit } = REPORT_LIMITS;

export const latestEventsParamsSchema = z.object({
  app_id: appIdParam,
  limit: z.coerce
    .number({ error: "must be a number" })
    .int({ error: "must be a whole number" })
    .min(1, { error: `must be from 1 to ${maxLimit}` })
    .max(maxLimit, { error: `must be from 1 to ${maxLimit}` })
    .default(defaultLimit)
    .meta({ description: `Events, 1 to ${maxLimit}.`, example: defaultLimit }),
});

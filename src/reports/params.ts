/** The report routes' query parameters, parsed once with zod: the handlers' and the contract's. */
import * as z from "zod";
import { requiredOr } from "../validation/issues.ts";
import { routeQuery, wholeNumberParam } from "../validation/query.ts";
import { withoutControlCharacters } from "../validation/text.ts";
import { addDays, dayOf, daysSpanned, startOfDay } from "./days.ts";

export const REPORT_LIMITS = {
  /** The longest overview window, in days, both ends counted: a leap year. */
  maxDays: 366,
  /** The latest events' page size. */
  defaultLimit: 50,
  maxLimit: 200,
} as const;

/** A real calendar day `YYYY-MM-DD` (2026-02-30 is none). */
const isDay = (value: unknown): value is string =>
  typeof value === "string" &&
  /^\d{4}-\d{2}-\d{2}$/.test(value) &&
  !Number.isNaN(startOfDay(value).getTime()) &&
  dayOf(startOfDay(value)) === value;

/**
 * The days a report's window may name. From the Unix epoch, as the export's `timestamp`: no
 * event is older. To tomorrow (UTC), not today, for a caller whose own day is already ahead of
 * UTC's; a later day holds nothing yet, and a day far ahead (9999-12-31) would only make a
 * report walk days that cannot be.
 */
export const REPORT_DAYS = {
  earliest: "1970-01-01",
  latest: (now: Date = new Date()): string => addDays(dayOf(now), 1),
} as const;

const day = (which: string, example: string) =>
  z.iso
    .date({ error: requiredOr("must be a UTC day, YYYY-MM-DD") })
    .superRefine((value, context) => {
      if (!isDay(value)) return;
      if (value < REPORT_DAYS.earliest) {
        context.addIssue({ code: "custom", message: `must not be before ${REPORT_DAYS.earliest}` });
        return;
      }
      const latest = REPORT_DAYS.latest();
      if (value > latest) {
        context.addIssue({
          code: "custom",
          message: `must not be after tomorrow (${latest}, UTC)`,
        });
      }
    })
    .meta({ description: `The window's ${which} UTC day, included.`, example });

const inBounds = (value: unknown): boolean =>
  isDay(value) && value >= REPORT_DAYS.earliest && value <= REPORT_DAYS.latest();

const bothDays = (window: { from: unknown; to: unknown }): boolean =>
  inBounds(window.from) && inBounds(window.to);

const filter = (what: string, example: string) =>
  withoutControlCharacters(
    z
      .string()
      .min(1, { error: "must not be empty" })
      .max(200, { error: "must be at most 200 characters" }),
  )
    .optional()
    .meta({
      description: `Only what is of this ${what}: installs and their events, touches, cost.`,
      example,
    });

/**
 * The filters every report of installs takes: each narrows every figure to what it holds. A
 * country or platform is stored in one spelling (`DE`, `ios`): another is taken as it, and a
 * value that can be no country or platform is refused, where it would match nothing and read
 * as a range without installs.
 */
const filterShape = {
  media_source: filter("media source", "meta_ads"),
  campaign: filter("campaign (its name, else its id)", "Winter Sale"),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, { error: "must be a two-letter country code (ISO 3166-1 alpha-2)" })
    .transform((code) => code.toUpperCase())
    .optional()
    .meta({
      description:
        "Only what is of this country (ISO 3166-1 alpha-2, any case): installs and their events, touches, cost.",
      example: "DE",
    }),
  platform: z
    .string()
    // Spelt out rather than flagged `i`, which OpenAPI's patterns cannot carry.
    .regex(/^([Aa][Nn][Dd][Rr][Oo][Ii][Dd]|[Ii][Oo][Ss])$/, { error: "must be android or ios" })
    .transform((name) => name.toLowerCase() as "android" | "ios")
    .optional()
    .meta({
      description:
        "Only what is of this platform (`android`, `ios`, any case): installs and their events, touches, cost.",
      example: "ios",
    }),
};

const windowShape = {
  from: day("first", "2026-11-01"),
  to: day("last", "2026-11-14"),
};

/** A window's rules, on a schema of its days: `to` on or after `from`, at most a year. */
export const windowRules = <T extends z.ZodType<{ from: string; to: string }>>(schema: T) =>
  schema
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

export const overviewParamsSchema = windowRules(routeQuery({ ...windowShape, ...filterShape }));

export type OverviewParams = z.infer<typeof overviewParamsSchema>;

export const cohortParamsSchema = windowRules(
  routeQuery({
    ...windowShape,
    group_by: z
      .enum(["campaign", "adset", "ad", "country", "platform"], {
        error: "must be one of campaign, adset, ad, country, platform",
      })
      .default("campaign")
      .meta({
        description: "What each media source's installs are broken down by.",
        example: "campaign",
      }),
    ...filterShape,
  }),
);

/** The filters of a report's parameters, as the engine takes them. */
export const filtersOf = (params: {
  readonly media_source?: string | undefined;
  readonly campaign?: string | undefined;
  readonly country?: string | undefined;
  readonly platform?: string | undefined;
}) => ({
  media_source: params.media_source,
  campaign: params.campaign,
  country: params.country,
  platform: params.platform,
});

export type CohortParams = z.infer<typeof cohortParamsSchema>;

export const linkClicksParamsSchema = routeQuery({});

const { defaultLimit, maxLimit } = REPORT_LIMITS;

export const latestEventsParamsSchema = routeQuery({
  limit: wholeNumberParam({ min: 1, max: maxLimit, fallback: defaultLimit }).meta({
    description: `Events, 1 to ${maxLimit}.`,
    example: defaultLimit,
  }),
});

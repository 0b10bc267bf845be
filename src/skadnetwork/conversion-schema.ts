/**
 * An app's conversion value schema: what a user does, in each of SKAdNetwork's three
 * conversion windows, mapped to the values the app sets on the device (Apple's
 * `updatePostbackConversionValue(_:coarseValue:lockWindow:)`, AdAttributionKit's
 * `updateConversionValue(_:coarseConversionValue:lockPostback:)`), so that Apple's postbacks
 * say what the users of a campaign did.
 *
 * Each window has rules. A rule names one of the app's events (the export's `event_name`), how
 * often it must have happened in the window, the window's revenue of it in USD, or a numeric
 * parameter one of its occurrences reached; what it is worth (a fine value 1 to 63 in the first
 * window, a coarse value `low`, `medium` or `high` in each); and whether reaching it locks the
 * window. The schema reaches the SDKs through the remote configuration; each SDK evaluates it
 * on every event (./conversion-evaluation.ts is the reference, sdk/conformance holds the cases),
 * and the reports read the values back through it.
 */
import * as z from "zod";
import { ValidationError } from "../domain/errors.ts";
import type { ConversionSchema } from "../ports/apps.ts";
import { formatIssues } from "../validation/issues.ts";
import { storedNumber } from "../validation/numbers.ts";
import { COARSE_VALUES, type CoarseValue } from "./postbacks.ts";

/** Apple's three conversion windows, in hours since the install's first open: [from, to). */
export const CONVERSION_WINDOWS = [
  { index: 0, fromHours: 0, toHours: 48 },
  { index: 1, fromHours: 48, toHours: 168 },
  { index: 2, fromHours: 168, toHours: 840 },
] as const;

export const MAX_RULES_PER_WINDOW = 64;
export const MAX_FINE_VALUE = 63;

/**
 * An event as the export names it (src/domain/event-types.ts): `service_` and lower snake case,
 * which keeps letters and digits of every script (`service_café_visit`), a custom name's up to
 * its 100 characters (with room for lower-casing to lengthen a few).
 */
const EXPORTED_NAME = /^service_[\p{L}\p{M}\p{N}_]{1,120}$/u;
// The letter classes need the regex's `u` flag, which the OpenAPI document cannot carry: it
// shows the prefix, and the rest is checked here. A name that is no exported name at all is
// told so once (`abort`), not also that it is not in lower case.
const eventName = z
  .string({ error: "must be an event name" })
  .regex(/^service_/, {
    error: "must be an event_name as exported (service_purchase)",
    abort: true,
  })
  .refine((name) => EXPORTED_NAME.test(name), {
    error: "must be an event_name as exported (service_purchase)",
    abort: true,
  })
  .refine((name) => name === name.normalize("NFC").toLowerCase(), {
    error: "must be an event_name as exported, in lower case (service_purchase)",
  });

const amount = storedNumber(
  z
    .number({ error: "must be a number" })
    .min(0, { error: "must be at least 0" })
    .max(1_000_000, { error: "must be at most 1000000" }),
  1_000_000,
);

const ruleSchema = z
  .strictObject({
    /** The event, as the export names it (`service_purchase`, `service_level_complete`). */
    event: eventName,
    /** How many times it happened in the window, at least. */
    // Each bound with its own words: the type's would otherwise be said of a 0 too.
    min_count: z
      .int({ error: "must be a whole number" })
      .min(1, { error: "must be from 1 to 10000" })
      .max(10_000, { error: "must be from 1 to 10000" })
      .default(1),
    /** The window's revenue of this event in USD, from `min` (included) to `max` (excluded). */
    revenue_usd: z
      .strictObject({ min: amount.default(0), max: amount.optional() })
      .refine((range) => range.max === undefined || range.max > range.min, {
        error: "max must be above min",
      })
      .optional(),
    /** One occurrence's numeric parameter at least this (`level` reached 10). */
    parameter: z
      .strictObject({
        name: z.string().min(1).max(100),
        at_least: storedNumber(z.number({ error: "must be a number" })),
      })
      .optional(),
    /** The fine value (first window only), 1 to 63. */
    fine: z
      .int({ error: "must be a whole number" })
      // 0 is every install's, told to Apple at its first launch before any rule is met: a rule
      // worth 0 would read, in the reports, as every install that met none.
      .min(1, { error: `must be from 1 to ${MAX_FINE_VALUE}` })
      .max(MAX_FINE_VALUE, { error: `must be from 1 to ${MAX_FINE_VALUE}` })
      .optional(),
    coarse: z.enum(COARSE_VALUES, { error: "must be low, medium or high" }),
    /** Reaching it ends the window's updates: the postback is sent sooner. */
    lock: z.boolean().default(false),
  })
  .meta({ id: "ConversionRule" });
export type ConversionRule = z.output<typeof ruleSchema>;

const windowSchema = z.strictObject({
  rules: z
    .array(ruleSchema)
    .max(MAX_RULES_PER_WINDOW, { error: `must be at most ${MAX_RULES_PER_WINDOW} rules` }),
});

/** What the owner sends: the three windows' rules. */
export const conversionSchemaRequest = z
  .strictObject({
    windows: z
      .array(windowSchema)
      .length(3, { error: "must be the three conversion windows, in order" }),
  })
  .superRefine((schema, ctx) => {
    schema.windows.forEach((window, w) => {
      window.rules.forEach((rule, r) => {
        if (w === 0 && rule.fine === undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["windows", w, "rules", r, "fine"],
            message: "is required in the first window (a fine value 1 to 63)",
          });
        }
        if (w > 0 && rule.fine !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["windows", w, "rules", r, "fine"],
            message: "is only for the first window: later windows have coarse values alone",
          });
        }
      });
    });
  })
  .meta({ id: "ConversionSchemaRequest" });
export type ConversionSchemaRequest = z.output<typeof conversionSchemaRequest>;

/** A saved schema: its version, made by the service at each save, the SDKs' cue to reload. */
export type { ConversionSchema };

/** A schema as stored: checked when it was saved, read back as it is. */
export const storedConversionSchema = z.object({
  version: z.int().min(1),
  updated_at: z.string(),
  windows: z.array(z.object({ rules: z.array(ruleSchema) })).length(3),
});

/** The schema a save makes of the owner's: the next version, at `now`. */
export const nextSchema = (
  current: ConversionSchema | undefined,
  request: ConversionSchemaRequest,
  now: Date,
): ConversionSchema => ({
  version: (current?.version ?? 0) + 1,
  updated_at: now.toISOString(),
  windows: request.windows,
});

/** A schema checked, or a ValidationError (a 422) naming each field at fault under `body`. */
export const parseConversionSchema = (body: unknown): ConversionSchemaRequest => {
  const parsed = conversionSchemaRequest.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({ ...issue, path: ["body", ...issue.path] }));
  throw new ValidationError(formatIssues(issues, "body"));
};

export const COARSE_ORDER: Readonly<Record<CoarseValue, number>> = { low: 0, medium: 1, high: 2 };

type PostbackValue = { readonly fine: number | null; readonly coarse: CoarseValue | null };

/** The rules of a window that give a value: its fine one in the first window, else its coarse. */
const rulesGiving = (
  schema: ConversionSchemaRequest,
  window: number,
  value: PostbackValue,
): ConversionRule[] =>
  (schema.windows[window]?.rules ?? []).filter((rule) =>
    value.fine !== null && window === 0 ? rule.fine === value.fine : rule.coarse === value.coarse,
  );

/** What a value means under a schema, for the reports: the rules that give it. */
export const meaningOf = (
  schema: ConversionSchemaRequest,
  window: number,
  value: PostbackValue,
): string[] => rulesGiving(schema, window, value).map(describeRule);

/** A window's revenue in USD from `min` (included) up to `max` (null: no bound above). */
export interface RevenueRange {
  readonly min: number;
  readonly max: number | null;
}

export const NO_REVENUE: RevenueRange = { min: 0, max: 0 };
/** What a value of a rule that reads no revenue says of it: nothing. */
const UNKNOWN_REVENUE: RevenueRange = { min: 0, max: null };

/** Whether any rule of the schema reads revenue: without one, its values say nothing of it. */
export const measuresRevenue = (schema: ConversionSchemaRequest | null): boolean =>
  schema?.windows.some((window) => window.rules.some((rule) => rule.revenue_usd)) ?? false;

/**
 * The window's revenue a value states under a schema: the range of its rule, or of every rule
 * that gives it when several do (the lowest `min` to the highest `max`). A value no rule gives
 * (0, before any rule is met) states none. So does a rule that reads no revenue (a tutorial
 * done) below every rule that does: a device that had met one of those would have its higher
 * value. One above a rule that reads revenue (a level reached, set over the purchases' values)
 * states no ceiling: the device may have spent anything before it reached it. A rule's `max` is
 * a bound as the schema draws it: a window's revenue that passes it with no rule above keeps
 * the value it had, as values never go down on the device. In a window none of whose rules reads
 * revenue, a value a rule gives states no ceiling: a purchase of any amount (`service_purchase`
 * alone) gives the same one as a purchase of a cent; a value no rule gives still states none.
 */
export const revenueOf = (
  schema: ConversionSchemaRequest,
  window: number,
  value: PostbackValue,
): RevenueRange => {
  const rules = rulesGiving(schema, window, value);
  if (rules.length === 0) return NO_REVENUE;
  const revenueRules = (schema.windows[window]?.rules ?? []).filter((rule) => rule.revenue_usd);
  if (revenueRules.length === 0) return UNKNOWN_REVENUE;
  // A value's place among the window's: its fine value in the first window, else its coarse one.
  const byFine = value.fine !== null && window === 0;
  const rank = (rule: ConversionRule) =>
    byFine ? (rule.fine ?? -1) : COARSE_VALUES.indexOf(rule.coarse);
  const withoutRevenue = (rule: ConversionRule) =>
    revenueRules.some((other) => rank(other) < rank(rule)) ? UNKNOWN_REVENUE : NO_REVENUE;
  return rules.reduce<RevenueRange>(
    (range, rule) => {
      const stated = rule.revenue_usd
        ? { min: rule.revenue_usd.min, max: rule.revenue_usd.max ?? null }
        : withoutRevenue(rule);
      return {
        min: Math.min(range.min, stated.min),
        max: range.max === null || stated.max === null ? null : Math.max(range.max, stated.max),
      };
    },
    { min: Number.POSITIVE_INFINITY, max: 0 },
  );
};

/** `n` times `range` added to `sum`: the revenue of `n` postbacks of one value. */
export const addRevenue = (sum: RevenueRange, range: RevenueRange, n = 1): RevenueRange => ({
  min: sum.min + range.min * n,
  max: sum.max === null || range.max === null ? null : sum.max + range.max * n,
});

/** A range in whole cents, as the reports give it: sums of dollar amounts carry float dust. */
export const roundRevenue = (range: RevenueRange): RevenueRange => ({
  min: Math.round(range.min * 100) / 100,
  max: range.max === null ? null : Math.round(range.max * 100) / 100,
});

/** A rule in words: `service_purchase ×2, 0.99–4.99 USD`. */
export const describeRule = (rule: ConversionRule): string => {
  const parts = [rule.event];
  if (rule.min_count > 1) parts.push(`×${rule.min_count}`);
  if (rule.revenue_usd) {
    const { min, max } = rule.revenue_usd;
    parts.push(max === undefined ? `${min}+ USD` : `${min}–${max} USD`);
  }
  if (rule.parameter) parts.push(`${rule.parameter.name} ≥ ${rule.parameter.at_least}`);
  return parts.join(", ");
};

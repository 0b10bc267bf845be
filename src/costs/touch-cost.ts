/**
 * Cost on a link and on a network's touch, as AppsFlyer takes it from the click
 * (`af_cost_model`, `af_cost_value`, `af_cost_currency`): how the touch is paid for (CPI, CPC,
 * CPM), its price and the price's currency, all three or none. A link's cost goes on every
 * click of it; a network's touch carries its own, else its link's.
 *
 * Where each model's cost is counted: a CPC click's and a CPM impression's (a thousandth of the
 * price) on the touch itself, in the touches lake table at the rate of the touch's day; a CPI
 * touch's on the install it wins, in the attributions lake table at the rate of the install's
 * day (src/attribution/lake-rows.ts). The cohorts report adds them to the cost rows
 * (src/reports/cohorts.ts).
 */
import * as z from "zod";
import { COST_MODELS, type TouchCost, type TouchType } from "../domain/touch.ts";
import type { FxRates } from "../fx/ecb-rates.ts";
import { ISO_4217_CODES } from "../ingest/currencies.ts";
import { requiredOr } from "../validation/issues.ts";
import { storedNumber } from "../validation/numbers.ts";

export const TOUCH_COST_LIMITS = {
  // A price in any currency: a CPM of 300,000 IDR or VND is an ordinary one.
  maxValue: 1_000_000_000,
} as const;

const CURRENCY_RULE = "must be an ISO 4217 currency code";

/**
 * An ISO 4217 code, checked as the cost rows' (`POST /v1/costs`) and revenue's currency: in any
 * case and with spaces around it, as revenue's (`eur` is `EUR`), kept in capitals.
 */
export const currencyCode = () =>
  z
    .string({ error: requiredOr(CURRENCY_RULE) })
    .trim()
    .toUpperCase()
    .refine((code) => ISO_4217_CODES.has(code), { error: CURRENCY_RULE });

export const COST_FIELD_NAMES = ["cost_model", "cost_value", "cost_currency"] as const;
type CostFieldName = (typeof COST_FIELD_NAMES)[number];

/** The three fields of a body (a link's, a touch's); each nullable, checked together below. */
export const costFields = (of: string) => ({
  cost_model: z
    .enum(COST_MODELS, { error: "must be CPI, CPC or CPM" })
    .nullish()
    .meta({
      description: `How ${of} is paid for: per install it wins (\`CPI\`), per click (\`CPC\`) or per thousand impressions (\`CPM\`). With \`cost_value\` and \`cost_currency\`, all three or none.`,
      example: "CPI",
    }),
  cost_value: storedNumber(
    z
      .number({ error: "must be a number" })
      .min(0, { error: "must be at least 0" })
      .max(TOUCH_COST_LIMITS.maxValue, {
        error: `must be at most ${TOUCH_COST_LIMITS.maxValue}`,
      }),
    TOUCH_COST_LIMITS.maxValue,
  )
    .nullish()
    .meta({
      description:
        "The price in `cost_currency`: of an install (CPI), of a click (CPC), of a thousand impressions (CPM).",
      example: 2.5,
    }),
  cost_currency: currencyCode()
    .nullish()
    .meta({ description: "The price's currency, ISO 4217.", example: "EUR" }),
});

type CostFieldValues = { readonly [K in CostFieldName]?: unknown };

/** The fields given a value (not absent, not null). */
const valued = (fields: CostFieldValues) =>
  COST_FIELD_NAMES.filter((name) => fields[name] !== undefined && fields[name] !== null);

const together = (names: readonly string[]) => names.join(" and ");

/**
 * What is wrong with the three as a whole, each problem on the field at fault: some given and
 * not all. `clearing`: a change may also set all three to null (the cost is cleared), but not
 * some of them.
 */
export const costFieldProblems = (
  fields: CostFieldValues,
  options: { clearing?: boolean } = {},
): { path: CostFieldName; message: string }[] => {
  const given = valued(fields);
  if (given.length > 0) {
    return COST_FIELD_NAMES.filter((name) => !given.includes(name)).map((path) => ({
      path,
      message: `is required with ${together(given)}`,
    }));
  }
  const nulls = COST_FIELD_NAMES.filter((name) => fields[name] === null);
  if (!options.clearing || nulls.length === 0) return [];
  return COST_FIELD_NAMES.filter((name) => fields[name] === undefined).map((path) => ({
    path,
    message: `must be null with ${together(nulls)}: the three are cleared together`,
  }));
};

/** A zod refinement of an object holding the three fields: all three or none. */
export const refineCostFields =
  (options: { clearing?: boolean } = {}) =>
  (fields: CostFieldValues, context: z.RefinementCtx) => {
    for (const problem of costFieldProblems(fields, options)) {
      context.addIssue({ code: "custom", path: [problem.path], message: problem.message });
    }
  };

/**
 * The cost the checked fields name: the three, null when they are all null (a change clearing
 * it), undefined when none is given.
 */
export const costOfFields = (fields: {
  readonly cost_model?: TouchCost["model"] | null;
  readonly cost_value?: number | null;
  readonly cost_currency?: string | null;
}): TouchCost | null | undefined => {
  const { cost_model: model, cost_value: value, cost_currency: currency } = fields;
  if (model != null && value != null && currency != null) return { model, value, currency };
  return model === null && value === null && currency === null ? null : undefined;
};

/** The three as an answer or a lake row names them: nulls for a touch or link of no cost. */
export const costColumns = (cost: TouchCost | null) => ({
  cost_model: cost?.model ?? null,
  cost_value: cost?.value ?? null,
  cost_currency: cost?.currency ?? null,
});

/**
 * The touches a model charges on the touch itself, and how many of them its price is of: a CPC
 * click the whole price, a CPM impression a thousandth of it. A CPI touch's cost is its
 * install's; a CPC impression and a CPM click cost nothing themselves.
 */
export const CHARGED_TOUCHES = {
  CPC: { type: "click", perPrice: 1 },
  CPM: { type: "impression", perPrice: 1000 },
} as const satisfies Partial<Record<TouchCost["model"], { type: TouchType; perPrice: number }>>;

/** How many touches of `type` the price is of; null for a touch the model does not charge. */
const touchesPerPrice = (cost: TouchCost, type: TouchType): number | null => {
  const charged = cost.model === "CPI" ? undefined : CHARGED_TOUCHES[cost.model];
  return charged?.type === type ? charged.perPrice : null;
};

/**
 * A touch's share of its price in USD is kept to a millionth of a micro-dollar: rounded alike
 * for every touch, its error adds up over a billion impressions to well under a cent, and the
 * value has none of a division's binary noise (0.22000000000000003) in the lake or an export.
 */
const TOUCH_PRICE_DECIMALS = 12;

/**
 * What the touch itself cost in USD, at the ECB rate of `day` (its UTC day): a CPC click its
 * price, a CPM impression a thousandth of it, to TOUCH_PRICE_DECIMALS (the report rounds the
 * sum of them).
 * Null for a touch of no cost, a CPI touch (its cost is its install's, once it wins), a touch
 * its model does not charge (a CPC impression, a CPM click), and a day no rate converts.
 */
export const touchCostUsd = (
  cost: TouchCost | null,
  type: TouchType,
  day: string,
  fx: Pick<FxRates, "toUsd">,
): number | null => {
  const touches = cost ? touchesPerPrice(cost, type) : null;
  if (!cost || touches === null) return null;
  return fx.toUsd(cost.value / touches, cost.currency, day, { decimals: TOUCH_PRICE_DECIMALS });
};

/** An install's cost: the winning touch's when it is paid per install (CPI), else none. */
export const installCostOf = (cost: TouchCost | null | undefined): TouchCost | null =>
  cost?.model === "CPI" ? cost : null;

/**
 * Revenue of an event, from its `revenue` and `currency` parameters (docs/api.md#rules).
 *
 * - `revenue` is a finite JSON number or a numeric string (`"9.99"`, `"-1"`): AppsFlyer and
 *   Adjust both take strings, and SDK wrappers often stringify. Only plain decimals: no
 *   exponent, no thousands separator, no decimal comma (`"1,000"` is ambiguous). A negative
 *   amount is a refund and is kept. At most a trillion either way (INGEST_LIMITS).
 * - `currency` is an ISO 4217 code from ISO_4217_CODES, in any case (`usd` is USD). It is checked
 *   only when the event carries revenue: a game may use `currency: "gems"` on a non-revenue
 *   event. A revenue event whose currency is no such code is kept without revenue, with a
 *   warning, as one without a currency is.
 * - Revenue without a currency is not revenue (Adjust's rule, not AppsFlyer's default to USD): a
 *   guessed currency turns 1,000 JPY into 1,000 USD, a wrong figure worse than a missing one. The
 *   event is accepted, its revenue columns stay null, the parameters keep what was sent, and the
 *   verdict carries a warning.
 * - Either may arrive sealed; the injected `open` opens it (keys needed in clear, spec rule 4).
 */
import { type FxRates, noUsdRateReason } from "../fx/ecb-rates.ts";
import { ISO_4217_CODES } from "./currencies.ts";
import { INGEST_LIMITS } from "./limits.ts";
import type { ParameterMap } from "./parameters.ts";

export interface Revenue {
  readonly amount: number;
  /** ISO 4217, uppercase. */
  readonly currency: string;
}

/** Opens a sealed string; undefined for a plain string. May throw on a damaged envelope. */
export type Open = (value: string) => unknown | undefined;

export type RevenueResult =
  | { readonly ok: true; readonly revenue: Revenue | null; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly problems: readonly string[] };

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

type Opened = { readonly ok: true; readonly value: unknown } | { readonly ok: false };

/** The clear value of a parameter: opened when sealed, as sent otherwise. */
const clear = (value: unknown, open: Open): Opened => {
  if (typeof value !== "string") return { ok: true, value };
  try {
    const opened = open(value);
    return { ok: true, value: opened === undefined ? value : opened };
  } catch {
    return { ok: false };
  }
};

const amountOf = (value: unknown): number | null => {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string" || !DECIMAL.test(value.trim())) return null;
  const amount = Number(value.trim());
  // "1" followed by 400 zeros is a decimal but not a double.
  if (!Number.isFinite(amount)) return null;
  return amount === 0 ? 0 : amount; // no -0 in the lake
};

export const readRevenue = (parameters: ParameterMap, open: Open): RevenueResult => {
  if (!Object.hasOwn(parameters, "revenue")) return { ok: true, revenue: null, warnings: [] };
  const revenue = clear(parameters.revenue, open);
  if (!revenue.ok) {
    return { ok: false, problems: ["parameters.revenue: is sealed but could not be opened"] };
  }
  const amount = amountOf(revenue.value);
  if (amount === null) {
    return {
      ok: false,
      problems: ['parameters.revenue: must be a finite number or a decimal string such as "9.99"'],
    };
  }
  if (Math.abs(amount) > INGEST_LIMITS.maxRevenueAmount) {
    return {
      ok: false,
      problems: [
        `parameters.revenue: must be from -${INGEST_LIMITS.maxRevenueAmount} to ${INGEST_LIMITS.maxRevenueAmount}`,
      ],
    };
  }
  if (!Object.hasOwn(parameters, "currency")) {
    return {
      ok: true,
      revenue: null,
      warnings: [
        "parameters.revenue was not recorded as revenue: parameters.currency (ISO 4217, e.g. USD) is missing",
      ],
    };
  }
  const currency = clear(parameters.currency, open);
  if (!currency.ok) {
    return { ok: false, problems: ["parameters.currency: is sealed but could not be opened"] };
  }
  // An SDK wrapper's lower case is the same code; anything else is kept out of revenue, with
  // the event: a purchase lost for its currency's spelling is worse than one without revenue.
  const code = typeof currency.value === "string" ? currency.value.trim().toUpperCase() : "";
  if (!ISO_4217_CODES.has(code)) {
    const sent =
      typeof currency.value === "string" ? currency.value : JSON.stringify(currency.value);
    return {
      ok: true,
      revenue: null,
      warnings: [
        `parameters.revenue was not recorded as revenue: parameters.currency ${JSON.stringify(sent)} is not an ISO 4217 code (e.g. USD)`,
      ],
    };
  }
  return { ok: true, revenue: { amount, currency: code }, warnings: [] };
};

/**
 * The warning of revenue kept without its USD amount (`revenue_usd` null): no rate converts it
 * as it arrives, and it is not converted again later, so the sender hears of it now rather than
 * from a report that counts it apart.
 */
export const unconvertedRevenueWarning = (
  revenue: Revenue,
  eventTime: string,
  fx: Pick<FxRates, "currencies" | "firstDate" | "lastDate">,
): string =>
  `parameters.revenue was recorded in ${revenue.currency} without a USD amount (revenue_usd is null): ${noUsdRateReason(fx, revenue.currency, eventTime.slice(0, 10))}; reports count it as unconverted revenue, not in revenue, ARPU or ROAS`;

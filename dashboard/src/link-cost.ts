/**
 * A link's cost as the Links page's forms hold it and send it: how each click is paid for (CPI,
 * CPC, CPM), its price and the price's currency, which the service takes all three or none
 * (docs/api.md#costs).
 */
import type { Link, LinkPatch, LinkRequest } from "./api.ts";

export type CostModel = NonNullable<Link["cost_model"]>;
/** Each cost model in the words of its option. */
export const COST_MODELS: Readonly<Record<CostModel, string>> = {
  CPI: "CPI: per install it wins",
  CPC: "CPC: per click",
  CPM: "CPM: per thousand impressions",
};

/** What a link costs as its form holds it: all empty is no cost. */
export interface CostValues {
  readonly model: CostModel | "";
  readonly value: string;
  readonly currency: string;
}

export const NO_COST: CostValues = { model: "", value: "", currency: "" };

export const costValuesOf = (link: Link): CostValues => ({
  model: link.cost_model ?? "",
  value: link.cost_value === null ? "" : String(link.cost_value),
  currency: link.cost_currency ?? "",
});

type CostRequest = Pick<LinkRequest, "cost_model" | "cost_value" | "cost_currency">;

/**
 * The cost fields filled in, as a new link's request takes them: the service checks the three
 * together (all or none), and says which is missing beside it.
 */
export const costRequest = (values: CostValues): CostRequest => {
  const request: CostRequest = {};
  if (values.model !== "") request.cost_model = values.model;
  if (values.value.trim() !== "") request.cost_value = Number(values.value.trim());
  if (values.currency.trim() !== "") request.cost_currency = values.currency.trim();
  return request;
};

/**
 * The cost as a change sends it: nothing when the form holds the link's own, the three as the
 * form holds them otherwise (all emptied: null, which clears the cost).
 */
export const costPatch = (link: Link, values: CostValues): LinkPatch => {
  const given = costRequest(values);
  const model = given.cost_model ?? null;
  const value = given.cost_value ?? null;
  const currency = given.cost_currency ?? null;
  const same =
    model === link.cost_model &&
    value === link.cost_value &&
    (currency?.toUpperCase() ?? null) === link.cost_currency;
  return same ? {} : { cost_model: model, cost_value: value, cost_currency: currency };
};

/** A link's cost as the list shows it: `CPI €2.50`. */
export const costText = (link: Link): string | null => {
  if (link.cost_model === null || link.cost_value === null || link.cost_currency === null) {
    return null;
  }
  const price = new Intl.NumberFormat("en", {
    style: "currency",
    currency: link.cost_currency,
    maximumFractionDigits: 6,
  }).format(link.cost_value);
  return `${link.cost_model} ${price}`;
};

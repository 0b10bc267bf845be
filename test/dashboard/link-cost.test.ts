/** A link's cost as the Links page sends it: what the form holds, checked by the service. */
import { describe, expect, it } from "vitest";
import type { Link } from "../../dashboard/src/api.ts";
import {
  costPatch,
  costRequest,
  costText,
  costValuesOf,
  NO_COST,
} from "../../dashboard/src/link-cost.ts";
import { linkOf } from "./link.test-support.ts";

const link = (cost: Pick<Link, "cost_model" | "cost_value" | "cost_currency">): Link =>
  linkOf(cost);

const NONE = link({ cost_model: null, cost_value: null, cost_currency: null });
const CPC = link({ cost_model: "CPC", cost_value: 0.4, cost_currency: "USD" });

describe("a new link's cost", () => {
  it("is nothing when the fields are empty", () => {
    expect(costRequest(NO_COST)).toEqual({});
  });

  it("sends what is filled in, a number as a number, for the service to check the three together", () => {
    expect(costRequest({ model: "CPI", value: " 2.5 ", currency: " eur " })).toEqual({
      cost_model: "CPI",
      cost_value: 2.5,
      cost_currency: "eur",
    });
    // Partly filled: sent as it is, so that the service names the missing field beside it.
    expect(costRequest({ model: "CPC", value: "0.4", currency: "" })).toEqual({
      cost_model: "CPC",
      cost_value: 0.4,
    });
  });
});

describe("a link's cost changed", () => {
  it("sends nothing when the form holds the link's own cost, whatever the currency's case", () => {
    expect(costPatch(CPC, costValuesOf(CPC))).toEqual({});
    expect(costPatch(CPC, { model: "CPC", value: "0.40", currency: "usd" })).toEqual({});
    expect(costPatch(NONE, costValuesOf(NONE))).toEqual({});
  });

  it("sends the three when one changed", () => {
    expect(costPatch(CPC, { model: "CPI", value: "2.5", currency: "EUR" })).toEqual({
      cost_model: "CPI",
      cost_value: 2.5,
      cost_currency: "EUR",
    });
    expect(costPatch(NONE, { model: "CPM", value: "3", currency: "GBP" })).toEqual({
      cost_model: "CPM",
      cost_value: 3,
      cost_currency: "GBP",
    });
  });

  it("clears the cost when the three are emptied, and sends a partial one for the service to refuse", () => {
    expect(costPatch(CPC, NO_COST)).toEqual({
      cost_model: null,
      cost_value: null,
      cost_currency: null,
    });
    expect(costPatch(CPC, { model: "CPC", value: "0.4", currency: "" })).toEqual({
      cost_model: "CPC",
      cost_value: 0.4,
      cost_currency: null,
    });
  });
});

describe("a link's cost in the list", () => {
  it("names the model and the price in its currency; nothing without a cost", () => {
    expect(costText(CPC)).toBe("CPC $0.40");
    expect(costText(link({ cost_model: "CPI", cost_value: 2.5, cost_currency: "EUR" }))).toBe(
      "CPI €2.50",
    );
    expect(costText(link({ cost_model: "CPM", cost_value: 0.0125, cost_currency: "USD" }))).toBe(
      "CPM $0.0125",
    );
    expect(costText(NONE)).toBeNull();
  });
});

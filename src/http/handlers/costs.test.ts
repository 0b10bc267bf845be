/**
 * The cost list's bound: past a number of rows an answer would outgrow what a Lambda function
 * may answer, and API Gateway would give its own 502 in place of the service's error.
 */
import { describe, expect, it } from "vitest";
import type { FxRates } from "../../fx/ecb-rates.ts";
import type { CostRow } from "../../ports/costs.ts";
import { apiEvent, CONTEXT, principal } from "../api-event.test-support.ts";
import { COST_LIST_MAX_ROWS, createCostHandlers } from "./costs.ts";

const APP = "com.example.game";

const row = (i: number): CostRow => ({
  appId: APP,
  day: "2026-11-02",
  mediaSource: "meta_ads",
  campaignId: `c-${i}`,
  campaignName: null,
  adsetId: null,
  adsetName: null,
  adId: null,
  adName: null,
  country: null,
  amount: 1,
  currency: "USD",
  amountUsd: 1,
  impressions: null,
  clicks: null,
  receivedAt: "2026-11-03T00:00:00.000Z",
});

const listing = (count: number) => {
  const handlers = createCostHandlers({
    costs: {
      put: async () => ({ replaced: 0 }),
      listByApp: async () => Array.from({ length: count }, (_, i) => row(i)),
    },
    lake: { put: async () => undefined },
    fx: {} as FxRates,
  });
  return handlers.listCosts(
    apiEvent({
      authorizer: principal(APP, ["costs"]),
      query: { from: "2026-11-01", to: "2026-11-03" },
    }),
    CONTEXT,
  );
};

describe("listing cost rows", () => {
  it("lists a window's rows up to the bound, and refuses a window holding more with a 422", async () => {
    const full = await listing(COST_LIST_MAX_ROWS);
    expect(full.statusCode).toBe(200);
    expect(JSON.parse(String(full.body)).data).toHaveLength(COST_LIST_MAX_ROWS);
    const over = await listing(COST_LIST_MAX_ROWS + 1);
    expect(over.statusCode).toBe(422);
    expect(JSON.parse(String(over.body))).toEqual({
      error: "Unprocessable Entity",
      detail: `to: the window holds ${COST_LIST_MAX_ROWS + 1} cost rows, more than the ${COST_LIST_MAX_ROWS} one answer lists; ask for fewer days`,
    });
  });
});

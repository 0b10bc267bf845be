/**
 * The cost list's bound: past a number of rows an answer would outgrow what a Lambda function
 * may answer, and API Gateway would give its own 502 in place of the service's error. And two
 * uploads of the same keys whose table puts land out of order: the later one stands. And an
 * upload's warnings read from what is stored over all its days.
 */
import { describe, expect, it } from "vitest";
import { createCostStore } from "../../adapters/dynamodb/costs.ts";
import { dynaliteForTests } from "../../adapters/dynamodb/dynamo-targets.test-support.ts";
import { standingCostRows } from "../../costs/cost-rows.ts";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import { type FxRates, parseEcbRates } from "../../fx/ecb-rates.ts";
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

describe("cost uploads of the same day and keys at once", () => {
  const dynamo = dynaliteForTests("cost-uploads-");
  const fx = parseEcbRates("Date,USD,\n2026-11-02,1.1,\n");

  it("leaves the table with the upload received last when the earlier one's lake put is slow", async () => {
    const costs = createCostStore(dynamo().doc, LOCAL_TABLE_NAMES.costs);
    const lake: { amount: unknown; received_at: unknown }[] = [];
    let releaseFirst = () => {};
    const firstLakePut = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const handler = (slowLake: boolean, now: string) =>
      createCostHandlers({
        costs,
        lake: {
          put: async (rows) => {
            if (slowLake) await firstLakePut;
            for (const r of rows) lake.push({ amount: r.amount, received_at: r.received_at });
          },
        },
        fx,
        now: () => new Date(now),
      }).putCosts;
    const upload = (amount: number) =>
      apiEvent({
        authorizer: principal(APP, ["costs"]),
        body: JSON.stringify({
          rows: [
            { day: "2026-11-02", media_source: "net", campaign_id: "c1", amount, currency: "USD" },
          ],
        }),
      });

    const first = handler(true, "2026-11-03T08:00:00.000Z")(upload(100), CONTEXT);
    const second = await handler(false, "2026-11-03T08:00:01.000Z")(upload(250), CONTEXT);
    expect(second.statusCode).toBe(200);
    releaseFirst();
    const answered = await first;
    expect(answered.statusCode).toBe(200);
    expect(JSON.parse(String(answered.body))).toMatchObject({ accepted: 1, replaced: 0 });

    const table = standingCostRows(
      await costs.listByApp(APP, { from: "2026-11-02", to: "2026-11-02" }),
    );
    expect(table.map((r) => [r.amount, r.receivedAt])).toEqual([[250, "2026-11-03T08:00:01.000Z"]]);
    // The lake's newest row of the keys is the same one.
    const newest = lake.reduce((a, b) => (String(b.received_at) > String(a.received_at) ? b : a));
    expect(newest.amount).toBe(250);
  });
});

describe("an upload's warnings", () => {
  const dynamo = dynaliteForTests("cost-warnings-");
  const fx = parseEcbRates("Date,USD,\n2026-11-01,1.1,\n");

  it("name a campaign's day stored at another level, on the earliest of days sent in any order", async () => {
    const handler = createCostHandlers({
      costs: createCostStore(dynamo().doc, LOCAL_TABLE_NAMES.costs),
      lake: { put: async () => undefined },
      fx,
      now: () => new Date("2026-11-05T08:00:00.000Z"),
    }).putCosts;
    const upload = (rows: object[]) =>
      handler(
        apiEvent({ authorizer: principal(APP, ["costs"]), body: JSON.stringify({ rows }) }),
        CONTEXT,
      );
    const spend = { media_source: "net", campaign_id: "c1", amount: 10, currency: "USD" };

    const total = await upload([{ ...spend, day: "2026-11-01" }]);
    expect(JSON.parse(String(total.body))).toEqual({ accepted: 1, replaced: 0, warnings: [] });
    const split = await upload([
      { ...spend, day: "2026-11-04", campaign_id: "c2" },
      { ...spend, day: "2026-11-01", adset_id: "as-1" },
      { ...spend, day: "2026-11-03", campaign_id: "c3" },
    ]);
    expect(split.statusCode).toBe(200);
    const { warnings } = JSON.parse(String(split.body)) as { warnings: string[] };
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^Campaign c1 of net on 2026-11-01 has cost rows at 2 levels of detail/,
    );
  });
});

import { setTimeout as sleep } from "node:timers/promises";
import type { DynamoDBDocumentClient, PutCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import type { CostRow } from "../../ports/costs.ts";
import { COST_PUTS_AT_ONCE, createCostStore, getCostRow } from "./costs.ts";
import { dynaliteForTests } from "./dynamo-targets.test-support.ts";

const row = (campaignId: string, amount = 10): CostRow => ({
  appId: "com.costs.many",
  day: "2026-11-02",
  mediaSource: "meta_ads",
  campaignId,
  campaignName: null,
  adsetId: null,
  adsetName: null,
  adId: null,
  adName: null,
  country: null,
  amount,
  currency: "EUR",
  amountUsd: null,
  impressions: null,
  clicks: null,
  receivedAt: "2026-11-03T08:00:00.000Z",
});

/** A table of items by key, each put answered after `ms`, counting the puts under way at once. */
const slowTable = (ms: number) => {
  const items = new Map<string, Record<string, unknown>>();
  const puts = { now: 0, most: 0 };
  const send = async (command: PutCommand) => {
    puts.now += 1;
    puts.most = Math.max(puts.most, puts.now);
    try {
      await sleep(ms);
      const item = command.input.Item ?? {};
      const key = String(item.costKey);
      const old = items.get(key);
      items.set(key, item);
      return { Attributes: old };
    } finally {
      puts.now -= 1;
    }
  };
  return { doc: { send } as unknown as DynamoDBDocumentClient, items, puts };
};

describe("DynamoDB cost store", () => {
  it("sends an upload's puts several at once, within its bound, and writes every row", async () => {
    const table = slowTable(5);
    const costs = createCostStore(table.doc, "costs");
    const rows = Array.from({ length: 200 }, (_, i) => row(`c-${i}`));
    expect(await costs.put(rows)).toEqual({ replaced: 0 });
    expect(table.puts.most).toBeGreaterThan(1);
    expect(table.puts.most).toBeLessThanOrEqual(COST_PUTS_AT_ONCE);
    expect(table.items.size).toBe(200);
    expect(await costs.put(rows.slice(0, 50))).toEqual({ replaced: 50 });
  });

  it("puts rows of the same keys in their order, the last one standing", async () => {
    const table = slowTable(1);
    const costs = createCostStore(table.doc, "costs");
    const rows = [
      row("same", 1),
      ...Array.from({ length: 30 }, (_, i) => row(`c-${i}`)),
      row("same", 2),
    ];
    expect(await costs.put(rows)).toEqual({ replaced: 1 });
    const stored = [...table.items.values()].map(
      (item) => JSON.parse(String(item.body)) as CostRow,
    );
    expect(stored.filter((r) => r.campaignId === "same").map((r) => r.amount)).toEqual([2]);
  });

  it("fails once every put has ended", async () => {
    const table = slowTable(2);
    const failing = {
      send: async (command: PutCommand) => {
        if (command.input.Item?.body && String(command.input.Item.body).includes('"c-3"')) {
          throw new Error("throttled");
        }
        return table.doc.send(command);
      },
    } as unknown as DynamoDBDocumentClient;
    const costs = createCostStore(failing, "costs");
    await expect(costs.put(Array.from({ length: 60 }, (_, i) => row(`c-${i}`)))).rejects.toThrow(
      "throttled",
    );
    expect(table.puts.now).toBe(0);
    expect(table.items.size).toBe(59);
  });
});

describe("DynamoDB cost store, uploads of the same keys landing out of order", () => {
  const dynamo = dynaliteForTests("costs-");
  const at = (receivedAt: string, amount: number, campaignId = "c-order"): CostRow => ({
    ...row(campaignId, amount),
    receivedAt,
  });
  const stored = (sent: CostRow) =>
    getCostRow(dynamo().doc, LOCAL_TABLE_NAMES.costs, sent).then((found) => found?.amount);

  it("keeps the row received later when the earlier one's put lands after it", async () => {
    const costs = createCostStore(dynamo().doc, LOCAL_TABLE_NAMES.costs);
    const later = at("2026-11-03T08:00:01.000Z", 250);
    expect(await costs.put([later])).toEqual({ replaced: 0 });
    // The earlier upload, slow on its way, is refused without an error and replaces nothing.
    expect(await costs.put([at("2026-11-03T08:00:00.000Z", 100)])).toEqual({ replaced: 0 });
    expect(await stored(later)).toBe(250);
    const listed = await costs.listByApp(later.appId, { from: later.day, to: later.day });
    expect(listed.filter((r) => r.campaignId === "c-order")).toEqual([later]);
    // A row received later still replaces it.
    expect(await costs.put([at("2026-11-03T08:00:02.000Z", 300)])).toEqual({ replaced: 1 });
    expect(await stored(later)).toBe(300);
  });

  it("lists every row of an app's days, many of a day included, and none outside them", async () => {
    const costs = createCostStore(dynamo().doc, LOCAL_TABLE_NAMES.costs);
    const of = (campaignId: string, day: string): CostRow => ({
      ...row(campaignId),
      appId: "com.costs.days",
      day,
    });
    const rows = [
      ...Array.from({ length: 20 }, (_, i) => of(`c-${i}`, "2026-11-02")),
      of("c-before", "2026-11-01"),
      of("c-after", "2026-11-04"),
      of("c-last", "2026-11-03"),
    ];
    await costs.put(rows);
    const listed = await costs.listByApp("com.costs.days", {
      from: "2026-11-02",
      to: "2026-11-03",
    });
    expect(listed.map((r) => r.campaignId).sort()).toEqual(
      [...Array.from({ length: 20 }, (_, i) => `c-${i}`), "c-last"].sort(),
    );
  });

  it("lets a row received at the same time replace it, the one written last standing", async () => {
    const costs = createCostStore(dynamo().doc, LOCAL_TABLE_NAMES.costs);
    const time = "2026-11-03T09:00:00.000Z";
    expect(await costs.put([at(time, 1, "c-tie"), at(time, 2, "c-tie")])).toEqual({
      replaced: 1,
    });
    expect(await costs.put([at(time, 3, "c-tie")])).toEqual({ replaced: 1 });
    expect(await stored(at(time, 0, "c-tie"))).toBe(3);
  });
});

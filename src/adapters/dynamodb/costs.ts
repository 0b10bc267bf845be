/**
 * Cost rows on DynamoDB: one item per app, day and keys (`<app id>#<key>`: the row's day,
 * media source, campaign, ad set, ad and country), so a row sent again for the same keys is
 * written over, unless the one it would replace was received later; an index by app sorted by
 * day and key reads an app's days.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
} from "@aws-sdk/lib-dynamodb";
import pLimit from "p-limit";
import * as z from "zod";
import { costKeyOf } from "../../costs/cost-rows.ts";
import type { CostRow, CostStore } from "../../ports/costs.ts";
import { unlessConditionFails } from "./conditional.ts";
import { indexOf } from "./table-definitions.ts";

const BY_APP = indexOf("costs", "byApp");

const rowSchema = z.object({
  appId: z.string(),
  day: z.string(),
  mediaSource: z.string(),
  campaignId: z.string(),
  campaignName: z.string().nullable(),
  adsetId: z.string().nullable(),
  adsetName: z.string().nullable(),
  adId: z.string().nullable(),
  adName: z.string().nullable(),
  country: z.string().nullable(),
  amount: z.number(),
  currency: z.string(),
  amountUsd: z.number().nullable(),
  impressions: z.number().nullable(),
  clicks: z.number().nullable(),
  receivedAt: z.string(),
});

const rowOf = (item: Record<string, unknown>): CostRow =>
  rowSchema.parse(JSON.parse(z.object({ body: z.string() }).parse(item).body));

/**
 * Puts sent at once: an upload holds up to 1,000 rows, one round trip to DynamoDB each, in a
 * route with a 10-second timeout. Not BatchWriteItem, which does not say which rows replaced one.
 */
export const COST_PUTS_AT_ONCE = 25;

export const createCostStore = (doc: DynamoDBDocumentClient, table: string): CostStore => ({
  async put(rows) {
    // Rows of the same keys in turn, in their order, so that the last one stands, as it would
    // one at a time (the route refuses such rows, which any other caller may send).
    const byKey = new Map<string, CostRow[]>();
    for (const row of rows) {
      const key = `${row.appId}#${costKeyOf(row)}`;
      const same = byKey.get(key);
      if (same) same.push(row);
      else byKey.set(key, [row]);
    }
    const puts = pLimit(COST_PUTS_AT_ONCE);
    let replaced = 0;
    const putRow = async (row: CostRow) => {
      const key = costKeyOf(row);
      // Two uploads of the same keys may reach the table in either order (each puts its rows
      // to the lake first, whose put may be slow): the row received last stands, as it does
      // in the lake, whatever order the puts land in (the times are toISOString's, which sort
      // as text). A row refused so is no error: the later one is what the reports should read.
      // A tie replaces: an upload's rows of the same keys share their time and the last of
      // them stands, and of two uploads received in the same millisecond neither is the later,
      // so the one written last may stand.
      const written = await unlessConditionFails(() =>
        doc.send(
          new PutCommand({
            TableName: table,
            Item: {
              costKey: `${row.appId}#${key}`,
              appId: row.appId,
              // Days sort as text; the key after the day keeps each item's sort key its own.
              daySort: `${row.day}#${key}`,
              receivedAt: row.receivedAt,
              body: JSON.stringify(row),
            },
            ConditionExpression: "attribute_not_exists(costKey) OR receivedAt <= :receivedAt",
            ExpressionAttributeValues: { ":receivedAt": row.receivedAt },
            ReturnValues: "ALL_OLD",
          }),
        ),
      );
      if (written?.Attributes) replaced += 1;
    };
    const outcomes = await Promise.allSettled(
      [...byKey.values()].map((same) =>
        puts(async () => {
          for (const row of same) await putRow(row);
        }),
      ),
    );
    // Every put has ended, so none lands after the call has failed.
    const failed = outcomes.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
    return { replaced };
  },
  async listByApp(appId, days) {
    const found: CostRow[] = [];
    const pages = paginateQuery(
      { client: doc },
      {
        TableName: table,
        IndexName: BY_APP.name,
        KeyConditionExpression: "#app = :app AND #sort BETWEEN :from AND :to",
        ExpressionAttributeNames: { "#app": BY_APP.partitionKey, "#sort": BY_APP.sortKey },
        ExpressionAttributeValues: { ":app": appId, ":from": days.from, ":to": `${days.to}~` },
      },
    );
    for await (const page of pages) for (const item of page.Items ?? []) found.push(rowOf(item));
    return found;
  },
});

/** One row by its keys, for tests and the CLI's checks. */
export const getCostRow = async (
  doc: DynamoDBDocumentClient,
  table: string,
  row: CostRow,
): Promise<CostRow | undefined> => {
  const { Item } = await doc.send(
    new GetCommand({ TableName: table, Key: { costKey: `${row.appId}#${costKeyOf(row)}` } }),
  );
  return Item ? rowOf(Item) : undefined;
};

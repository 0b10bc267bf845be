/**
 * Cost rows on DynamoDB: one item per app, day and keys (`<app id>#<key>`: the row's day,
 * media source, campaign, ad set, ad and country), so a row sent again for the same keys is
 * written over; an index by app sorted by day and key reads an app's days.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { costKeyOf } from "../../costs/cost-rows.ts";
import type { CostRow, CostStore } from "../../ports/costs.ts";
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

export const createCostStore = (doc: DynamoDBDocumentClient, table: string): CostStore => ({
  async put(rows) {
    let replaced = 0;
    for (const row of rows) {
      const key = costKeyOf(row);
      const { Attributes } = await doc.send(
        new PutCommand({
          TableName: table,
          Item: {
            costKey: `${row.appId}#${key}`,
            appId: row.appId,
            // Days sort as text; the key after the day keeps each item's sort key its own.
            daySort: `${row.day}#${key}`,
            body: JSON.stringify(row),
          },
          ReturnValues: "ALL_OLD",
        }),
      );
      if (Attributes) replaced += 1;
    }
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

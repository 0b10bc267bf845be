/**
 * A data folder's touches and sightings kept in the embedded DynamoDB's `touches` table, as the
 * embedded runtime kept them before it had a touch store of its own, moved into that store at
 * start: a page of the table at a time, each written to the store and then deleted from the
 * table, so that a stop halfway leaves the rest for the next start, and a page moved twice is
 * written over with itself. Items already expired are left behind (deleted). An empty table
 * costs one page's read.
 */
import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  paginateScan,
} from "@aws-sdk/lib-dynamodb";
import type { Touch } from "../../ports/touches.ts";
import { CLAIM_KEY_PREFIX, indexOf, SIGHTING_KEY_PREFIX } from "../dynamodb/table-definitions.ts";
import { toTouch } from "../dynamodb/touches.ts";
import type { LocalTouchStore } from "./touch-store.ts";

const BY_IP = indexOf("touches", "byIp");
/** How a sighting's address key ends in the table (./sightings.ts). */
const SIGHTING_ADDRESS_SUFFIX = "#seen";
/** BatchWriteItem's limit. */
const BATCH = 25;

export const moveTouchesFromDynamoDb = async (
  doc: DynamoDBDocumentClient,
  table: string,
  store: LocalTouchStore,
  now = new Date(),
): Promise<{ touches: number; sightings: number }> => {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const moved = { touches: 0, sightings: 0 };
  const pages = paginateScan({ client: doc, pageSize: 500 }, { TableName: table });
  for await (const page of pages) {
    const items = page.Items ?? [];
    const touches: Touch[] = [];
    const sightings: { address: string; sortKey: string }[] = [];
    for (const item of items) {
      // Expired, or a claim of a click (none was ever written to this table): left behind.
      if (Number(item.expiresTtl) < nowSeconds) continue;
      if (String(item.clickId).startsWith(CLAIM_KEY_PREFIX)) continue;
      if (String(item.clickId).startsWith(SIGHTING_KEY_PREFIX)) {
        const address = String(item[BY_IP.partitionKey]);
        sightings.push({
          address: address.slice(0, -SIGHTING_ADDRESS_SUFFIX.length),
          sortKey: String(item[BY_IP.sortKey]),
        });
      } else {
        touches.push(toTouch(item));
      }
    }
    await store.put(touches);
    await store.restoreSightings(sightings);
    moved.touches += touches.length;
    moved.sightings += sightings.length;
    for (let start = 0; start < items.length; start += BATCH) {
      await doc.send(
        new BatchWriteCommand({
          RequestItems: {
            [table]: items
              .slice(start, start + BATCH)
              .map((item) => ({ DeleteRequest: { Key: { clickId: item.clickId } } })),
          },
        }),
      );
    }
  }
  return moved;
};

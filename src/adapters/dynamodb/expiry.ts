/**
 * What the tables whose items expire share: an item's expiry as DynamoDB's TTL reads it (Unix
 * seconds in `expiresTtl`), the keys of the items past it, and batched writes and deletes. On
 * AWS the TTL removes expired items by itself; the embedded runtime's DynamoDB has no TTL, and
 * its jobs remove them with these.
 */
import {
  BatchWriteCommand,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
  paginateScan,
} from "@aws-sdk/lib-dynamodb";

export const epochSeconds = (ms: number) => Math.floor(ms / 1000);

type WriteRequest = NonNullable<BatchWriteCommandOutput["UnprocessedItems"]>[string][number];

/** Writes in batches of 25, sending again what DynamoDB left unprocessed. */
export const writeAll = async (
  doc: DynamoDBDocumentClient,
  table: string,
  requests: readonly WriteRequest[],
): Promise<void> => {
  for (let start = 0; start < requests.length; start += 25) {
    let pending: BatchWriteCommandOutput["UnprocessedItems"] | undefined = {
      [table]: requests.slice(start, start + 25),
    };
    for (let attempt = 0; pending?.[table]?.length; attempt++) {
      if (attempt > 8) throw new Error(`DynamoDB kept refusing writes on ${table}`);
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 10));
      const answer: BatchWriteCommandOutput = await doc.send(
        new BatchWriteCommand({ RequestItems: pending }),
      );
      pending = answer.UnprocessedItems;
    }
  }
};

/** Deletes items by key in batches of 25. */
export const deleteAll = (
  doc: DynamoDBDocumentClient,
  table: string,
  keys: readonly Record<string, string>[],
): Promise<void> =>
  writeAll(
    doc,
    table,
    keys.map((Key) => ({ DeleteRequest: { Key } })),
  );

/** The keys of the items whose `expiresTtl` has passed at `now`. */
export const expiredKeys = async (
  doc: DynamoDBDocumentClient,
  table: string,
  key: string,
  now: Date,
): Promise<Record<string, string>[]> => {
  const found: Record<string, string>[] = [];
  const pages = paginateScan(
    { client: doc },
    {
      TableName: table,
      ProjectionExpression: "#key",
      FilterExpression: "expiresTtl < :now",
      ExpressionAttributeNames: { "#key": key },
      ExpressionAttributeValues: { ":now": epochSeconds(now.getTime()) },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) found.push({ [key]: String(item[key]) });
  }
  return found;
};

/**
 * A table-stream worker on AWS (src/workers/table-stream-workers.ts): the Lambda handler a
 * DynamoDB stream's event source calls with a batch of new items (the source's filter lets only
 * the row's items through). Each item's new image is read as the table's store reads its items,
 * and the batch is handed over whole; a failure rejects the invocation, which the event source
 * tries again (halving the batch), then sends to the row's failure queue.
 */
import { unmarshall } from "@aws-sdk/util-dynamodb";
import middy from "@middy/core";
import type { DynamoDBStreamEvent } from "aws-lambda";

export const createNewItemsHandler = <T>(
  itemOf: (item: Record<string, unknown>) => T,
  handle: (items: readonly T[]) => Promise<void>,
) =>
  middy<DynamoDBStreamEvent, void>().handler(async (event) => {
    const items: T[] = [];
    for (const record of event.Records) {
      const image = record.dynamodb?.NewImage;
      if (record.eventName !== "INSERT" || !image) continue;
      // The stream's attribute values and the SDK's are the same shapes, typed apart.
      items.push(itemOf(unmarshall(image as Parameters<typeof unmarshall>[0])));
    }
    await handle(items);
  });

/**
 * A table-stream worker on AWS (src/workers/table-stream-workers.ts): the Lambda handler a
 * DynamoDB stream's event source calls with a batch of new items (the source's filter lets only
 * the row's items through). Each item's new image is read as the table's store reads its items,
 * and the batch is handed over whole; a failure rejects the invocation, which the event source
 * tries again (halving the batch), then sends to the row's failure queue.
 *
 * An item that can never be handled is skipped instead, with a line naming its keys: one its
 * store's reader refuses, or one the handler refuses with a record error (a TypeError, as a lake
 * stream's check of its records throws, or a ZodError). Tried again, it would hold back every
 * later item of its shard until the source gave it up, when its records are almost as old as
 * the stream keeps them. The item itself stays in its table.
 */
import { unmarshall } from "@aws-sdk/util-dynamodb";
import middy from "@middy/core";
import type { DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import * as z from "zod";
import { logger } from "../../logging/logger.ts";

/** The log line of a skipped item: the stack counts these lines, and alarms on them. */
export const SKIPPED_ITEM_MESSAGE = "stream record skipped";

const isRecordError = (error: unknown): boolean =>
  error instanceof TypeError || error instanceof z.ZodError;

/** Where a record is: enough to find its item in the table, and its place in the stream. */
const whereOf = (record: DynamoDBRecord) => ({
  eventId: record.eventID,
  sequenceNumber: record.dynamodb?.SequenceNumber,
  keys: record.dynamodb?.Keys
    ? unmarshall(record.dynamodb.Keys as Parameters<typeof unmarshall>[0])
    : undefined,
});

const skipped = (record: DynamoDBRecord, error: unknown) =>
  logger.error(SKIPPED_ITEM_MESSAGE, { ...whereOf(record), error });

export const createNewItemsHandler = <T>(
  itemOf: (item: Record<string, unknown>) => T,
  handle: (items: readonly T[]) => Promise<void>,
) =>
  middy<DynamoDBStreamEvent, void>().handler(async (event) => {
    const read: { item: T; record: DynamoDBRecord }[] = [];
    for (const record of event.Records) {
      const image = record.dynamodb?.NewImage;
      if (record.eventName !== "INSERT" || !image) continue;
      try {
        // The stream's attribute values and the SDK's are the same shapes, typed apart.
        read.push({ item: itemOf(unmarshall(image as Parameters<typeof unmarshall>[0])), record });
      } catch (error) {
        skipped(record, error);
      }
    }
    try {
      await handle(read.map(({ item }) => item));
    } catch (error) {
      if (!isRecordError(error) || read.length === 0) throw error;
      // Which item was refused: each handled alone. Any other failure is the batch's again.
      for (const { item, record } of read) {
        try {
          await handle([item]);
        } catch (alone) {
          if (!isRecordError(alone)) throw alone;
          skipped(record, alone);
        }
      }
    }
  });

/**
 * Apple's postbacks on DynamoDB: one item per postback keyed by `<framework>#<transaction id>`
 * (a second copy is refused by a conditional put), and an index by app, sorted by when each
 * was received, for the reports and the listing. A postback of no app is kept under the
 * partition `-`, which no app id can be.
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { ValidationError } from "../../domain/errors.ts";
import type { ApplePostbackStore, StoredApplePostback } from "../../ports/apple-postbacks.ts";
import { conditionHolds } from "./conditional.ts";
import { indexOf } from "./table-definitions.ts";

const BY_APP = indexOf("applePostbacks", "byApp");
const NO_APP = "-";

const keyOf = (postback: Pick<StoredApplePostback, "kind" | "transactionId">) =>
  `${postback.kind}#${postback.transactionId}`;

const cursorSchema = z.object({
  postbackKey: z.string(),
  appKey: z.string(),
  receivedKey: z.string(),
});

const encodeCursor = (key: Record<string, unknown>) =>
  Buffer.from(
    JSON.stringify({
      postbackKey: key.postbackKey,
      appKey: key.appKey,
      receivedKey: key.receivedKey,
    }),
  ).toString("base64url");

const NOT_A_CURSOR = "cursor: must be the next_cursor of an earlier page";

/**
 * A cursor of this app's listing over this range, or a refusal: DynamoDB refuses a start key
 * its query could not have given (another app's, outside the range, keys that disagree), and
 * that refusal is the caller's mistake, not the service's.
 */
const decodeCursor = (cursor: string, appKey: string, range: { from: string; to: string }) => {
  let after: z.output<typeof cursorSchema>;
  try {
    after = cursorSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch {
    throw new ValidationError(NOT_A_CURSOR);
  }
  const fits =
    after.appKey === appKey &&
    after.postbackKey !== "" &&
    after.receivedKey.endsWith(`#${after.postbackKey}`) &&
    after.receivedKey >= range.from &&
    after.receivedKey <= range.to;
  if (!fits) throw new ValidationError(NOT_A_CURSOR);
  return after;
};

const bodyOf = (item: Record<string, unknown>): StoredApplePostback =>
  JSON.parse(z.object({ body: z.string() }).parse(item).body) as StoredApplePostback;

export const createApplePostbackStore = (
  doc: DynamoDBDocumentClient,
  table: string,
): ApplePostbackStore => ({
  add: (postback) => {
    const postbackKey = keyOf(postback);
    return conditionHolds(() =>
      doc.send(
        new PutCommand({
          TableName: table,
          Item: {
            postbackKey,
            appKey: postback.appId ?? NO_APP,
            // Unique per postback: the time, then its key.
            receivedKey: `${postback.receivedAt}#${postbackKey}`,
            body: JSON.stringify(postback),
          },
          ConditionExpression: "attribute_not_exists(postbackKey)",
        }),
      ),
    );
  },
  async remove(postback) {
    await doc.send(new DeleteCommand({ TableName: table, Key: { postbackKey: keyOf(postback) } }));
  },
  async listByApp(appId, range, page) {
    const appKey = appId ?? NO_APP;
    // Before `to`: every key of an earlier time sorts below `to` itself.
    const bounds = { from: range.from.toISOString(), to: range.to.toISOString() };
    const after = page.after === undefined ? undefined : decodeCursor(page.after, appKey, bounds);
    const { Items, LastEvaluatedKey } = await doc.send(
      new QueryCommand({
        TableName: table,
        IndexName: BY_APP.name,
        KeyConditionExpression: "#app = :app AND #sort BETWEEN :from AND :to",
        ExpressionAttributeNames: { "#app": BY_APP.partitionKey, "#sort": BY_APP.sortKey },
        ExpressionAttributeValues: { ":app": appKey, ":from": bounds.from, ":to": bounds.to },
        Limit: page.limit,
        ...(after ? { ExclusiveStartKey: after } : {}),
      }),
    );
    return {
      postbacks: (Items ?? []).map(bodyOf),
      next: LastEvaluatedKey ? encodeCursor(LastEvaluatedKey) : null,
    };
  },
});

/**
 * Apple's postbacks on DynamoDB: one item per postback keyed by
 * `<framework>#<transaction id>#<window>` (a second copy is refused by a conditional put, but
 * for one of higher standing in a lower one's place: Apple's signed copy in an unverified one's,
 * one signed for production in a test's), and an index by app, sorted by when each
 * was received, for the reports and the listing. A postback of no app is kept under the
 * partition `-`, which no app id can be. An unverified one expires (DynamoDB's TTL on AWS,
 * `reap` on the embedded runtime).
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { DAY_MS } from "../../domain/time.ts";
import {
  type ApplePostbackStore,
  copyStanding,
  type PostbackKey,
  type StoredApplePostback,
  UNVERIFIED_POSTBACK_DAYS,
} from "../../ports/apple-postbacks.ts";
import { conditionHolds } from "./conditional.ts";
import { epochSeconds, expiredKeys } from "./expiry.ts";
import { pageCursor } from "./page-cursor.ts";
import { indexOf } from "./table-definitions.ts";

const BY_APP = indexOf("applePostbacks", "byApp");
const NO_APP = "-";

const keyOf = (postback: PostbackKey) =>
  `${postback.kind}#${postback.transactionId}#${postback.sequenceIndex}`;

/** A page's cursor: the last item's keys, the app's and the range's checked as it is read. */
const CURSOR = pageCursor(
  z
    .object({ postbackKey: z.string().min(1), appKey: z.string(), receivedKey: z.string() })
    .refine(({ postbackKey, receivedKey }) => receivedKey.endsWith(`#${postbackKey}`)),
  ["postbackKey", "appKey", "receivedKey"],
);

/** An item's postback: its body, and whether its values were disputed since it was stored. */
const bodyOf = (item: Record<string, unknown>): StoredApplePostback => {
  const { body, disputed } = z
    .object({ body: z.string(), disputed: z.boolean().optional() })
    .parse(item);
  return { ...(JSON.parse(body) as StoredApplePostback), valuesDisputed: disputed === true };
};

export const createApplePostbackStore = (
  doc: DynamoDBDocumentClient,
  table: string,
): ApplePostbackStore => ({
  async get(key) {
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: { postbackKey: keyOf(key) }, ConsistentRead: true }),
    );
    return Item ? bodyOf(Item) : undefined;
  },
  add: (postback) => {
    const postbackKey = keyOf(postback);
    const standing = copyStanding(postback);
    const verified = standing > 0;
    return conditionHolds(() =>
      doc.send(
        new PutCommand({
          TableName: table,
          Item: {
            postbackKey,
            appKey: postback.appId ?? NO_APP,
            // Unique per postback: the time, then its key.
            receivedKey: `${postback.receivedAt}#${postbackKey}`,
            standing,
            body: JSON.stringify(postback),
            // An unverified one expires; the verified copy that takes its place has no expiry.
            ...(verified
              ? {}
              : {
                  expiresTtl: epochSeconds(
                    Date.parse(postback.receivedAt) + UNVERIFIED_POSTBACK_DAYS * DAY_MS,
                  ),
                }),
          },
          // A copy takes the place of one of lower standing only (ports/apple-postbacks.ts).
          ...(verified
            ? {
                ConditionExpression: "attribute_not_exists(postbackKey) OR standing < :standing",
                ExpressionAttributeValues: { ":standing": standing },
              }
            : { ConditionExpression: "attribute_not_exists(postbackKey)" }),
        }),
      ),
    );
  },
  async dispute(key) {
    await conditionHolds(() =>
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { postbackKey: keyOf(key) },
          UpdateExpression: "SET disputed = :true",
          ConditionExpression: "attribute_exists(postbackKey)",
          ExpressionAttributeValues: { ":true": true },
        }),
      ),
    );
  },
  async listByApp(appId, range, page) {
    const appKey = appId ?? NO_APP;
    // Before `to`: every key of an earlier time sorts below `to` itself.
    const bounds = { from: range.from.toISOString(), to: range.to.toISOString() };
    // DynamoDB refuses a start key of another app's, or outside the range.
    const after =
      page.after === undefined
        ? undefined
        : CURSOR.decode(
            page.after,
            (keys) =>
              keys.appKey === appKey &&
              keys.receivedKey >= bounds.from &&
              keys.receivedKey <= bounds.to,
          );
    const { Items, LastEvaluatedKey } = await doc.send(
      new QueryCommand({
        TableName: table,
        IndexName: BY_APP.name,
        KeyConditionExpression: "#app = :app AND #sort BETWEEN :from AND :to",
        // An unverified postback past its lifetime is gone, though DynamoDB's TTL (or the
        // embedded reaper) may take a while to remove it: the lake's report leaves it out then.
        FilterExpression: "attribute_not_exists(expiresTtl) OR expiresTtl > :now",
        ExpressionAttributeNames: { "#app": BY_APP.partitionKey, "#sort": BY_APP.sortKey },
        ExpressionAttributeValues: {
          ":app": appKey,
          ":from": bounds.from,
          ":to": bounds.to,
          ":now": epochSeconds(Date.now()),
        },
        Limit: page.limit + 1,
        ...(after ? { ExclusiveStartKey: after } : {}),
      }),
    );
    const { items, next } = CURSOR.page(Items, LastEvaluatedKey, page.limit);
    return { postbacks: items.map(bodyOf), next };
  },
  async reap(now) {
    const expired = await expiredKeys(doc, table, "postbackKey", now);
    let removed = 0;
    // One by one, under the expiry: a verified copy written since the scan has none, and stays.
    for (const Key of expired) {
      const gone = await conditionHolds(() =>
        doc.send(
          new DeleteCommand({
            TableName: table,
            Key,
            ConditionExpression: "expiresTtl < :now",
            ExpressionAttributeValues: { ":now": epochSeconds(now.getTime()) },
          }),
        ),
      );
      if (gone) removed += 1;
    }
    return removed;
  },
});

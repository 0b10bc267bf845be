/**
 * Apple's postbacks on DynamoDB: one item per postback keyed by
 * `<framework>#<transaction id>#<window>` (a second copy is refused by a conditional put, but
 * for one of higher standing in a lower one's place: Apple's signed copy in an unverified one's,
 * one signed for production in a test's), and an index by app, sorted by when each
 * was received, for the reports and the listing. A postback of no app is kept under the
 * partition `-`, which no app id can be; one of them that Apple's production key verified also
 * carries its App Store id (`unclaimedKey`), by which a sparse index finds it for the app whose
 * settings have that id later. An item's put writes it whole, so a copy that takes an item's
 * place under an app leaves no `unclaimedKey` behind. An unverified one expires (DynamoDB's TTL
 * on AWS, `reap` on the embedded runtime).
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
import { type PageCursor, pageCursor } from "./page-cursor.ts";
import { indexOf } from "./table-definitions.ts";

const BY_APP = indexOf("applePostbacks", "byApp");
const UNCLAIMED = indexOf("applePostbacks", "unclaimed");
const NO_APP = "-";

const keyOf = (postback: PostbackKey) =>
  `${postback.kind}#${postback.transactionId}#${postback.sequenceIndex}`;

/** A listing: an index, and its page cursor with the partition its keys name. */
interface Listing<K extends { readonly receivedKey: string }> {
  readonly index: {
    readonly name: string;
    readonly partitionKey: string;
    readonly sortKey: string;
  };
  readonly cursor: PageCursor<K>;
  readonly partitionOf: (keys: K) => string;
}

/**
 * The two listings' indexes, each with its page cursor (the last item's keys, checked as it is
 * read: the partition's, and the range's).
 */
const LISTINGS: {
  readonly byApp: Listing<{ postbackKey: string; appKey: string; receivedKey: string }>;
  readonly unclaimed: Listing<{ postbackKey: string; unclaimedKey: string; receivedKey: string }>;
} = {
  byApp: {
    index: BY_APP,
    cursor: pageCursor(
      z
        .object({ postbackKey: z.string().min(1), appKey: z.string(), receivedKey: z.string() })
        .refine(({ postbackKey, receivedKey }) => receivedKey.endsWith(`#${postbackKey}`)),
      ["postbackKey", "appKey", "receivedKey"],
    ),
    partitionOf: (keys: { readonly appKey: string }) => keys.appKey,
  },
  unclaimed: {
    index: UNCLAIMED,
    cursor: pageCursor(
      z
        .object({
          postbackKey: z.string().min(1),
          unclaimedKey: z.string(),
          receivedKey: z.string(),
        })
        .refine(({ postbackKey, receivedKey }) => receivedKey.endsWith(`#${postbackKey}`)),
      ["postbackKey", "unclaimedKey", "receivedKey"],
    ),
    partitionOf: (keys: { readonly unclaimedKey: string }) => keys.unclaimedKey,
  },
};

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
): ApplePostbackStore => {
  /** A page of one partition of a listing's index, received in [from, to), oldest first. */
  const pageOf = async <K extends { readonly receivedKey: string }>(
    { index, cursor, partitionOf }: Listing<K>,
    partition: string,
    range: { readonly from: Date; readonly to: Date },
    page: { readonly limit: number; readonly after?: string },
  ) => {
    // Before `to`: every key of an earlier time sorts below `to` itself.
    const bounds = { from: range.from.toISOString(), to: range.to.toISOString() };
    // DynamoDB refuses a start key of another partition's, or outside the range.
    const after =
      page.after === undefined
        ? undefined
        : cursor.decode(
            page.after,
            (keys) =>
              partitionOf(keys) === partition &&
              keys.receivedKey >= bounds.from &&
              keys.receivedKey <= bounds.to,
          );
    const { Items, LastEvaluatedKey } = await doc.send(
      new QueryCommand({
        TableName: table,
        IndexName: index.name,
        KeyConditionExpression: "#partition = :partition AND #sort BETWEEN :from AND :to",
        // An unverified postback past its lifetime is gone, though DynamoDB's TTL (or the
        // embedded reaper) may take a while to remove it: the lake's report leaves it out then.
        FilterExpression: "attribute_not_exists(expiresTtl) OR expiresTtl > :now",
        ExpressionAttributeNames: { "#partition": index.partitionKey, "#sort": index.sortKey },
        ExpressionAttributeValues: {
          ":partition": partition,
          ":from": bounds.from,
          ":to": bounds.to,
          ":now": epochSeconds(Date.now()),
        },
        Limit: page.limit + 1,
        ...(after ? { ExclusiveStartKey: after } : {}),
      }),
    );
    const { items, next } = cursor.page(Items, LastEvaluatedKey, page.limit);
    return { postbacks: items.map(bodyOf), next };
  };
  return {
    async get(key) {
      const { Item } = await doc.send(
        new GetCommand({
          TableName: table,
          Key: { postbackKey: keyOf(key) },
          ConsistentRead: true,
        }),
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
              // Apple signed this App Store id for an install: the app that has it later counts it.
              ...(postback.appId === null && standing === 2
                ? { unclaimedKey: postback.appStoreId }
                : {}),
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
    listByApp: (appId, range, page) => pageOf(LISTINGS.byApp, appId ?? NO_APP, range, page),
    listUnclaimed: (appStoreId, range, page) => pageOf(LISTINGS.unclaimed, appStoreId, range, page),
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
  };
};

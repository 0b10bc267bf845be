/** The links store on DynamoDB: a link by its id, and an app's links newest first. */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import type { Link, LinkStore } from "../../ports/links.ts";
import { adFieldsItem, costItem } from "./ad-fields.ts";
import { conditionHolds } from "./conditional.ts";
import { pageCursor } from "./page-cursor.ts";
import { stringMapItem, stringMapText } from "./string-map.ts";
import { indexOf } from "./table-definitions.ts";

const BY_APP = indexOf("links", "byApp");

const text = z.string().nullable();

const linkItem = z.object({
  deeplinkId: z.string(),
  appId: z.string(),
  url: z.string(),
  ...adFieldsItem,
  deepLinkPath: text,
  params: stringMapItem,
  androidUrl: text,
  iosUrl: text,
  webUrl: text,
  disabled: z.boolean(),
  landingPage: z.boolean(),
  forwardParams: z.boolean(),
  previewTitle: text,
  previewDescription: text,
  previewImageUrl: text,
  cost: costItem,
  createdAt: z.string(),
});

const toLink = (item: Record<string, unknown>): Link => linkItem.parse(item);

/** The index's sort key: creation order, ties broken by id. */
const createdKey = (link: Pick<Link, "createdAt" | "deeplinkId">) =>
  `${link.createdAt}#${link.deeplinkId}`;

// A page cursor is the last item's keys; the app's id comes from the caller, not the cursor.
const CURSOR = pageCursor(
  z
    .object({ deeplinkId: z.string().min(1), createdKey: z.string() })
    .refine(({ deeplinkId, createdKey }) => createdKey.endsWith(`#${deeplinkId}`)),
  ["deeplinkId", "createdKey"],
);

export const createLinkStore = (doc: DynamoDBDocumentClient, table: string): LinkStore => {
  // Strongly consistent: a link changed or disabled is seen by the next read, so the link host's
  // cache is the only delay (README.md), at the cost of its misses' reads.
  const get = async (deeplinkId: string) => {
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: { deeplinkId }, ConsistentRead: true }),
    );
    return Item ? toLink(Item) : undefined;
  };
  return {
    create: (link) =>
      conditionHolds(() =>
        doc.send(
          new PutCommand({
            TableName: table,
            Item: { ...link, params: stringMapText(link.params), createdKey: createdKey(link) },
            ConditionExpression: "attribute_not_exists(deeplinkId)",
          }),
        ),
      ),
    get,
    async listByApp(appId, page) {
      const after = page.after === undefined ? undefined : CURSOR.decode(page.after);
      const { Items, LastEvaluatedKey } = await doc.send(
        new QueryCommand({
          TableName: table,
          IndexName: BY_APP.name,
          KeyConditionExpression: "#app = :app",
          ExpressionAttributeNames: { "#app": BY_APP.partitionKey },
          ExpressionAttributeValues: { ":app": appId },
          ScanIndexForward: false,
          Limit: page.limit + 1,
          ExclusiveStartKey: after ? { ...after, appId } : undefined,
        }),
      );
      const { items, next } = CURSOR.page(Items, LastEvaluatedKey, page.limit);
      return { links: items.map(toLink), next };
    },
    async update(appId, deeplinkId, change) {
      const fields = Object.entries(change).filter(([, value]) => value !== undefined);
      if (fields.length === 0) {
        const link = await get(deeplinkId);
        return link?.appId === appId ? link : undefined;
      }
      let updated: Record<string, unknown> | undefined;
      const held = await conditionHolds(async () => {
        const { Attributes } = await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: { deeplinkId },
            UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(", ")}`,
            // Another app's link is left alone, and not made either.
            ConditionExpression: "appId = :app",
            ExpressionAttributeNames: Object.fromEntries(
              fields.map(([name], i) => [`#f${i}`, name]),
            ),
            ExpressionAttributeValues: {
              ":app": appId,
              ...Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])),
            },
            ReturnValues: "ALL_NEW",
          }),
        );
        updated = Attributes;
      });
      return held && updated ? toLink(updated) : undefined;
    },
  };
};

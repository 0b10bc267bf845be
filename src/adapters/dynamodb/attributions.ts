/**
 * The attributions store on DynamoDB: one item per install, keyed `<app>#<service id>`. A
 * pending item holds the facts matching reads; resolving replaces them with the result under a
 * condition, so an install is attributed once however many runs race. Until its lake rows are
 * written an item carries `openMarker`, which puts it in the sparse `open` index the sweeper
 * reads; the marker is sharded (./shards.ts), so installs in flight spread over partitions.
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { CONFIDENCE_LEVELS, INSTALL_TYPES } from "../../domain/attribution.ts";
import { ATT_STATUSES, OS_VALUES } from "../../domain/install-facts.ts";
import { TOUCH_TYPES } from "../../domain/touch.ts";
import type { AttributionRecord, AttributionStore } from "../../ports/attributions.ts";
import { MATCH_STATUSES } from "../../ports/attributions.ts";
import { adFieldsItem, costItem } from "./ad-fields.ts";
import { conditionHolds } from "./conditional.ts";
import { shards } from "./shards.ts";
import { stringMapItem, stringMapText } from "./string-map.ts";
import { indexOf } from "./table-definitions.ts";

const OPEN = indexOf("attributions", "open");
const OPEN_MARKERS = shards(16);
const openMarkerOf = (appId: string, serviceId: string) =>
  OPEN_MARKERS.keyOf("open", `${appId}#${serviceId}`);

const text = z.string().nullable();

const factsItem = z.object({
  appId: z.string(),
  os: z.enum(OS_VALUES),
  osVersion: text,
  deviceModel: text,
  firstOpenTime: z.string(),
  receivedAt: z.string(),
  clockOffsetMs: z.number().nullable(),
  maid: text,
  attStatus: z.enum(ATT_STATUSES).nullable(),
  referrerClickId: text,
  openUrlClickId: text,
  installBeganAt: text,
  deviceReferrerClickAt: text,
  deviceInstallBeganAt: text,
  ip: text,
  userAgent: text,
  platformAdsToken: text,
});

const resultItem = z.object({
  ...adFieldsItem,
  mediaSource: text,
  status: z.enum(MATCH_STATUSES).exclude(["failed"]),
  method: z.enum(["click_id", "search_ads", "advertising_id", "probabilistic"]).nullable(),
  clickId: text,
  deeplinkId: text,
  matchingType: z.enum(["network", "geo"]).nullable(),
  confidence: z.enum(CONFIDENCE_LEVELS).nullable(),
  clickToFirstOpenHours: z.number().nullable(),
  installType: z.enum(INSTALL_TYPES).nullable(),
  reinstall: z.boolean(),
  repeatsClick: z.boolean(),
  otherCandidates: z.number(),
  params: stringMapItem,
  cost: costItem,
  touchTime: text,
  touchType: z.enum(TOUCH_TYPES).nullable(),
  networkClickId: text,
  urlParams: stringMapItem,
  attributedAt: z.string(),
});

const recordItem = z.discriminatedUnion("state", [
  z.object({
    state: z.enum(["pending", "failed"]),
    appId: z.string(),
    serviceId: z.string(),
    facts: factsItem,
    requestedAt: z.string(),
  }),
  z.object({
    state: z.literal("resolved"),
    appId: z.string(),
    serviceId: z.string(),
    result: resultItem,
    delivered: z.boolean(),
    // Removed once delivered.
    sender: z.object({ ip: text, userAgent: text }).nullable().default(null),
  }),
  // requestedAt stays on a resolved item, for the sweeper; the record does not carry it.
]);

const keyOf = (appId: string, serviceId: string) => ({
  attributionKey: `${appId}#${serviceId}`,
});

export const createAttributionStore = (
  doc: DynamoDBDocumentClient,
  table: string,
): AttributionStore => ({
  createPending: (pending) =>
    conditionHolds(() =>
      doc.send(
        new PutCommand({
          TableName: table,
          Item: {
            ...keyOf(pending.appId, pending.serviceId),
            ...pending,
            state: "pending",
            openMarker: openMarkerOf(pending.appId, pending.serviceId),
          },
          ConditionExpression: "attribute_not_exists(attributionKey)",
        }),
      ),
    ),
  async get(appId, serviceId) {
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: keyOf(appId, serviceId), ConsistentRead: true }),
    );
    // Its key and open marker are no field of the record, and zod's objects leave them out.
    return Item ? (recordItem.parse(Item) satisfies AttributionRecord) : undefined;
  },
  resolve: (appId, serviceId, result, sender) =>
    conditionHolds(() =>
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key: keyOf(appId, serviceId),
          UpdateExpression:
            "SET #state = :resolved, #result = :result, delivered = :false, sender = :sender REMOVE facts",
          ConditionExpression: "#state IN (:pending, :failed)",
          ExpressionAttributeNames: { "#state": "state", "#result": "result" },
          ExpressionAttributeValues: {
            ":resolved": "resolved",
            ":result": {
              ...result,
              params: stringMapText(result.params),
              urlParams: stringMapText(result.urlParams),
            },
            ":false": false,
            ":sender": { ip: sender.ip, userAgent: sender.userAgent },
            ":pending": "pending",
            ":failed": "failed",
          },
        }),
      ),
    ),
  async markFailed(appId, serviceId) {
    await conditionHolds(() =>
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key: keyOf(appId, serviceId),
          UpdateExpression: "SET #state = :failed",
          ConditionExpression: "#state = :pending",
          ExpressionAttributeNames: { "#state": "state" },
          ExpressionAttributeValues: { ":failed": "failed", ":pending": "pending" },
        }),
      ),
    );
  },
  async markDelivered(appId, serviceId) {
    await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: keyOf(appId, serviceId),
        UpdateExpression: "SET delivered = :true REMOVE openMarker, sender",
        ConditionExpression: "#state = :resolved",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":true": true, ":resolved": "resolved" },
      }),
    );
  },
  async listOpen(before) {
    const found: { appId: string; serviceId: string }[] = [];
    const readShard = async (marker: string) => {
      const pages = paginateQuery(
        { client: doc },
        {
          TableName: table,
          IndexName: OPEN.name,
          KeyConditionExpression: "#open = :open",
          ExpressionAttributeNames: { "#open": OPEN.partitionKey },
          ExpressionAttributeValues: { ":open": marker },
        },
      );
      for await (const page of pages) {
        for (const item of page.Items ?? []) {
          if (
            typeof item.requestedAt === "string" &&
            Date.parse(item.requestedAt) < before.getTime()
          ) {
            found.push({ appId: String(item.appId), serviceId: String(item.serviceId) });
          }
        }
      }
    };
    await Promise.all(OPEN_MARKERS.all("open").map(readShard));
    return found;
  },
  async delete(appId, serviceId) {
    await doc.send(new DeleteCommand({ TableName: table, Key: keyOf(appId, serviceId) }));
  },
});

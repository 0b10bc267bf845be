/**
 * App, key and snapshot stores on DynamoDB. The same code runs against AWS and against the
 * embedded DynamoDB-compatible server, so it uses only single-item operations, queries on a
 * GSI and conditional writes (no transactions, TTL or streams, which the local server lacks).
 */

import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { ConflictError, NotFoundError } from "../../domain/errors.ts";
import { SCOPES } from "../../domain/keys.ts";
import { type App, type AppStore, type KeyStore, PLATFORMS } from "../../ports/apps.ts";
import {
  type AppSnapshots,
  SNAPSHOT_ENTRY_GRACE_MS,
  type SnapshotCatalog,
  type SnapshotRef,
} from "../../ports/lake.ts";
import { storedConversionSchema } from "../../skadnetwork/conversion-schema.ts";
import { createApplePostbackStore } from "./apple-postbacks.ts";
import { createAttributionStore } from "./attributions.ts";
import { changeVersioned, conditionHolds, putWhen } from "./conditional.ts";
import { createCostStore } from "./costs.ts";
import { createDeletionStore } from "./deletions.ts";
import { createCustomerUserMap, createInstallStore } from "./installs.ts";
import { createLinkStore } from "./links.ts";
import { createDeliveryLog, createOutboxStore, createPostbackConfigStore } from "./postbacks.ts";
import { queryIndex, scanAll } from "./query-index.ts";
import { indexOf, type TableNames } from "./table-definitions.ts";
import { createTouchStore } from "./touches.ts";
import { createSessionStore, createUserStore } from "./users.ts";

const KEYS_BY_APP_INDEX = indexOf("keys", "byApp").name;
const SNAPSHOTS_BY_APP_INDEX = indexOf("snapshots", "byApp").name;

// Items are parsed on the way out, so a hand-edited or older item fails loudly, not silently.
const appItem = z.object({
  appId: z.string(),
  name: z.string(),
  platform: z.enum(PLATFORMS),
  enabled: z.boolean(),
  createdAt: z.string(),
  encryptionEnabled: z.boolean().optional(),
  timeZone: z.string().optional(),
  encryptionKeys: z
    .array(
      z.object({
        keyId: z.string(),
        publicKey: z.string(),
        wrappedPrivateKey: z.string(),
        createdAt: z.string(),
      }),
    )
    .optional(),
  links: z
    .object({
      appStoreId: z.string().optional(),
      playPackage: z.string().optional(),
      iosBundleId: z.string().optional(),
      webUrl: z.string().optional(),
      hosts: z.array(z.string()).optional(),
      appleTeamId: z.string().optional(),
      androidSha256Fingerprints: z.array(z.string()).optional(),
      languages: z.array(z.string()).optional(),
      previewTitle: z.string().optional(),
      previewDescription: z.string().optional(),
      previewImageUrl: z.string().optional(),
    })
    .optional(),
  attribution: z
    .object({
      enabled: z.boolean().optional(),
      clickWindowDays: z.number().optional(),
      viewWindowHours: z.number().optional(),
      probabilisticWindowHours: z.number().optional(),
      probabilistic: z
        .object({ android: z.boolean().optional(), ios: z.boolean().optional() })
        .optional(),
      confidenceFloor: z.enum(["low", "medium"]).optional(),
      deepLinkConfidenceFloor: z.enum(["low", "medium", "high"]).optional(),
    })
    .optional(),
  skadnetwork: z
    .object({
      schema: storedConversionSchema.optional(),
      networks: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
});

const keyItem = z.object({
  keyId: z.string(),
  appId: z.string(),
  kind: z.enum(["sdk", "server"]),
  scopes: z.array(z.enum(SCOPES)),
  hash: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().optional(),
});

const snapshotItem = z.object({
  snapshotKey: z.string(),
  appId: z.string(),
  since: z.number(),
  snapshotId: z.string(),
  location: z.string(),
  rowCount: z.number().optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
  tombstoneVersion: z.number(),
});

const snapshotKey = (appId: string, since: number) => `${appId}#${since}`;

export const createAppStore = (doc: DynamoDBDocumentClient, table: string): AppStore => ({
  async create(app) {
    // Version 0: every change after is made against the version it read (./conditional.ts).
    const created = await putWhen(doc, table, { ...app, version: 0 }, "appId", "absent");
    if (!created) throw new ConflictError(`App ${app.appId} already exists.`);
  },
  async get(appId) {
    // Strongly consistent, as links are (./links.ts): the caches in front are the only delay.
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: { appId }, ConsistentRead: true }),
    );
    return Item ? appItem.parse(Item) : undefined;
  },
  async list() {
    const found = await scanAll(doc, table, (item) => appItem.parse(item));
    return found.sort((a, b) => a.appId.localeCompare(b.appId));
  },
  async update(appId, change) {
    // `version` is the item's alone: parsed away on the way out, so a change never carries one.
    const updated = await changeVersioned<App>(
      doc,
      { table, key: "appId", value: appId },
      (item) => appItem.parse(item),
      change,
      () => new ConflictError(`App ${appId} kept changing while this change was made; try again.`),
    );
    if (!updated) throw new NotFoundError(`App ${appId} does not exist.`);
    return updated;
  },
});

export const createKeyStore = (doc: DynamoDBDocumentClient, table: string): KeyStore => ({
  async put(key) {
    await doc.send(new PutCommand({ TableName: table, Item: key }));
  },
  async get(keyId) {
    const { Item } = await doc.send(new GetCommand({ TableName: table, Key: { keyId } }));
    return Item ? keyItem.parse(Item) : undefined;
  },
  listByApp: (appId) =>
    queryIndex(doc, { table, index: KEYS_BY_APP_INDEX, key: "appId", value: appId }, (item) =>
      keyItem.parse(item),
    ),
  async revoke(keyId, at) {
    try {
      const { Attributes } = await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { keyId },
          UpdateExpression: "SET revokedAt = if_not_exists(revokedAt, :at)",
          ConditionExpression: "attribute_exists(keyId)",
          ExpressionAttributeValues: { ":at": at },
          ReturnValues: "ALL_NEW",
        }),
      );
      return Attributes ? keyItem.parse(Attributes) : undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  },
});

const toSnapshotRef = (item: Record<string, unknown>): SnapshotRef => {
  const { snapshotKey: _key, ...ref } = snapshotItem.parse(item);
  return ref;
};

/** A snapshot's own entry; its window's newest is `snapshotKey(appId, since)` besides. */
const snapshotIdKey = (appId: string, since: number, snapshotId: string) =>
  `${snapshotKey(appId, since)}#${snapshotId}`;

// expiresTtl lets DynamoDB's TTL reap old items on AWS, past the grace; readers check expiresAt.
const snapshotItemOf = (ref: SnapshotRef, key: string) => ({
  ...ref,
  snapshotKey: key,
  expiresTtl: Math.ceil((ref.expiresAt + SNAPSHOT_ENTRY_GRACE_MS) / 1000),
});

export const createSnapshotCatalog = (
  doc: DynamoDBDocumentClient,
  table: string,
): SnapshotCatalog & AppSnapshots => {
  const read = async (key: string) => {
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: { snapshotKey: key }, ConsistentRead: true }),
    );
    return Item ? toSnapshotRef(Item) : undefined;
  };
  return {
    latest: (appId, since) => read(snapshotKey(appId, since)),
    byId: (appId, since, snapshotId) => read(snapshotIdKey(appId, since, snapshotId)),
    async put(ref) {
      // Its own entry first: a window's newest always names a snapshot that can be found.
      const own = snapshotIdKey(ref.appId, ref.since, ref.snapshotId);
      await doc.send(new PutCommand({ TableName: table, Item: snapshotItemOf(ref, own) }));
      const newest = snapshotKey(ref.appId, ref.since);
      await conditionHolds(() =>
        doc.send(
          new PutCommand({
            TableName: table,
            Item: snapshotItemOf(ref, newest),
            ConditionExpression: "attribute_not_exists(snapshotKey) OR createdAt <= :createdAt",
            ExpressionAttributeValues: { ":createdAt": ref.createdAt },
          }),
        ),
      );
    },
    async listByApp(appId) {
      const entries = await queryIndex(
        doc,
        { table, index: SNAPSHOTS_BY_APP_INDEX, key: "appId", value: appId },
        toSnapshotRef,
      );
      return [...new Map(entries.map((ref) => [ref.snapshotId, ref])).values()];
    },
    async delete(ref) {
      await doc.send(
        new DeleteCommand({
          TableName: table,
          Key: { snapshotKey: snapshotIdKey(ref.appId, ref.since, ref.snapshotId) },
        }),
      );
      // Gone already, or replaced by a newer snapshot, which the caller has not looked at: kept.
      await conditionHolds(() =>
        doc.send(
          new DeleteCommand({
            TableName: table,
            Key: { snapshotKey: snapshotKey(ref.appId, ref.since) },
            ConditionExpression: "snapshotId = :snapshotId",
            ExpressionAttributeValues: { ":snapshotId": ref.snapshotId },
          }),
        ),
      );
    },
  };
};

/**
 * Every store of the service, for the embedded runtime and the CLI, on dynalite: its indexes
 * lose entries under a key that many items share, so deletion requests are listed by scan.
 */
export const createDynamoStores = (doc: DynamoDBDocumentClient, tables: TableNames) => ({
  apps: createAppStore(doc, tables.apps),
  keys: createKeyStore(doc, tables.keys),
  snapshots: createSnapshotCatalog(doc, tables.snapshots),
  installs: createInstallStore(doc, tables.installs),
  customerUsers: createCustomerUserMap(doc, tables.customerUsers),
  deletions: createDeletionStore(doc, tables.deletions, { listByScan: true }),
  links: createLinkStore(doc, tables.links),
  touches: createTouchStore(doc, tables.touches),
  attributions: createAttributionStore(doc, tables.attributions),
  users: createUserStore(doc, tables.users),
  sessions: createSessionStore(doc, tables.sessions),
  postbackConfigs: createPostbackConfigStore(doc, tables.postbackConfigs),
  outbox: createOutboxStore(doc, tables.outbox),
  deliveryLog: createDeliveryLog(doc, tables.deliveryLog),
  applePostbacks: createApplePostbackStore(doc, tables.applePostbacks),
  costs: createCostStore(doc, tables.costs),
});

/**
 * Deletion requests on DynamoDB, with an index by app, a sparse open index and an index by
 * install. Beside each app's requests, one item keyed `app#<app id>` holds its tombstones: the
 * set of installs with an open request, and a version that every change moves on. An export
 * page reads it with one strongly consistent get, so it sees a request the moment its install
 * is added, with no index's lag and no clock. The item has no `appId` or `openStatus`, so no
 * index holds it, and its key is never a request id (those are UUIDs). Adding to a set is
 * idempotent, so an SDK retry of an update DynamoDB had applied changes nothing but the
 * version, which only costs an export one more snapshot.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import {
  DELETION_STATUSES,
  type DeletionRequest,
  type DeletionStore,
  type Tombstones,
} from "../../ports/deletions.ts";
import { queryIndex } from "./query-index.ts";
import { TABLE_DEFINITIONS, TOMBSTONES_PREFIX } from "./tables.ts";

const [BY_APP, OPEN, BY_INSTALL] = TABLE_DEFINITIONS.deletions.indexes;
// Every open request shares this index key; deletions are rare, so one partition is plenty.
const OPEN_KEY = "open";

const deletionItem = z.object({
  requestId: z.string(),
  appId: z.string(),
  serviceId: z.string(),
  status: z.enum(DELETION_STATUSES),
  requestedAt: z.string(),
  completedAt: z.string().nullable(),
});

const parse = (item: Record<string, unknown>): DeletionRequest => deletionItem.parse(item);

/** The key of an app's tombstones item. */
export const tombstonesKey = (appId: string) => ({ requestId: `${TOMBSTONES_PREFIX}${appId}` });
// DynamoDB drops a set's attribute when its last member goes: no set is an empty one. An item
// without a version was written before tombstones were kept in it (it held a time only).
const tombstonesItem = z.object({
  serviceIds: z.set(z.string()).optional(),
  version: z.number().optional(),
});
const oldestFirst = (requests: DeletionRequest[]) =>
  requests.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));

/**
 * True when DynamoDB refused a query because the index cannot be read yet: one added to a
 * deployed table is built from its items first, and a table made before it has none.
 */
const isIndexUnavailable = (error: unknown, index: string): boolean =>
  error instanceof Error && error.name === "ValidationException" && error.message.includes(index);

const openServiceIds = (requests: readonly DeletionRequest[]) =>
  requests.filter((request) => request.status !== "completed").map((r) => r.serviceId);

export const createDeletionStore = (doc: DynamoDBDocumentClient, table: string): DeletionStore => {
  const listByApp = async (appId: string) =>
    oldestFirst(
      await queryIndex(doc, { table, index: BY_APP.name, key: "appId", value: appId }, parse),
    );
  /** The app's tombstones item, undefined until one is kept. */
  const storedTombstones = async (appId: string): Promise<Tombstones | undefined> => {
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: tombstonesKey(appId), ConsistentRead: true }),
    );
    const item = Item ? tombstonesItem.parse(Item) : undefined;
    if (item?.version === undefined) return undefined;
    return { serviceIds: [...(item.serviceIds ?? [])], version: item.version };
  };
  /** Adds to or deletes from the app's set, and moves its version on, in one update. */
  const change = (appId: string, verb: "ADD" | "DELETE", serviceIds: readonly string[]) =>
    doc.send(
      new UpdateCommand({
        TableName: table,
        Key: tombstonesKey(appId),
        UpdateExpression:
          verb === "ADD"
            ? "ADD serviceIds :ids, version :one"
            : "DELETE serviceIds :ids ADD version :one",
        ExpressionAttributeValues: { ":ids": new Set(serviceIds), ":one": 1 },
      }),
    );

  /**
   * `serviceIds`, and, for an app whose requests predate its item, the installs of its open
   * requests, which start the item. The by-app index may not list a request made a moment
   * ago: that one adds itself once stored.
   */
  const withEarlier = async (appId: string, serviceIds: readonly string[]) =>
    (await storedTombstones(appId))
      ? serviceIds
      : [...serviceIds, ...openServiceIds(await listByApp(appId))];

  const markTombstone = async (request: DeletionRequest) => {
    await change(request.appId, "ADD", await withEarlier(request.appId, [request.serviceId]));
  };
  return {
    async create(request) {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: { ...request, openStatus: OPEN_KEY },
          ConditionExpression: "attribute_not_exists(requestId)",
        }),
      );
      // After the request, so a tombstone names only a stored request.
      await markTombstone(request);
    },
    markTombstone,
    async clearTombstone(request) {
      // Started first, or the other open requests of an app without an item would be dropped.
      const earlier = await withEarlier(request.appId, []);
      if (earlier.length > 0) await change(request.appId, "ADD", earlier);
      await change(request.appId, "DELETE", [request.serviceId]);
    },
    async tombstones(appId) {
      const stored = await storedTombstones(appId);
      if (stored) return stored;
      // Requests stored before the item was kept: the open ones, read by app. Version 0 is
      // older than any item's, so a snapshot made from them is made again once there is one.
      return { serviceIds: openServiceIds(await listByApp(appId)), version: 0 };
    },
    async get(requestId) {
      // An app's tombstones item is not a request.
      if (requestId.startsWith(TOMBSTONES_PREFIX)) return undefined;
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: { requestId } }));
      return Item ? deletionItem.parse(Item) : undefined;
    },
    listByApp,
    async listByInstall(appId, serviceId) {
      try {
        return oldestFirst(
          await queryIndex(
            doc,
            {
              table,
              index: BY_INSTALL.name,
              key: BY_INSTALL.partitionKey,
              value: appId,
              sort: { key: BY_INSTALL.sortKey, value: serviceId },
            },
            parse,
          ),
        );
      } catch (error) {
        // Until the index can be read, the app's requests are read by app, as before it existed.
        if (!isIndexUnavailable(error, BY_INSTALL.name)) throw error;
        return (await listByApp(appId)).filter((request) => request.serviceId === serviceId);
      }
    },
    listOpen: async () =>
      oldestFirst(
        await queryIndex(
          doc,
          { table, index: OPEN.name, key: "openStatus", value: OPEN_KEY },
          parse,
        ),
      ),
    async setStatus(requestId, status, at) {
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { requestId },
          ...(status === "completed"
            ? {
                UpdateExpression: "SET #status = :status, completedAt = :at REMOVE openStatus",
                ExpressionAttributeValues: { ":status": status, ":at": at },
              }
            : {
                UpdateExpression: "SET #status = :status",
                ExpressionAttributeValues: { ":status": status },
              }),
          ExpressionAttributeNames: { "#status": "status" },
          ConditionExpression: "attribute_exists(requestId)",
        }),
      );
    },
  };
};

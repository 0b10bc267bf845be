/**
 * Deletion requests on DynamoDB, with an index by app, a sparse open index and an index by
 * install. Beside each app's requests, one item keyed `app#<app id>` holds the installs of its
 * open requests and a version that each new one moves on. An export page reads it with one
 * strongly consistent get, so it sees a request the moment its install is added, with no
 * index's lag and no clock; completed requests, long listed by the by-app index, are read
 * there. The item has no `appId` or `openStatus`, so no index holds it, and its key is never a
 * request id (those are UUIDs). Adding to a set is idempotent, so an SDK retry of an update
 * DynamoDB had applied changes nothing but the version, which only costs an export one more
 * snapshot. An item grows to DynamoDB's 400 KB (some 3,000 to 10,000 installs, by their ids'
 * length) only when requests come faster than the purge completes them; a full one sheds the
 * installs the by-app index has listed for a while, which exports read there anyway.
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
import { conditionHolds } from "./conditional.ts";
import { queryIndex, scanWhere } from "./query-index.ts";
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
/**
 * How long the by-app index must have listed a request before its install may leave a full
 * item: the index lags the table by a moment, far less than this.
 */
const LISTED_FOR_MS = 60_000;
/** Installs taken out of a full item by one update, which keeps each update small. */
const SHED_PER_UPDATE = 1_000;

/** True when DynamoDB refused an update that would take an item past its 400 KB. */
const isItemFull = (error: unknown): boolean =>
  error instanceof Error &&
  error.name === "ValidationException" &&
  error.message.includes("maximum allowed size");

const oldestFirst = (requests: DeletionRequest[]) =>
  requests.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));

/**
 * True when DynamoDB refused a query because the index cannot be read yet: one added to a
 * deployed table is built from its items first, and a table made before it has none.
 */
const isIndexUnavailable = (error: unknown, index: string): boolean =>
  error instanceof Error && error.name === "ValidationException" && error.message.includes(index);

export interface DeletionStoreOptions {
  /**
   * Reads an app's requests and the open ones by scanning the table, not from their indexes.
   * For dynalite, which keys an index entry by the index's key and 24 bits of a hash of the
   * item's key: of an index key's many items (an app's requests, every open one) two may share
   * those bits, and the index keeps one of them. The table keeps both.
   */
  readonly listByScan?: boolean;
}

export const createDeletionStore = (
  doc: DynamoDBDocumentClient,
  table: string,
  options: DeletionStoreOptions = {},
): DeletionStore => {
  /** Every request with this value of an index's key, oldest first. */
  const listWhere = async (index: { name: string; partitionKey: string }, value: string) =>
    oldestFirst(
      options.listByScan
        ? await scanWhere(doc, { table, key: index.partitionKey, value }, parse)
        : await queryIndex(
            doc,
            { table, index: index.name, key: index.partitionKey, value },
            parse,
          ),
    );
  const listByApp = (appId: string) => listWhere(BY_APP, appId);
  const tombstones = async (appId: string): Promise<Tombstones> => {
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: tombstonesKey(appId), ConsistentRead: true }),
    );
    const item = Item ? tombstonesItem.parse(Item) : undefined;
    // Version 0 is older than any item's: a snapshot made before an app's item was kept is
    // made again once there is one. Its earlier requests are read by app.
    return { serviceIds: [...(item?.serviceIds ?? [])], version: item?.version ?? 0 };
  };
  const addTombstone = (request: DeletionRequest) =>
    doc.send(
      new UpdateCommand({
        TableName: table,
        Key: tombstonesKey(request.appId),
        UpdateExpression: "ADD serviceIds :ids, version :one",
        ExpressionAttributeValues: { ":ids": new Set([request.serviceId]), ":one": 1 },
      }),
    );
  /**
   * Makes room in an app's full item: takes out the installs of the requests made more than
   * `LISTED_FOR_MS` ago, which the by-app index lists, so a new snapshot leaves them out all
   * the same: no export's answer changes, and the version stays. False when there are none:
   * the item is full of requests too new to be shed, and the request fails until the purge
   * or time makes room (a repeat of it then adds its install).
   */
  const shedListed = async (request: DeletionRequest): Promise<boolean> => {
    const before = Date.now() - LISTED_FOR_MS;
    const held = new Set((await tombstones(request.appId)).serviceIds);
    const shed = new Set<string>();
    for (const listed of await listByApp(request.appId)) {
      if (held.has(listed.serviceId) && Date.parse(listed.requestedAt) <= before) {
        shed.add(listed.serviceId);
      }
    }
    const serviceIds = [...shed];
    for (let start = 0; start < serviceIds.length; start += SHED_PER_UPDATE) {
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: tombstonesKey(request.appId),
          UpdateExpression: "DELETE serviceIds :ids",
          ExpressionAttributeValues: {
            ":ids": new Set(serviceIds.slice(start, start + SHED_PER_UPDATE)),
          },
        }),
      );
    }
    return serviceIds.length > 0;
  };
  /**
   * Adds a pending request's install and moves the version on, in one update; for a request
   * the purge has taken up, only moves the version on (the by-app index lists it by then, and
   * the purge takes its install out). It first moves on the newest request time the item held
   * before, only ever forward, which code of the previous release reads while a deploy or a
   * rollback is under way.
   */
  const markTombstone = async (request: DeletionRequest) => {
    const Key = tombstonesKey(request.appId);
    await conditionHolds(() =>
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key,
          UpdateExpression: "SET newestRequestAt = :at",
          ConditionExpression: "attribute_not_exists(newestRequestAt) OR newestRequestAt < :at",
          ExpressionAttributeValues: { ":at": request.requestedAt },
        }),
      ),
    );
    if (request.status !== "pending") {
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key,
          UpdateExpression: "ADD version :one",
          ExpressionAttributeValues: { ":one": 1 },
        }),
      );
      return;
    }
    try {
      await addTombstone(request);
    } catch (error) {
      if (!isItemFull(error) || !(await shedListed(request))) throw error;
      await addTombstone(request);
    }
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
      // The version stays: the by-app index lists the completed request, so an export leaves
      // the install out as before. An app without an item has nothing to take out.
      await conditionHolds(() =>
        doc.send(
          new UpdateCommand({
            TableName: table,
            Key: tombstonesKey(request.appId),
            UpdateExpression: "DELETE serviceIds :ids",
            ConditionExpression: "attribute_exists(version)",
            ExpressionAttributeValues: { ":ids": new Set([request.serviceId]) },
          }),
        ),
      );
    },
    tombstones,
    async get(requestId) {
      // An app's tombstones item is not a request.
      if (requestId.startsWith(TOMBSTONES_PREFIX)) return undefined;
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: { requestId } }));
      return Item ? parse(Item) : undefined;
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
    listOpen: () => listWhere(OPEN, OPEN_KEY),
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

/**
 * Deletion requests on DynamoDB, with an index by app (tombstones), a sparse open index and an
 * index by install. Beside each app's requests, one item keyed `app#<app id>` keeps the newest
 * request's time, so an export page reads one item instead of every tombstone. It has no `appId`
 * or `openStatus`, so no index holds it, and its key is never a request id (those are UUIDs).
 */
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
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
} from "../../ports/deletions.ts";
import { queryIndex } from "./query-index.ts";
import { NEWEST_REQUEST_PREFIX, TABLE_DEFINITIONS } from "./tables.ts";

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

/** The key of an app's newest-request item. */
export const newestKey = (appId: string) => ({ requestId: `${NEWEST_REQUEST_PREFIX}${appId}` });
const newestItem = z.object({ newestRequestAt: z.string() });
const oldestFirst = (requests: DeletionRequest[]) =>
  requests.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));

/**
 * True when DynamoDB refused a query because the index cannot be read yet: one added to a
 * deployed table is built from its items first, and a table made before it has none.
 */
const isIndexUnavailable = (error: unknown, index: string): boolean =>
  error instanceof Error && error.name === "ValidationException" && error.message.includes(index);

export const createDeletionStore = (doc: DynamoDBDocumentClient, table: string): DeletionStore => {
  const listByApp = async (appId: string) =>
    oldestFirst(
      await queryIndex(doc, { table, index: BY_APP.name, key: "appId", value: appId }, parse),
    );
  const newestItemOf = async (appId: string) =>
    (
      await doc.send(
        new GetCommand({ TableName: table, Key: newestKey(appId), ConsistentRead: true }),
      )
    ).Item;

  /** Only ever forward: of two requests stored out of order, the later time stands. */
  const markNewest = async (request: DeletionRequest) => {
    let at = request.requestedAt;
    if (!(await newestItemOf(request.appId))) {
      // An app whose requests predate the item starts it from the newest of them, which a
      // repeat of an older one would otherwise leave behind.
      const listed = (await listByApp(request.appId)).at(-1)?.requestedAt;
      if (listed !== undefined && listed > at) at = listed;
    }
    await doc
      .send(
        new UpdateCommand({
          TableName: table,
          Key: newestKey(request.appId),
          UpdateExpression: "SET newestRequestAt = :at",
          ConditionExpression: "attribute_not_exists(newestRequestAt) OR newestRequestAt < :at",
          ExpressionAttributeValues: { ":at": at },
        }),
      )
      .catch((error: unknown) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
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
      // After the request, so the time names only a stored request: an export waits for the
      // by-app index to list the request the time belongs to.
      await markNewest(request);
    },
    markNewest,
    async get(requestId) {
      // An app's newest-request item is not a request.
      if (requestId.startsWith(NEWEST_REQUEST_PREFIX)) return undefined;
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: { requestId } }));
      return Item ? deletionItem.parse(Item) : undefined;
    },
    listByApp,
    async newestRequestAt(appId) {
      const Item = await newestItemOf(appId);
      if (Item) return newestItem.parse(Item).newestRequestAt;
      // Requests stored before this item existed: the newest of them, read once by app.
      return (await listByApp(appId)).at(-1)?.requestedAt;
    },
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

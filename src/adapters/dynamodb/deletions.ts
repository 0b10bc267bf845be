/**
 * Deletion requests on DynamoDB, with an index by app, a sparse open index and an index by
 * install, and beside them each app's tombstones item (./tombstones.ts), which exports read,
 * and the app's saved purge pass, if a run stopped one (`pass#<app id>`: its installs and where
 * its lake pass stopped). Like the tombstones item, a pass item has no `appId`, `serviceId` or
 * `openStatus`, so no index holds it and no listing returns it; its installs are at most
 * PASS_INSTALLS_AT_MOST, which keeps it far under DynamoDB's 400 KB.
 */
import {
  DeleteCommand,
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
import { conditionHolds } from "./conditional.ts";
import { queryIndex, scanWhere } from "./query-index.ts";
import { indexOf, PURGE_PASS_PREFIX, TOMBSTONES_PREFIX } from "./table-definitions.ts";
import { createTombstones } from "./tombstones.ts";

const BY_APP = indexOf("deletions", "byApp");
const OPEN = indexOf("deletions", "open");
const BY_INSTALL = indexOf("deletions", "byInstall");
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

const passItem = z.object({ serviceIds: z.array(z.string()), position: z.string() });

/** The key of an app's saved purge pass. */
export const passKey = (appId: string) => ({ requestId: `${PURGE_PASS_PREFIX}${appId}` });

const oldestFirst = (requests: DeletionRequest[]) =>
  requests.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));

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
  const tombstones = createTombstones(doc, table, listByApp);
  return {
    async create(request, options) {
      const stored = await conditionHolds(() =>
        doc.send(
          new PutCommand({
            TableName: table,
            Item: { ...request, openStatus: OPEN_KEY },
            ConditionExpression: "attribute_not_exists(requestId)",
          }),
        ),
      );
      // After the request, so a tombstone names only a stored request.
      if (stored) await tombstones.mark(request, options);
      return stored;
    },
    markTombstone: tombstones.mark,
    clearTombstone: tombstones.clear,
    tombstones: tombstones.read,
    async get(requestId) {
      // An app's tombstones item and its saved pass are not requests.
      if (requestId.startsWith(TOMBSTONES_PREFIX) || requestId.startsWith(PURGE_PASS_PREFIX)) {
        return undefined;
      }
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: { requestId }, ConsistentRead: true }),
      );
      return Item ? parse(Item) : undefined;
    },
    listByApp,
    async listByInstall(appId, serviceId) {
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
    async savedPass(appId) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: passKey(appId), ConsistentRead: true }),
      );
      return Item ? passItem.parse(Item) : undefined;
    },
    async savePass(appId, pass) {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: { ...passKey(appId), serviceIds: [...pass.serviceIds], position: pass.position },
        }),
      );
    },
    async clearPass(appId) {
      await doc.send(new DeleteCommand({ TableName: table, Key: passKey(appId) }));
    },
  };
};

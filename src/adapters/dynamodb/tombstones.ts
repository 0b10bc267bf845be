/**
 * An app's tombstones on DynamoDB: one item beside its deletion requests, keyed
 * `app#<app id>`, holding the installs of its open requests and a version that each new
 * request moves on. An export page reads it with one strongly consistent get, so it sees a
 * request the moment its install is added, with no index's lag and no clock; completed
 * requests, long listed by the by-app index, are read there. The item has no `appId` or
 * `openStatus`, so no index holds it, and its key is never a request id (those are UUIDs).
 * An install is added once: a repeat of its request, or an update retried after DynamoDB had
 * applied it, finds it there and changes nothing, the version included, so that asking again
 * never withdraws an export's snapshot. An item grows to
 * DynamoDB's 400 KB (some 3,000 to 10,000 installs, by their ids' length) only when requests
 * come faster than the purge completes them; a full one sheds the installs the by-app index
 * has listed for a while, which exports read there anyway.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import type { DeletionRequest, Tombstones } from "../../ports/deletions.ts";
import { conditionHolds } from "./conditional.ts";
import { TOMBSTONES_PREFIX } from "./table-definitions.ts";

/** The key of an app's tombstones item. */
export const tombstonesKey = (appId: string) => ({ requestId: `${TOMBSTONES_PREFIX}${appId}` });

// DynamoDB drops a set's attribute when its last member goes: no set is an empty one.
const tombstonesItem = z.object({
  serviceIds: z.set(z.string()).optional(),
  version: z.number(),
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

export const createTombstones = (
  doc: DynamoDBDocumentClient,
  table: string,
  /** The app's requests, as the by-app index lists them. */
  listByApp: (appId: string) => Promise<DeletionRequest[]>,
) => {
  const read = async (appId: string): Promise<Tombstones> => {
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: tombstonesKey(appId), ConsistentRead: true }),
    );
    const item = Item ? tombstonesItem.parse(Item) : undefined;
    // Version 0 is older than any item's: an app with no request yet has none.
    return { serviceIds: [...(item?.serviceIds ?? [])], version: item?.version ?? 0 };
  };

  /** Whether the install was not there: added now, or (`alone`) the version moved alone. */
  const unlessHeld = "attribute_not_exists(serviceIds) OR NOT contains(serviceIds, :id)";
  const add = (request: DeletionRequest, moveVersion: boolean) =>
    conditionHolds(() =>
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key: tombstonesKey(request.appId),
          // Adding 0 makes the version of a new item, which taking an install out needs.
          UpdateExpression: "ADD serviceIds :ids, version :step",
          ConditionExpression: unlessHeld,
          ExpressionAttributeValues: {
            ":ids": new Set([request.serviceId]),
            ":id": request.serviceId,
            ":step": moveVersion ? 1 : 0,
          },
        }),
      ),
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
    const held = new Set((await read(request.appId)).serviceIds);
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

  return {
    read,
    /**
     * Adds a pending request's install, and moves the version on where asked, in one update,
     * only when the install is not there already: marked once, a request never moves the
     * version again. A request the purge has taken up is left as it is (see the port).
     */
    async mark(request: DeletionRequest, options: { moveVersion?: boolean } = {}) {
      if (request.status !== "pending") return;
      const moveVersion = options.moveVersion ?? true;
      try {
        await add(request, moveVersion);
      } catch (error) {
        if (!isItemFull(error) || !(await shedListed(request))) throw error;
        await add(request, moveVersion);
      }
    },
    /**
     * Takes a completed request's install out. The version stays: the by-app index lists the
     * completed request, so an export leaves the install out as before. An app without an
     * item has nothing to take out.
     */
    async clear(request: DeletionRequest) {
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
  };
};

/** Conditional writes, whose failed condition is an answer rather than an error. */
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";

/** Runs a conditional write: its answer, or undefined when its condition did not hold. */
export const unlessConditionFails = async <T>(write: () => Promise<T>): Promise<T | undefined> => {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
};

/** Runs a conditional write: false when its condition did not hold, so nothing was written. */
export const conditionHolds = async (write: () => Promise<unknown>): Promise<boolean> =>
  (await unlessConditionFails(async () => {
    await write();
    return true;
  })) ?? false;

/**
 * Puts an item only when no item has its key (`absent`: a create) or only when one does
 * (`present`: a replace); false when that did not hold, so nothing was written.
 */
export const putWhen = (
  doc: DynamoDBDocumentClient,
  table: string,
  item: Record<string, unknown>,
  key: string,
  when: "absent" | "present",
): Promise<boolean> =>
  conditionHolds(() =>
    doc.send(
      new PutCommand({
        TableName: table,
        Item: item,
        ConditionExpression:
          when === "absent" ? `attribute_not_exists(${key})` : `attribute_exists(${key})`,
      }),
    ),
  );

/** How many times `changeVersioned` reads an item again after another write came in between. */
export const VERSIONED_CHANGE_ATTEMPTS = 5;

const versionOf = (item: Record<string, unknown>): number => {
  const { version } = item;
  if (typeof version !== "number") throw new Error(`Item version is not a number: ${version}`);
  return version;
};

/**
 * Read-modify-write of one item that no other write can undo: reads the item, applies `change`
 * and puts the result only if the item's `version` is still the one read, as the next version
 * (an item is created with version 0). When another write came in
 * between, it starts again from the fresh item, so `change` may run more than once. Resolves
 * to the item as written; undefined when there is none; `exhausted` is thrown when every
 * attempt lost (another writer wins each time only under a flood of writes to the one item).
 */
export const changeVersioned = async <T extends object>(
  doc: DynamoDBDocumentClient,
  target: { readonly table: string; readonly key: string; readonly value: string },
  parse: (item: Record<string, unknown>) => T,
  change: (item: T) => T | Promise<T>,
  exhausted: () => Error,
): Promise<T | undefined> => {
  const { table, key, value } = target;
  for (let attempt = 1; attempt <= VERSIONED_CHANGE_ATTEMPTS; attempt++) {
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: { [key]: value }, ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const read = versionOf(Item);
    // The key is the item's, whatever `change` made of it.
    const changed = { ...(await change(parse(Item))), [key]: value };
    const written = await conditionHolds(() =>
      doc.send(
        new PutCommand({
          TableName: table,
          Item: { ...changed, version: read + 1 },
          ConditionExpression: "#version = :read",
          ExpressionAttributeNames: { "#version": "version" },
          ExpressionAttributeValues: { ":read": read },
        }),
      ),
    );
    if (written) return changed;
  }
  throw exhausted();
};

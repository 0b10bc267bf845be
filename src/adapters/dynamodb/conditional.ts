/** Conditional writes, whose failed condition is an answer rather than an error. */
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { type DynamoDBDocumentClient, PutCommand } from "@aws-sdk/lib-dynamodb";

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

/** Conditional writes, whose failed condition is an answer rather than an error. */
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";

/** Runs a conditional write: false when its condition did not hold, so nothing was written. */
export const conditionHolds = async (write: () => Promise<unknown>): Promise<boolean> => {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
};

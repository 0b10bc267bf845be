/**
 * How CLI commands reach the embedded stores: through the running service's DynamoDB endpoint
 * when `npm start` is up (its store is locked by that process), else by opening the data
 * folder directly for the length of the command.
 */
import { createDynamoStores } from "../adapters/dynamodb/stores.ts";
import { dataPaths, readRuntimeInfo } from "../embedded/data-dir.ts";
import {
  connectDynamoDb,
  LOCAL_TABLE_NAMES,
  startLocalDynamoDb,
} from "../embedded/local-dynamodb.ts";

export const withLocalStores = async <T>(
  dataDir: string,
  work: (stores: ReturnType<typeof createDynamoStores>) => Promise<T>,
): Promise<T> => {
  const running = await readRuntimeInfo(dataDir);
  const connection = running
    ? connectDynamoDb(running.dynamodbEndpoint)
    : await startLocalDynamoDb(dataPaths(dataDir).dynamodb);
  try {
    return await work(createDynamoStores(connection.doc, LOCAL_TABLE_NAMES));
  } finally {
    await connection.close();
  }
};

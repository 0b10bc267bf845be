/**
 * How CLI commands reach the embedded stores: through the running service's DynamoDB endpoint
 * and its held stores' bridge (the delivery log) when `npm start` is up (its stores are locked
 * by that process), else by opening the data folder directly for the length of the command. A
 * command that changed an app, a key, a link or a postback configuration marks the data folder
 * so that a running service stops trusting its cached copies.
 */
import { createDynamoStores } from "../adapters/dynamodb/stores.ts";
import type { LocalDeliveryLog } from "../adapters/local-delivery-log/delivery-log.ts";
import { markAdminChange } from "../embedded/admin-changes.ts";
import { dataPaths, makePrivateDataDir, runningService } from "../embedded/data-dir.ts";
import { heldStoresAt } from "../embedded/held-stores.ts";
import {
  connectDynamoDb,
  LOCAL_TABLE_NAMES,
  startLocalDynamoDb,
} from "../embedded/local-dynamodb.ts";
import { DELIVERY_LOG_METHODS, type DeliveryLog } from "../ports/postbacks.ts";

/**
 * The data folder's delivery log, loaded and opened at its first call: most commands never
 * read it.
 */
const lazyDeliveryLog = (dir: string) => {
  let opened: Promise<LocalDeliveryLog> | undefined;
  const log = () => {
    opened ??= import("../adapters/local-delivery-log/delivery-log.ts").then((module) =>
      module.openLocalDeliveryLog(dir),
    );
    return opened;
  };
  const store = Object.fromEntries(
    DELIVERY_LOG_METHODS.map((method) => [
      method,
      async (...args: unknown[]) =>
        ((await log())[method] as (...args: unknown[]) => Promise<unknown>)(...args),
    ]),
  ) as unknown as DeliveryLog;
  return { store, close: async () => (await opened)?.close() };
};

export const withLocalStores = async <T>(
  dataDir: string,
  work: (stores: ReturnType<typeof createDynamoStores>) => Promise<T>,
): Promise<T> => {
  const running = await runningService(dataDir);
  if (!running) await makePrivateDataDir(dataDir);
  const connection = running
    ? connectDynamoDb(running.dynamodbEndpoint, running.dynamodbToken)
    : await startLocalDynamoDb(dataPaths(dataDir).dynamodb);
  // Opened only if used, and only when no service holds it.
  const ownLog = lazyDeliveryLog(dataPaths(dataDir).deliveryLog);
  const deliveryLog = running ? heldStoresAt(running.heldStores).deliveryLog : ownLog.store;
  const stores = { ...createDynamoStores(connection.doc, LOCAL_TABLE_NAMES), deliveryLog };
  let changed = false;
  const noting =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await write(...args);
      } finally {
        changed = true;
      }
    };
  try {
    return await work({
      ...stores,
      apps: {
        ...stores.apps,
        create: noting(stores.apps.create),
        update: noting(stores.apps.update),
      },
      keys: { ...stores.keys, put: noting(stores.keys.put), revoke: noting(stores.keys.revoke) },
      // The running link host keeps each link a moment, unknown ids too; the mark empties it.
      links: {
        ...stores.links,
        create: noting(stores.links.create),
        update: noting(stores.links.update),
      },
      // The running service keeps each app's postback configurations a moment; the mark empties it.
      postbackConfigs: {
        ...stores.postbackConfigs,
        putPartner: noting(stores.postbackConfigs.putPartner),
        putWebhook: noting(stores.postbackConfigs.putWebhook),
        delete: noting(stores.postbackConfigs.delete),
        putSettings: noting(stores.postbackConfigs.putSettings),
      },
    });
  } finally {
    try {
      // After the writes: a service that reads again from here on reads what they wrote.
      if (changed) await markAdminChange(dataDir);
    } finally {
      await ownLog.close();
      await connection.close();
    }
  }
};

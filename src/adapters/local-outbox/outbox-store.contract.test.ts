/**
 * The embedded outbox and delivery log against the contract the postback stores are held to
 * (../contracts/postbacks.test-support.ts), beside the configurations the embedded runtime
 * keeps in its DynamoDB (dynalite), as the service runs them.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCAL_TABLE_NAMES, startLocalDynamoDb } from "../../embedded/local-dynamodb.ts";
import { describePostbackStoresContract } from "../contracts/postbacks.test-support.ts";
import { createPostbackConfigStore } from "../dynamodb/postbacks.ts";
import { openLocalDeliveryLog } from "../local-delivery-log/delivery-log.ts";
import { openLocalOutboxStore } from "./outbox-store.ts";

describePostbackStoresContract("the embedded outbox and delivery log (LevelDB)", async () => {
  const dir = await mkdtemp(join(tmpdir(), "outbox-contract-"));
  const dynamo = await startLocalDynamoDb(join(dir, "dynamodb"));
  const outbox = await openLocalOutboxStore(join(dir, "outbox"));
  const log = await openLocalDeliveryLog(join(dir, "delivery-log"));
  return {
    configs: createPostbackConfigStore(dynamo.doc, LOCAL_TABLE_NAMES.postbackConfigs),
    outbox,
    log,
    close: async () => {
      await outbox.close();
      await log.close();
      await dynamo.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

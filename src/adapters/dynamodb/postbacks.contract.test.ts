/**
 * The contract of the postback stores (../contracts/postbacks.test-support.ts) on dynalite, as
 * the embedded runtime keeps them, and on DynamoDB's API as moto's server answers it
 * (test/local-aws/moto.ts), as the stores run on AWS.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import {
  motoClientConfig,
  motoDisabled,
  reportNoMoto,
  startMoto,
} from "../../../test/local-aws/moto.ts";
import { LOCAL_TABLE_NAMES, startLocalDynamoDb } from "../../embedded/local-dynamodb.ts";
import { describePostbackStoresContract } from "../contracts/postbacks.test-support.ts";
import { createDeliveryLog, createOutboxStore, createPostbackConfigStore } from "./postbacks.ts";
import { ensureTables } from "./table-definitions.ts";

const storesOn = (doc: DynamoDBDocumentClient) => ({
  configs: createPostbackConfigStore(doc, LOCAL_TABLE_NAMES.postbackConfigs),
  outbox: createOutboxStore(doc, LOCAL_TABLE_NAMES.outbox),
  log: createDeliveryLog(doc, LOCAL_TABLE_NAMES.deliveryLog),
});

describePostbackStoresContract("on dynalite", async () => {
  const dir = await mkdtemp(join(tmpdir(), "postbacks-contract-"));
  const dynamo = await startLocalDynamoDb(dir);
  return {
    ...storesOn(dynamo.doc),
    close: async () => {
      await dynamo.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

reportNoMoto(
  "the postback stores' contract over DynamoDB's API (src/adapters/dynamodb/postbacks.contract.test.ts)",
);

if (!motoDisabled) {
  describePostbackStoresContract("on DynamoDB's API (moto)", async () => {
    const moto = await startMoto();
    const client = new DynamoDBClient(motoClientConfig(moto));
    await ensureTables(client, LOCAL_TABLE_NAMES);
    const doc = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    return {
      ...storesOn(doc),
      close: async () => {
        client.destroy();
        await moto.stop();
      },
    };
  });
}

/**
 * The contract of which installs send from an address (../contracts/address-crowds.test-support.ts)
 * over the touch store: on dynalite, as the embedded runtime keeps it, and on DynamoDB's API as
 * moto's server answers it (test/local-aws/moto.ts), as the store runs on AWS.
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
import { describeAddressCrowdsContract } from "../contracts/address-crowds.test-support.ts";
import { ensureTables } from "./table-definitions.ts";
import { createTouchStore } from "./touches.ts";

describeAddressCrowdsContract("the touch store on dynalite", async () => {
  const dir = await mkdtemp(join(tmpdir(), "crowds-contract-"));
  const dynamo = await startLocalDynamoDb(dir);
  return {
    store: createTouchStore(dynamo.doc, LOCAL_TABLE_NAMES.touches),
    close: async () => {
      await dynamo.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

reportNoMoto(
  "the address crowds contract over DynamoDB's API (src/adapters/dynamodb/address-crowds.contract.test.ts)",
);

if (!motoDisabled) {
  describeAddressCrowdsContract("the touch store on DynamoDB's API (moto)", async () => {
    const moto = await startMoto();
    const client = new DynamoDBClient(motoClientConfig(moto));
    await ensureTables(client, LOCAL_TABLE_NAMES);
    const doc = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    return {
      store: createTouchStore(doc, LOCAL_TABLE_NAMES.touches),
      close: async () => {
        client.destroy();
        await moto.stop();
      },
    };
  });
}

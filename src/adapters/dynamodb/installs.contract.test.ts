/**
 * The install store's contract (../contracts/installs.test-support.ts) over the DynamoDB table:
 * on dynalite, and on DynamoDB's API as moto's server answers it, as the store runs on AWS.
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import { describeInstallStoreContract } from "../contracts/installs.test-support.ts";
import { onDynalite, onMoto } from "./dynamo-targets.test-support.ts";
import { createInstallStore } from "./installs.ts";

const storeOn = (doc: DynamoDBDocumentClient) => ({
  store: createInstallStore(doc, LOCAL_TABLE_NAMES.installs),
});

describeInstallStoreContract("DynamoDB's table on dynalite", onDynalite(storeOn));

const moto = onMoto(
  "the install store contract over DynamoDB's API (src/adapters/dynamodb/installs.contract.test.ts)",
  storeOn,
);
if (moto) describeInstallStoreContract("DynamoDB's table on DynamoDB's API (moto)", moto);

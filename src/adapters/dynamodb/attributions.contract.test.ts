/**
 * The attribution store's contract (../contracts/attributions.test-support.ts) over the DynamoDB
 * table: on dynalite, and on DynamoDB's API as moto's server answers it, as the store runs on AWS.
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import { describeAttributionStoreContract } from "../contracts/attributions.test-support.ts";
import { createAttributionStore } from "./attributions.ts";
import { onDynalite, onMoto } from "./dynamo-targets.test-support.ts";

const storeOn = (doc: DynamoDBDocumentClient) => ({
  store: createAttributionStore(doc, LOCAL_TABLE_NAMES.attributions),
});

describeAttributionStoreContract("DynamoDB's table on dynalite", onDynalite(storeOn));

const moto = onMoto(
  "the attribution store contract over DynamoDB's API (src/adapters/dynamodb/attributions.contract.test.ts)",
  storeOn,
);
if (moto) describeAttributionStoreContract("DynamoDB's table on DynamoDB's API (moto)", moto);

/**
 * The touch store's contract (../contracts/touch-store.test-support.ts) over the DynamoDB table:
 * on dynalite, and on DynamoDB's API as moto's server answers it, as the store runs on AWS.
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import { describeTouchStoreContract } from "../contracts/touch-store.test-support.ts";
import { onDynalite, onMoto } from "./dynamo-targets.test-support.ts";
import { createTouchStore } from "./touches.ts";

const storeOn = (doc: DynamoDBDocumentClient) => ({
  store: createTouchStore(doc, LOCAL_TABLE_NAMES.touches),
});

describeTouchStoreContract("DynamoDB's table on dynalite", onDynalite(storeOn));

const moto = onMoto(
  "the touch store contract over DynamoDB's API (src/adapters/dynamodb/touch-store.contract.test.ts)",
  storeOn,
);
if (moto) describeTouchStoreContract("DynamoDB's table on DynamoDB's API (moto)", moto);

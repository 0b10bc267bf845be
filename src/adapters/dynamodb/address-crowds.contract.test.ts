/**
 * The contract of which installs send from an address (../contracts/address-crowds.test-support.ts)
 * over the touch store: on dynalite, as the embedded runtime keeps it, and on DynamoDB's API as
 * moto's server answers it, as the store runs on AWS.
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import { describeAddressCrowdsContract } from "../contracts/address-crowds.test-support.ts";
import { onDynalite, onMoto } from "./dynamo-targets.test-support.ts";
import { createTouchStore } from "./touches.ts";

const storeOn = (doc: DynamoDBDocumentClient) => ({
  store: createTouchStore(doc, LOCAL_TABLE_NAMES.touches),
});

describeAddressCrowdsContract("the touch store on dynalite", onDynalite(storeOn));

const moto = onMoto(
  "the address crowds contract over DynamoDB's API (src/adapters/dynamodb/address-crowds.contract.test.ts)",
  storeOn,
);
if (moto) describeAddressCrowdsContract("the touch store on DynamoDB's API (moto)", moto);

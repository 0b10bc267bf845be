/**
 * The contract of the store of Apple's postbacks (../contracts/apple-postbacks.test-support.ts)
 * on dynalite, as the embedded runtime keeps them, and on DynamoDB's API as moto's server
 * answers it (test/local-aws/moto.ts), as the store runs on AWS.
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import { describeApplePostbackStoreContract } from "../contracts/apple-postbacks.test-support.ts";
import { createApplePostbackStore } from "./apple-postbacks.ts";
import { onDynalite, onMoto } from "./dynamo-targets.test-support.ts";

const storeOn = (doc: DynamoDBDocumentClient) =>
  createApplePostbackStore(doc, LOCAL_TABLE_NAMES.applePostbacks);

describeApplePostbackStoreContract("on dynalite", onDynalite(storeOn));

const moto = onMoto(
  "the store of Apple's postbacks' contract over DynamoDB's API (src/adapters/dynamodb/apple-postbacks.contract.test.ts)",
  storeOn,
);
if (moto) describeApplePostbackStoreContract("on DynamoDB's API (moto)", moto);

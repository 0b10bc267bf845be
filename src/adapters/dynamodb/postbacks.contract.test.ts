/**
 * The contract of the postback stores (../contracts/postbacks.test-support.ts) on dynalite, as
 * the embedded runtime keeps them (its configurations), and on DynamoDB's API as moto's server
 * answers it (test/local-aws/moto.ts), as the stores run on AWS.
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import { describePostbackStoresContract } from "../contracts/postbacks.test-support.ts";
import { onDynalite, onMoto } from "./dynamo-targets.test-support.ts";
import { createDeliveryLog, createOutboxStore, createPostbackConfigStore } from "./postbacks.ts";

const storesOn = (doc: DynamoDBDocumentClient) => ({
  configs: createPostbackConfigStore(doc, LOCAL_TABLE_NAMES.postbackConfigs),
  outbox: createOutboxStore(doc, LOCAL_TABLE_NAMES.outbox),
  log: createDeliveryLog(doc, LOCAL_TABLE_NAMES.deliveryLog),
});

// The log writes an attempt and its count in one transaction, which dynalite lacks: there it is
// held to the contract on moto's DynamoDB API only (the embedded runtime keeps its own log).
describePostbackStoresContract("on dynalite", onDynalite(storesOn), { log: false });

const moto = onMoto(
  "the postback stores' contract over DynamoDB's API (src/adapters/dynamodb/postbacks.contract.test.ts)",
  storesOn,
);
if (moto) describePostbackStoresContract("on DynamoDB's API (moto)", moto);

/**
 * The AWS SDK clients of every function, created once per execution environment so warm
 * invocations reuse their connections. Region and credentials come from the Lambda
 * environment. Each is marked pure so a function's bundle drops the clients it does not use.
 */

import { AthenaClient } from "@aws-sdk/client-athena";
import { CognitoIdentityProviderClient } from "@aws-sdk/client-cognito-identity-provider";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { FirehoseClient } from "@aws-sdk/client-firehose";
import { KMSClient } from "@aws-sdk/client-kms";
import { S3Client } from "@aws-sdk/client-s3";
import { SQSClient } from "@aws-sdk/client-sqs";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { MARSHALL_OPTIONS } from "../adapters/dynamodb/marshall-options.ts";

export const athena = /* @__PURE__ */ new AthenaClient({});

export const s3 = /* @__PURE__ */ new S3Client({});

export const firehose = /* @__PURE__ */ new FirehoseClient({});

export const kms = /* @__PURE__ */ new KMSClient({});

export const sqs = /* @__PURE__ */ new SQSClient({});

export const cognito = /* @__PURE__ */ new CognitoIdentityProviderClient({});

/** Marshalled like the embedded runtime's client, so the stores behave the same on both. */
export const dynamoDocument = /* @__PURE__ */ DynamoDBDocumentClient.from(
  /* @__PURE__ */ new DynamoDBClient({}),
  { marshallOptions: MARSHALL_OPTIONS },
);

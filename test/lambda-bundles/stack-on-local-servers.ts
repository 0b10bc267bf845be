/**
 * The stack's resources on local servers: the CDK app synthesized (without bundling), and each
 * resource a function's environment names made on a server that speaks its API, under the
 * name the template gives it. DynamoDB tables go to the server given for them (a moto server of
 * their own) with the template's key schemas and indexes; queues, delivery streams, buckets and the
 * sealing key to moto. Each function's environment is then the template's, its references resolved
 * to those resources and its asset paths (/var/task/…) to the folder its bundle was written to,
 * where the files are copied as CDK's bundling copies them.
 *
 * moto's Firehose writes what it is given to its S3 destination as it comes: it has no dynamic
 * partitioning and no Parquet conversion, so a stream's records land as JSON lines under a
 * prefix of their stream.
 */
import { randomUUID } from "node:crypto";
import { copyFile } from "node:fs/promises";
import { basename, join } from "node:path";
import {
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { CreateTableCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { CreateDeliveryStreamCommand, FirehoseClient } from "@aws-sdk/client-firehose";
import { CreateKeyCommand, KMSClient } from "@aws-sdk/client-kms";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { INGEST_DATA } from "../../lib/bindings.ts";
import { PROJECT_ROOT, TASK_ROOT } from "../../lib/service-function.ts";
import { sharedServiceStack, TEST_ENV } from "../../lib/stack.test-support.ts";
import { waitUntilActive } from "../../src/adapters/dynamodb/table-definitions.ts";
import { type MotoServer, motoClientConfig } from "../local-aws/moto.ts";
import type { LocalResources, TableKeys } from "./authorizations.ts";
import type { Statement } from "./iam-policy.ts";

type Json = Record<string, unknown>;
interface Resource {
  readonly Type: string;
  readonly Properties?: Json;
}

const isJson = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Where moto's Firehose writes a stream's records: `<stream name>/` in its bucket. */
export interface LocalStream {
  readonly bucket: string;
  readonly prefix: string;
}

export interface StackOnLocalServers {
  /** A function's environment as the stack sets it, resolved here, by its manifest id. */
  environmentOf(id: string, bundleDir: string): Promise<Record<string, string>>;
  /** Where each delivery stream's records land, by the stream's name. */
  readonly streams: ReadonlyMap<string, LocalStream>;
  /**
   * The statements of the policies on a function's role of the services the recorder sees
   * (DynamoDB, SQS, Firehose, KMS), their values resolved to the local resources (a value
   * naming anything not made here stays unmatched).
   */
  statementsOf(id: string): Statement[];
  /** The resources made here, as a request names them (./authorizations.ts). */
  readonly local: LocalResources;
  /**
   * An asynchronous invocation (an EventBridge rule's), as Lambda makes it under the function's
   * `EventInvokeConfig`: `run` tried once and again up to its retries while it rejects, then, if
   * every try failed, Lambda's record of the failure sent to its on-failure queue, whose URL is
   * answered. Resolves with the tries made.
   */
  invokeAsync(
    id: string,
    event: unknown,
    run: () => Promise<unknown>,
  ): Promise<{ tries: number; failureQueueUrl?: string }>;
}

/** The asset files a function may name, by the name they have under /var/task. */
const ASSET_FILES = new Map(
  Object.values(INGEST_DATA).map((file) => [basename(file), join(PROJECT_ROOT, file)]),
);

/** A resource's name: its logical id, as lowercase as S3 wants a bucket's. */
const physicalName = (logicalId: string, type: string) =>
  type === "AWS::S3::Bucket" ? logicalId.toLowerCase() : logicalId;

export const stackOnLocalServers = async (servers: {
  readonly dynamodb: DynamoDBClient;
  readonly moto: MotoServer;
}): Promise<StackOnLocalServers> => {
  const { template } = sharedServiceStack();
  const resources = (template.toJSON() as { Resources: Record<string, Resource> }).Resources;
  const config = motoClientConfig(servers.moto);
  const sqs = new SQSClient(config);
  const s3 = new S3Client(config);
  const firehose = new FirehoseClient(config);
  const kms = new KMSClient(config);
  const cognito = new CognitoIdentityProviderClient(config);
  const region = TEST_ENV.region;
  const account = TEST_ENV.account;

  /** What each made resource answers to Ref and Fn::GetAtt. */
  const made = new Map<string, { ref: string; attributes: Record<string, string> }>();
  const streams = new Map<string, LocalStream>();

  const resourceOf = (logicalId: string): Resource => {
    const resource = resources[logicalId];
    if (!resource) throw new Error(`The template has no resource ${logicalId}`);
    return resource;
  };

  const make = async (logicalId: string) => {
    const known = made.get(logicalId);
    if (known) return known;
    const { Type: type, Properties: properties = {} } = resourceOf(logicalId);
    const name = physicalName(logicalId, type);
    let entry: { ref: string; attributes: Record<string, string> };
    switch (type) {
      case "AWS::DynamoDB::Table": {
        // The template's keys and indexes; what a local server has no use for (encryption,
        // recovery, deletion protection, TTL) is left out.
        await servers.dynamodb.send(
          new CreateTableCommand({
            TableName: name,
            BillingMode: "PAY_PER_REQUEST",
            AttributeDefinitions: properties.AttributeDefinitions as never,
            KeySchema: properties.KeySchema as never,
            GlobalSecondaryIndexes: properties.GlobalSecondaryIndexes as never,
          }),
        );
        await waitUntilActive(servers.dynamodb, name);
        entry = {
          ref: name,
          attributes: { Arn: `arn:aws:dynamodb:${region}:${account}:table/${name}` },
        };
        break;
      }
      case "AWS::SQS::Queue": {
        const { QueueUrl = "" } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
        const { Attributes } = await sqs.send(
          new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["QueueArn"] }),
        );
        entry = { ref: QueueUrl, attributes: { Arn: Attributes?.QueueArn ?? "" } };
        break;
      }
      case "AWS::S3::Bucket": {
        await s3.send(
          new CreateBucketCommand({
            Bucket: name,
            CreateBucketConfiguration: { LocationConstraint: region },
          }),
        );
        entry = { ref: name, attributes: { Arn: `arn:aws:s3:::${name}` } };
        break;
      }
      case "AWS::KinesisFirehose::DeliveryStream": {
        const destination = properties.ExtendedS3DestinationConfiguration;
        if (!isJson(destination)) throw new Error(`${logicalId} has no S3 destination`);
        const bucketArn = await resolve(destination.BucketARN);
        const prefix = `${name}/`;
        await firehose.send(
          new CreateDeliveryStreamCommand({
            DeliveryStreamName: name,
            DeliveryStreamType: "DirectPut",
            ExtendedS3DestinationConfiguration: {
              BucketARN: bucketArn,
              RoleARN: `arn:aws:iam::${account}:role/${name}`,
              Prefix: prefix,
            },
          }),
        );
        streams.set(name, { bucket: bucketArn.replace("arn:aws:s3:::", ""), prefix });
        entry = {
          ref: name,
          attributes: { Arn: `arn:aws:firehose:${region}:${account}:deliverystream/${name}` },
        };
        break;
      }
      case "AWS::KMS::Key": {
        const { KeyMetadata } = await kms.send(
          new CreateKeyCommand({ Description: logicalId, KeyUsage: "ENCRYPT_DECRYPT" }),
        );
        entry = { ref: KeyMetadata?.KeyId ?? "", attributes: { Arn: KeyMetadata?.Arn ?? "" } };
        break;
      }
      case "AWS::Cognito::UserPool": {
        const { UserPool } = await cognito.send(new CreateUserPoolCommand({ PoolName: name }));
        entry = {
          ref: UserPool?.Id ?? "",
          attributes: { Arn: UserPool?.Arn ?? "", ProviderName: UserPool?.Name ?? "" },
        };
        break;
      }
      case "AWS::Cognito::UserPoolClient": {
        const { UserPoolClient } = await cognito.send(
          new CreateUserPoolClientCommand({
            UserPoolId: await resolve(properties.UserPoolId),
            ClientName: name,
            ExplicitAuthFlows: properties.ExplicitAuthFlows as never,
            GenerateSecret: false,
          }),
        );
        entry = { ref: UserPoolClient?.ClientId ?? "", attributes: {} };
        break;
      }
      case "AWS::ApiGatewayV2::Api":
      case "AWS::ApiGateway::RestApi": {
        // Nothing serves it here; its URL is only named (new links carry the link host's).
        const id = name.toLowerCase();
        entry = {
          ref: id,
          attributes: { ApiEndpoint: `https://${id}.execute-api.${region}.amazonaws.com` },
        };
        break;
      }
      case "AWS::CloudFront::Distribution": {
        // Nothing serves it here either; new links name its domain (the link host's).
        const id = name.toLowerCase();
        entry = { ref: id, attributes: { DomainName: `${id}.cloudfront.net` } };
        break;
      }
      default:
        throw new Error(`${logicalId} (${type}) has no local server here`);
    }
    made.set(logicalId, entry);
    return entry;
  };

  const PSEUDO: Record<string, string> = {
    "AWS::Region": region,
    "AWS::AccountId": account,
    "AWS::Partition": "aws",
    "AWS::URLSuffix": "amazonaws.com",
  };

  /** A template value as a string, each resource it names made first. */
  const resolve = async (value: unknown): Promise<string> => {
    if (typeof value === "string") return value;
    if (isJson(value)) {
      if (typeof value.Ref === "string") {
        return PSEUDO[value.Ref] ?? (await make(value.Ref)).ref;
      }
      const getAtt = value["Fn::GetAtt"];
      if (Array.isArray(getAtt) && typeof getAtt[0] === "string") {
        const attribute = (await make(getAtt[0])).attributes[String(getAtt[1])];
        if (attribute === undefined) throw new Error(`No ${getAtt[1]} of ${getAtt[0]} here`);
        return attribute;
      }
      const join = value["Fn::Join"];
      if (Array.isArray(join) && typeof join[0] === "string" && Array.isArray(join[1])) {
        const parts = await Promise.all(join[1].map(resolve));
        return parts.join(join[0]);
      }
    }
    throw new Error(`Cannot resolve ${JSON.stringify(value)} from the template`);
  };

  /** The Lambda function the stack builds for the manifest's `id`, with its logical id. */
  const functionEntryOf = (id: string): [string, Resource] => {
    const fn = functionOf(id);
    const entry = Object.entries(resources).find(([, r]) => r === fn);
    if (!entry) throw new Error(`The stack has no ${id} function`);
    return entry;
  };

  const invokeAsync: StackOnLocalServers["invokeAsync"] = async (id, event, run) => {
    const [logicalId] = functionEntryOf(id);
    const config = Object.values(resources).find(
      (r) =>
        r.Type === "AWS::Lambda::EventInvokeConfig" &&
        isJson(r.Properties?.FunctionName) &&
        r.Properties.FunctionName.Ref === logicalId,
    )?.Properties;
    if (!config) throw new Error(`${id} has no asynchronous invocation config`);
    const retries = Number(config.MaximumRetryAttempts ?? 2);
    let tries = 0;
    let lastError: unknown;
    for (; tries < retries + 1; ) {
      tries += 1;
      try {
        await run();
        return { tries };
      } catch (error) {
        lastError = error;
      }
    }
    const destination = isJson(config.DestinationConfig) ? config.DestinationConfig : {};
    const onFailure = isJson(destination.OnFailure) ? destination.OnFailure.Destination : undefined;
    const getAtt = isJson(onFailure) ? onFailure["Fn::GetAtt"] : undefined;
    if (!Array.isArray(getAtt) || typeof getAtt[0] !== "string") return { tries };
    const queueUrl = (await make(getAtt[0])).ref;
    // The record Lambda sends a destination when an asynchronous invocation's retries run out.
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify({
          version: "1.0",
          timestamp: new Date().toISOString(),
          requestContext: {
            requestId: randomUUID(),
            functionArn: `arn:aws:lambda:${region}:${account}:function:${id}:$LATEST`,
            condition: "RetriesExhausted",
            approximateInvokeCount: tries,
          },
          requestPayload: event,
          responseContext: {
            statusCode: 200,
            executedVersion: "$LATEST",
            functionError: "Unhandled",
          },
          responsePayload: {
            errorType: lastError instanceof Error ? lastError.name : "Error",
            errorMessage: lastError instanceof Error ? lastError.message : String(lastError),
          },
        }),
      }),
    );
    return { tries, failureQueueUrl: queueUrl };
  };

  /** The Lambda function the stack builds for the manifest's `id` (its role says which). */
  const functionOf = (id: string): Resource => {
    const description = `Runs the ${id} function`;
    const role = Object.entries(resources).find(
      ([, r]) => r.Type === "AWS::IAM::Role" && r.Properties?.Description === description,
    )?.[0];
    const fn = Object.values(resources).find((r) => {
      const roleOf = r.Properties?.Role;
      return (
        r.Type === "AWS::Lambda::Function" &&
        isJson(roleOf) &&
        Array.isArray(roleOf["Fn::GetAtt"]) &&
        roleOf["Fn::GetAtt"][0] === role
      );
    });
    if (!role || !fn) throw new Error(`The stack has no ${id} function`);
    return fn;
  };

  // Made one after another, so a resource two functions name is made once.
  const environments = new Map<string, Record<string, string>>();
  const environmentOf = async (id: string, bundleDir: string) => {
    const known = environments.get(id);
    if (known) return known;
    const environment = functionOf(id).Properties?.Environment;
    const variables =
      isJson(environment) && isJson(environment.Variables) ? environment.Variables : {};
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(variables)) {
      const resolved = await resolve(value);
      if (resolved.startsWith(`${TASK_ROOT}/`)) {
        const file = ASSET_FILES.get(basename(resolved));
        if (!file) throw new Error(`${id}: ${name} names ${resolved}, which no asset ships`);
        const local = join(bundleDir, basename(resolved));
        await copyFile(file, local);
        env[name] = local;
      } else {
        env[name] = resolved;
      }
    }
    environments.set(id, env);
    return env;
  };

  /** A policy value as a string, naming only what is made here (else one that matches no ARN). */
  const resolveMade = (value: unknown): string => {
    if (typeof value === "string") return value;
    if (isJson(value)) {
      if (typeof value.Ref === "string") {
        return PSEUDO[value.Ref] ?? made.get(value.Ref)?.ref ?? "(not made here)";
      }
      const getAtt = value["Fn::GetAtt"];
      if (Array.isArray(getAtt) && typeof getAtt[0] === "string") {
        return made.get(getAtt[0])?.attributes[String(getAtt[1])] ?? "(not made here)";
      }
      const join = value["Fn::Join"];
      if (Array.isArray(join) && typeof join[0] === "string" && Array.isArray(join[1])) {
        return join[1].map(resolveMade).join(join[0]);
      }
    }
    throw new Error(`Cannot resolve ${JSON.stringify(value)} from the template`);
  };

  const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

  /** The services whose requests go through the recorder, by their actions' prefix. */
  const RECORDED = ["dynamodb:", "sqs:", "firehose:", "kms:"];

  const statementsOf = (id: string): Statement[] => {
    const role = Object.entries(resources).find(
      ([, r]) =>
        r.Type === "AWS::IAM::Role" && r.Properties?.Description === `Runs the ${id} function`,
    )?.[0];
    if (!role) throw new Error(`The stack has no role for ${id}`);
    return Object.values(resources)
      .filter(
        (r) =>
          r.Type === "AWS::IAM::Policy" &&
          asList(r.Properties?.Roles).some((named) => isJson(named) && named.Ref === role),
      )
      .flatMap((policy) => {
        const document = policy.Properties?.PolicyDocument;
        return asList(isJson(document) ? document.Statement : []).filter(isJson);
      })
      .filter((statement) =>
        asList(statement.Action).some(
          (a) => typeof a === "string" && RECORDED.some((prefix) => a.startsWith(prefix)),
        ),
      )
      .map((statement) => ({
        Effect: statement.Effect === "Deny" ? "Deny" : "Allow",
        Action: asList(statement.Action).map(String),
        Resource: asList(statement.Resource).map(resolveMade),
        ...(isJson(statement.Condition) && {
          Condition: statement.Condition as NonNullable<Statement["Condition"]>,
        }),
      }));
  };

  const tableArnOf = (name: string) => `arn:aws:dynamodb:${region}:${account}:table/${name}`;

  const tableKeysOf = (name: string): TableKeys => {
    const hashOf = (schema: unknown): string => {
      const hash = asList(schema).find((key) => isJson(key) && key.KeyType === "HASH");
      if (!isJson(hash)) throw new Error(`${name}: a key schema without a partition key`);
      return String(hash.AttributeName);
    };
    const properties = resourceOf(name).Properties ?? {};
    return {
      partitionKey: hashOf(properties.KeySchema),
      indexes: Object.fromEntries(
        asList(properties.GlobalSecondaryIndexes ?? [])
          .filter(isJson)
          .map((index) => [String(index.IndexName), hashOf(index.KeySchema)]),
      ),
    };
  };

  const local: LocalResources = {
    tableArnOf,
    tableKeysOf,
    // A queue by its URL (at whatever host) or name, a stream by its name, a key by its id or ARN.
    arnOf: (ref) => {
      const name = ref.split("/").at(-1) ?? ref;
      return [...made.values()].find(
        (entry) =>
          entry.ref === ref || entry.attributes.Arn === ref || entry.ref.endsWith(`/${name}`),
      )?.attributes.Arn;
    },
    soleKeyArn: () => {
      const keys = [...made.entries()].filter(([id]) => resourceOf(id).Type === "AWS::KMS::Key");
      const [only] = keys;
      if (keys.length !== 1 || !only) throw new Error(`${keys.length} KMS keys made here, not one`);
      return only[1].attributes.Arn ?? "";
    },
  };

  return { environmentOf, streams, invokeAsync, statementsOf, local };
};

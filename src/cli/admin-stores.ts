/**
 * Where the admin commands (apps, keys) act. On this machine: the embedded service's stores.
 * On AWS, after `cdk deploy`: the stack's tables and sealing key, named by the stack outputs
 * in ATTRIBUTION_AWS_APPS_TABLE, ATTRIBUTION_AWS_KEYS_TABLE and ATTRIBUTION_AWS_SEALING_KEY_ARN
 * (and, for links, ATTRIBUTION_AWS_LINKS_TABLE and ATTRIBUTION_AWS_LINK_HOST_URL; for their
 * click counts, ATTRIBUTION_AWS_ATHENA_WORKGROUP and ATTRIBUTION_AWS_GLUE_DATABASE; for the
 * dashboard's people, ATTRIBUTION_AWS_USERS_TABLE and ATTRIBUTION_AWS_USER_POOL_ID; for postbacks,
 * ATTRIBUTION_AWS_POSTBACK_CONFIGS_TABLE and ATTRIBUTION_AWS_DELIVERY_LOG_TABLE; for Apple's postbacks,
 * ATTRIBUTION_AWS_APPLE_POSTBACKS_TABLE), reached
 * with the caller's AWS credentials and region.
 */

import { AthenaClient } from "@aws-sdk/client-athena";
import { CognitoIdentityProviderClient } from "@aws-sdk/client-cognito-identity-provider";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { KMSClient } from "@aws-sdk/client-kms";
import { S3Client } from "@aws-sdk/client-s3";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { athenaLinkClicks } from "../adapters/athena/link-clicks.ts";
import { createCognitoCredentials } from "../adapters/cognito/cognito-credentials.ts";
import { countLinkClicks } from "../adapters/duckdb/link-clicks.ts";
import { createApplePostbackStore } from "../adapters/dynamodb/apple-postbacks.ts";
import { createLinkStore } from "../adapters/dynamodb/links.ts";
import { MARSHALL_OPTIONS } from "../adapters/dynamodb/marshall-options.ts";
import { createPasswordCredentials } from "../adapters/dynamodb/password-credentials.ts";
import { createDeliveryLog, createPostbackConfigStore } from "../adapters/dynamodb/postbacks.ts";
import { createAppStore, createKeyStore } from "../adapters/dynamodb/stores.ts";
import { createUserStore } from "../adapters/dynamodb/users.ts";
import { createKeyFileWrapper } from "../adapters/key-file/key-file-wrapper.ts";
import { createKmsKeyWrapper } from "../adapters/kms/kms-key-wrapper.ts";
import { embeddedConfig } from "../config/embedded.ts";
import { parseEnv } from "../config/parse-env.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { dataPaths, readRuntimeInfo } from "../embedded/data-dir.ts";
import type { ApplePostbackStore } from "../ports/apple-postbacks.ts";
import type { AppStore, KeyStore } from "../ports/apps.ts";
import type { LinkStore } from "../ports/links.ts";
import type { DeliveryLog, PostbackConfigStore } from "../ports/postbacks.ts";
import type { Credentials, UserStore } from "../ports/users.ts";
import { withLocalStores } from "./local-data.ts";

export interface AdminStores {
  readonly apps: AppStore;
  readonly keys: KeyStore;
  /** Wraps new app private keys: KMS on AWS, the data folder's key file here. */
  readonly wrapper: KeyWrapper;
  /** The links; a ValidationError on AWS when the links table is not named. */
  readonly links: () => LinkStore;
  /** The service's link host, which links of an app without a host of its own name. */
  readonly linkBaseUrl: () => string;
  /** Counted clicks per link of an app, from the lake; undefined where the CLI cannot count. */
  readonly clickCounts?: (appId: string) => Promise<Map<string, number>>;
  /** The dashboard's people; a ValidationError on AWS when the users table is not named. */
  readonly users: () => UserStore;
  /** Their passwords: the users table's hashes here, Cognito's user pool on AWS. */
  readonly credentials: () => Credentials;
  /** Postback and webhook configurations and their delivery log; a ValidationError on AWS when unnamed. */
  readonly postbacks: () => {
    readonly configs: PostbackConfigStore;
    readonly log: DeliveryLog;
    /** The operator's setting: postbacks may go to this machine (tests' mock partners). */
    readonly allowLoopback: boolean;
  };
  /** Apple's postbacks; a ValidationError on AWS when their table is not named. */
  readonly applePostbacks: () => ApplePostbackStore;
  /** Where the commands act, for their messages. */
  readonly target: string;
}

const awsTarget = z.object({
  ATTRIBUTION_AWS_APPS_TABLE: z.string().min(3),
  ATTRIBUTION_AWS_KEYS_TABLE: z.string().min(3),
  ATTRIBUTION_AWS_SEALING_KEY_ARN: z.string().min(1).optional(),
  ATTRIBUTION_AWS_LINKS_TABLE: z.string().min(3).optional(),
  ATTRIBUTION_AWS_LINK_HOST_URL: z.url().optional(),
  ATTRIBUTION_AWS_ATHENA_WORKGROUP: z.string().min(1).optional(),
  ATTRIBUTION_AWS_GLUE_DATABASE: z.string().min(1).optional(),
  ATTRIBUTION_AWS_USERS_TABLE: z.string().min(3).optional(),
  ATTRIBUTION_AWS_USER_POOL_ID: z.string().min(1).optional(),
  ATTRIBUTION_AWS_POSTBACK_CONFIGS_TABLE: z.string().min(3).optional(),
  ATTRIBUTION_AWS_DELIVERY_LOG_TABLE: z.string().min(3).optional(),
  ATTRIBUTION_AWS_APPLE_POSTBACKS_TABLE: z.string().min(3).optional(),
});

const unset =
  (variable: string, output: string, what = "links") =>
  () => {
    throw new Error(`Set ${variable} (the stack output ${output}) to manage ${what} on AWS.`);
  };

/** The AWS target when its tables are named, else undefined (this machine). */
const awsConfig = (env: NodeJS.ProcessEnv) =>
  env.ATTRIBUTION_AWS_APPS_TABLE || env.ATTRIBUTION_AWS_KEYS_TABLE
    ? parseEnv(awsTarget, env)
    : undefined;

const noSealingKey: KeyWrapper = {
  wrap: () =>
    Promise.reject(
      new Error(
        "Set ATTRIBUTION_AWS_SEALING_KEY_ARN (the stack output SealingKeyArn) to turn sealing on.",
      ),
    ),
  unwrap: () => Promise.reject(new Error("No sealing key configured.")),
};

export const withAdminStores = async <T>(
  dataDir: string,
  work: (stores: AdminStores) => Promise<T>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<T> => {
  const aws = awsConfig(env);
  if (!aws) {
    const config = embeddedConfig(env, { dataDir });
    const running = await readRuntimeInfo(dataDir);
    const linkBaseUrl =
      config.linkBaseUrl ?? running?.linkUrl ?? `http://${config.host}:${config.linkPort}`;
    return withLocalStores(dataDir, (stores) =>
      work({
        apps: stores.apps,
        keys: stores.keys,
        wrapper: createKeyFileWrapper(dataPaths(dataDir).masterKey),
        links: () => stores.links,
        linkBaseUrl: () => linkBaseUrl,
        clickCounts: (appId) => countLinkClicks(dataPaths(dataDir).lake, appId),
        users: () => stores.users,
        credentials: () => createPasswordCredentials(stores.users),
        postbacks: () => ({
          configs: stores.postbackConfigs,
          log: stores.deliveryLog,
          allowLoopback: config.postbacksAllowLoopback,
        }),
        applePostbacks: () => stores.applePostbacks,
        target: dataDir,
      }),
    );
  }
  const client = new DynamoDBClient({});
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: MARSHALL_OPTIONS,
  });
  const kms = aws.ATTRIBUTION_AWS_SEALING_KEY_ARN ? new KMSClient({}) : undefined;
  const linksTable = aws.ATTRIBUTION_AWS_LINKS_TABLE;
  const linkHostUrl = aws.ATTRIBUTION_AWS_LINK_HOST_URL;
  const workGroup = aws.ATTRIBUTION_AWS_ATHENA_WORKGROUP;
  const database = aws.ATTRIBUTION_AWS_GLUE_DATABASE;
  const query =
    workGroup && database ? { athena: new AthenaClient({}), s3: new S3Client({}) } : undefined;
  const usersTable = aws.ATTRIBUTION_AWS_USERS_TABLE;
  const userPoolId = aws.ATTRIBUTION_AWS_USER_POOL_ID;
  const postbackConfigsTable = aws.ATTRIBUTION_AWS_POSTBACK_CONFIGS_TABLE;
  const deliveryLogTable = aws.ATTRIBUTION_AWS_DELIVERY_LOG_TABLE;
  const applePostbacksTable = aws.ATTRIBUTION_AWS_APPLE_POSTBACKS_TABLE;
  let cognitoClient: CognitoIdentityProviderClient | undefined;
  const cognito = () => {
    cognitoClient ??= new CognitoIdentityProviderClient({});
    return cognitoClient;
  };
  try {
    return await work({
      apps: createAppStore(doc, aws.ATTRIBUTION_AWS_APPS_TABLE),
      keys: createKeyStore(doc, aws.ATTRIBUTION_AWS_KEYS_TABLE),
      wrapper:
        kms && aws.ATTRIBUTION_AWS_SEALING_KEY_ARN
          ? createKmsKeyWrapper({ kms, keyId: aws.ATTRIBUTION_AWS_SEALING_KEY_ARN })
          : noSealingKey,
      links: linksTable
        ? () => createLinkStore(doc, linksTable)
        : unset("ATTRIBUTION_AWS_LINKS_TABLE", "LinksTableName"),
      linkBaseUrl: linkHostUrl
        ? () => linkHostUrl
        : unset("ATTRIBUTION_AWS_LINK_HOST_URL", "LinkHostUrl"),
      clickCounts:
        query && workGroup && database
          ? athenaLinkClicks({ ...query, workGroup, database })
          : undefined,
      users: usersTable
        ? () => createUserStore(doc, usersTable)
        : unset("ATTRIBUTION_AWS_USERS_TABLE", "UsersTableName"),
      credentials: userPoolId
        ? () => createCognitoCredentials({ client: cognito(), userPoolId })
        : unset("ATTRIBUTION_AWS_USER_POOL_ID", "UserPoolId"),
      postbacks:
        postbackConfigsTable && deliveryLogTable
          ? () => ({
              configs: createPostbackConfigStore(doc, postbackConfigsTable),
              log: createDeliveryLog(doc, deliveryLogTable),
              // The stack's functions never send to this machine; neither does the CLI for them.
              allowLoopback: false,
            })
          : unset(
              "ATTRIBUTION_AWS_POSTBACK_CONFIGS_TABLE and ATTRIBUTION_AWS_DELIVERY_LOG_TABLE",
              "PostbackConfigsTableName and DeliveryLogTableName",
              "postbacks",
            ),
      applePostbacks: applePostbacksTable
        ? () => createApplePostbackStore(doc, applePostbacksTable)
        : unset("ATTRIBUTION_AWS_APPLE_POSTBACKS_TABLE", "ApplePostbacksTableName", "SKAdNetwork"),
      target: `AWS (${aws.ATTRIBUTION_AWS_APPS_TABLE})`,
    });
  } finally {
    cognitoClient?.destroy();
    client.destroy();
    kms?.destroy();
    query?.athena.destroy();
    query?.s3.destroy();
  }
};

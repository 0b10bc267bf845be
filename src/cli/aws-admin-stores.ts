/**
 * The admin commands' stores on AWS, after `cdk deploy`: the stack's tables, sealing key, user
 * pool and lake, reached with the caller's AWS credentials and region. Loaded only for that
 * target, so a command on this machine loads none of these clients.
 */
import { AthenaClient } from "@aws-sdk/client-athena";
import { CognitoIdentityProviderClient } from "@aws-sdk/client-cognito-identity-provider";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { KMSClient } from "@aws-sdk/client-kms";
import { S3Client } from "@aws-sdk/client-s3";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { athenaLinkClicks } from "../adapters/athena/link-clicks.ts";
import { createCognitoCredentials } from "../adapters/cognito/cognito-credentials.ts";
import { createApplePostbackStore } from "../adapters/dynamodb/apple-postbacks.ts";
import { createDeletionStore } from "../adapters/dynamodb/deletions.ts";
import { createLinkStore } from "../adapters/dynamodb/links.ts";
import { MARSHALL_OPTIONS } from "../adapters/dynamodb/marshall-options.ts";
import { createDeliveryLog, createPostbackConfigStore } from "../adapters/dynamodb/postbacks.ts";
import { createAppStore, createKeyStore } from "../adapters/dynamodb/stores.ts";
import { createUserStore } from "../adapters/dynamodb/users.ts";
import { createKmsKeyWrapper } from "../adapters/kms/kms-key-wrapper.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { servedLinkHostsOf } from "../links/app-settings.ts";
import type { DeletionStore } from "../ports/deletions.ts";
import type { AdminStores, AwsTarget } from "./admin-target.ts";

const unset =
  (variable: string, output: string, what = "links") =>
  () => {
    throw new Error(`Set ${variable} (the stack output ${output}) to manage ${what} on AWS.`);
  };

/** The deletion requests, where the postbacks' log asks for them and none is named. */
const unsetDeletions = (): Pick<DeletionStore, "tombstones" | "listByApp"> => {
  const refuse = () =>
    Promise.reject(
      new Error(
        "Set ATTRIBUTION_AWS_DELETIONS_TABLE (the stack output DeletionsTableName) to read the delivery log on AWS: it leaves deleted installs out.",
      ),
    );
  return { tombstones: refuse, listByApp: refuse };
};

const noSealingKey: KeyWrapper = {
  wrap: () =>
    Promise.reject(
      new Error(
        "Set ATTRIBUTION_AWS_SEALING_KEY_ARN (the stack output SealingKeyArn) to turn sealing on.",
      ),
    ),
  unwrap: () => Promise.reject(new Error("No sealing key configured.")),
};

export const withAwsAdminStores = async <T>(
  aws: AwsTarget,
  work: (stores: AdminStores) => Promise<T>,
): Promise<T> => {
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
  const deletionsTable = aws.ATTRIBUTION_AWS_DELETIONS_TABLE;
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
      // As the API's functions read LINK_APP_HOSTS: a host not in it would fail every tap. Unset
      // is not none (the output says `none`): the operator is told to name them.
      servedLinkHosts:
        aws.ATTRIBUTION_AWS_LINK_APP_HOSTS === undefined
          ? unset("ATTRIBUTION_AWS_LINK_APP_HOSTS", "LinkAppHosts", "apps' link hosts")
          : () => servedLinkHostsOf(aws.ATTRIBUTION_AWS_LINK_APP_HOSTS),
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
              // Only the log reads it, to leave deleted installs out.
              deletions: deletionsTable
                ? createDeletionStore(doc, deletionsTable)
                : unsetDeletions(),
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

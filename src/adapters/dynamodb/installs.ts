/**
 * Installs and the customer-user mapping on DynamoDB. Both are keyed by app first, so a
 * service id or customer user id of one app is unknown to every other.
 */

import { createHash } from "node:crypto";
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { ATT_STATUSES, OS_VALUES } from "../../domain/install-facts.ts";
import type {
  CustomerUserMap,
  CustomerUserUse,
  Install,
  InstallHistory,
  InstallStore,
} from "../../ports/installs.ts";
import { conditionHolds, unlessConditionFails } from "./conditional.ts";
import { queryIndex } from "./query-index.ts";
import {
  CUSTOMER_USER_USE_PREFIX,
  indexOf,
  PURGED_CUSTOMER_USER_PREFIX,
} from "./table-definitions.ts";

const installKey = (appId: string, serviceId: string) => `${appId}#${serviceId}`;
const customerUserKey = (appId: string, customerUserId: string) => `${appId}#${customerUserId}`;
const BY_INSTALL_INDEX = indexOf("customerUsers", "byInstall").name;
const BY_USER_INDEX = indexOf("customerUsers", "byUser").name;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * What an install's use of an id is found by: the app and the SHA-256 of the mapping's key,
 * never the id in clear. A use written as a purge of its install runs is left by it, and must
 * keep no more than the purge's own mark does.
 */
const useUserKey = (appId: string, customerUserId: string) =>
  `${CUSTOMER_USER_USE_PREFIX}${appId}#${sha256(customerUserKey(appId, customerUserId))}`;

const standingUse = z.object({ serviceId: z.string(), seenAt: z.string() });

/**
 * The mark of a purged mapping, keyed by the SHA-256 of the mapping's key: the purge removes the
 * customer user id, and the mark must not keep it in clear, only answer for it when named again.
 */
const purgedKey = (appId: string, mappingKey: string) =>
  `${PURGED_CUSTOMER_USER_PREFIX}${appId}#${sha256(mappingKey)}`;

const serviceIdItem = z.object({ serviceId: z.string() }).optional();

const installItem = z.object({
  appId: z.string(),
  serviceId: z.string(),
  os: z.enum(OS_VALUES),
  osVersion: z.string().nullable(),
  deviceModel: z.string().nullable(),
  appVersion: z.string().nullable(),
  sdkPlatform: z.string(),
  sdkVersion: z.string(),
  firstOpenTime: z.string(),
  clockOffsetMs: z.number().nullable(),
  idfv: z.string().nullable(),
  maid: z.string().nullable(),
  installReferrer: z
    .object({
      referrer: z.string(),
      clickTimestamp: z.number().nullable(),
      installBeginTimestamp: z.number().nullable(),
      clickServerTimestamp: z.number().nullable(),
      installBeginServerTimestamp: z.number().nullable(),
      installVersion: z.string().nullable(),
    })
    .nullable(),
  attStatus: z.enum(ATT_STATUSES).nullable(),
  openUrl: z.string().nullable(),
  customerUserId: z.string().nullable(),
  anonymous: z.boolean().optional(),
  consent: z
    .object({
      gdprApplies: z.boolean().nullable(),
      adUserData: z.boolean().nullable(),
      adPersonalization: z.boolean().nullable(),
      tcfString: z.string().nullable(),
      updatedAt: z.string(),
    })
    .nullable(),
  locale: z.string().nullable(),
  timezone: z.string().nullable(),
  country: z.string().nullable(),
  receivedAt: z.string(),
});

const toInstall = (item: Record<string, unknown>): Install => installItem.parse(item);

const BY_IDFV = indexOf("installs", "byIdfv");

export const createInstallStore = (
  doc: DynamoDBDocumentClient,
  table: string,
): InstallStore & InstallHistory => {
  // Strongly consistent: the install is read moments after its first open stored it (by the
  // attribution job the same request queued, by the install's first events, by a repeat of
  // the request racing it), and an eventually consistent read could find nothing yet.
  const get = async (appId: string, serviceId: string) => {
    const { Item } = await doc.send(
      new GetCommand({
        TableName: table,
        Key: { installKey: installKey(appId, serviceId) },
        ConsistentRead: true,
      }),
    );
    return Item ? toInstall(Item) : undefined;
  };
  return {
    async putIfAbsent(install) {
      const created = await conditionHolds(() =>
        doc.send(
          new PutCommand({
            TableName: table,
            Item: {
              ...install,
              installKey: installKey(install.appId, install.serviceId),
              ...(install.idfv ? { idfvKey: `${install.appId}#${install.idfv}` } : {}),
            },
            ConditionExpression: "attribute_not_exists(installKey)",
          }),
        ),
      );
      if (created) return { install, created: true };
      // A repeat (an SDK retry, or two first opens racing): the first one stands.
      const stored = await get(install.appId, install.serviceId);
      if (!stored) throw new Error(`install ${install.serviceId} went while it was being stored`);
      return { install: stored, created: false };
    },
    get,
    async update(appId, serviceId, { consent, tracking }) {
      const sets = [
        ...(consent ? ["#consent = :consent"] : []),
        ...(tracking ? ["maid = :maid", "attStatus = :att"] : []),
      ];
      // Only an install that exists: a change never makes one.
      const written = await unlessConditionFails(() =>
        doc.send(
          new UpdateCommand({
            TableName: table,
            Key: { installKey: installKey(appId, serviceId) },
            UpdateExpression: `SET ${sets.join(", ")}`,
            ConditionExpression: "attribute_exists(installKey)",
            ...(consent ? { ExpressionAttributeNames: { "#consent": "consent" } } : {}),
            ExpressionAttributeValues: {
              ...(consent ? { ":consent": consent } : {}),
              ...(tracking ? { ":maid": tracking.maid, ":att": tracking.attStatus } : {}),
            },
            ReturnValues: "ALL_NEW",
          }),
        ),
      );
      return written?.Attributes ? toInstall(written.Attributes) : undefined;
    },
    withIdfv: (appId, idfv) =>
      queryIndex(
        doc,
        { table, index: BY_IDFV.name, key: BY_IDFV.partitionKey, value: `${appId}#${idfv}` },
        toInstall,
      ),
    async delete(appId, serviceId) {
      await doc.send(
        new DeleteCommand({ TableName: table, Key: { installKey: installKey(appId, serviceId) } }),
      );
    },
  };
};

export const createCustomerUserMap = (
  doc: DynamoDBDocumentClient,
  table: string,
): CustomerUserMap => {
  /** Keeps an install's use of an id among the id's other installs, at its latest time. */
  const keepUse = (appId: string, customerUserId: string, use: CustomerUserUse) =>
    conditionHolds(() =>
      doc.send(
        new PutCommand({
          TableName: table,
          Item: {
            customerUserKey: `${useUserKey(appId, customerUserId)}#${use.serviceId}`,
            userKey: useUserKey(appId, customerUserId),
            installKey: installKey(appId, use.serviceId),
            serviceId: use.serviceId,
            seenAt: use.seenAt,
          },
          ConditionExpression: "attribute_not_exists(customerUserKey) OR seenAt <= :seenAt",
          ExpressionAttributeValues: { ":seenAt": use.seenAt },
        }),
      ),
    );
  return {
    async put(appId, customerUserId, serviceId, seenAt) {
      const key = customerUserKey(appId, customerUserId);
      // A purge may delete the standing use between the refused put and the read of it: then
      // the put is tried again, once, on an id no longer mapped.
      for (let attempt = 0; attempt < 2; attempt += 1) {
        // Last writer by event time wins, so a late retry does not move the id back.
        let replaced: Record<string, unknown> | undefined;
        const written = await conditionHolds(async () => {
          const answer = await doc.send(
            new PutCommand({
              TableName: table,
              Item: {
                customerUserKey: key,
                installKey: installKey(appId, serviceId),
                serviceId,
                seenAt,
              },
              ConditionExpression: "attribute_not_exists(customerUserKey) OR seenAt <= :seenAt",
              ExpressionAttributeValues: { ":seenAt": seenAt },
              ReturnValues: "ALL_OLD",
            }),
          );
          replaced = answer.Attributes;
        });
        if (written) {
          // Another install's use taken over: that install is one of the id's others now.
          const before = replaced === undefined ? undefined : standingUse.parse(replaced);
          if (before && before.serviceId !== serviceId)
            await keepUse(appId, customerUserId, before);
          return { serviceId, seenAt };
        }
        // A later use stands: read it, consistently, as the answer.
        const { Item } = await doc.send(
          new GetCommand({ TableName: table, Key: { customerUserKey: key }, ConsistentRead: true }),
        );
        if (Item) {
          const stands = standingUse.parse(Item);
          // Another install's: this one's use is kept among the others.
          if (stands.serviceId !== serviceId) {
            await keepUse(appId, customerUserId, { serviceId, seenAt });
          }
          return stands;
        }
      }
      throw new Error("A customer-user mapping changed under every attempt to write it");
    },
    async get(appId, customerUserId, options) {
      const key = customerUserKey(appId, customerUserId);
      const { Item } = await doc.send(
        new GetCommand({
          TableName: table,
          Key: { customerUserKey: options?.purged ? purgedKey(appId, key) : key },
        }),
      );
      return serviceIdItem.parse(Item)?.serviceId;
    },
    async otherInstalls(appId, customerUserId) {
      const uses = await queryIndex(
        doc,
        {
          table,
          index: BY_USER_INDEX,
          key: "userKey",
          value: useUserKey(appId, customerUserId),
        },
        (item) => standingUse.parse(item),
      );
      // Both ISO 8601 UTC with milliseconds: their text orders as their times do.
      return uses
        .sort((a, b) => (a.seenAt < b.seenAt ? 1 : a.seenAt > b.seenAt ? -1 : 0))
        .map((use) => use.serviceId);
    },
    async deleteInstall(appId, serviceId) {
      const keys = await queryIndex(
        doc,
        { table, index: BY_INSTALL_INDEX, key: "installKey", value: installKey(appId, serviceId) },
        (item) => z.object({ customerUserKey: z.string() }).parse(item).customerUserKey,
      );
      for (const customerUserKey of keys) {
        // The install's use of an id: no mark, the id's mapping (or none) speaks for it.
        if (customerUserKey.startsWith(CUSTOMER_USER_USE_PREFIX)) {
          await doc.send(new DeleteCommand({ TableName: table, Key: { customerUserKey } }));
          continue;
        }
        // The mark before the delete: a purge cut off between the two is run again, and its
        // query then still finds the mapping. It carries no installKey, so the by-install index
        // never lists it and no later purge deletes it. A mark left for a mapping that has moved
        // on (the delete below does not hold) is harmless: a mark is read only for an id that no
        // install uses now, and the purge of the install that does mark it again.
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: { customerUserKey: purgedKey(appId, customerUserKey), serviceId },
          }),
        );
        // The index may lag behind a mapping moved to another install since: only one that still
        // names this install goes.
        await conditionHolds(() =>
          doc.send(
            new DeleteCommand({
              TableName: table,
              Key: { customerUserKey },
              ConditionExpression: "installKey = :install",
              ExpressionAttributeValues: { ":install": installKey(appId, serviceId) },
            }),
          ),
        );
      }
    },
  };
};

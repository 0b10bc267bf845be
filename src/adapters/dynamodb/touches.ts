/**
 * The touch store on DynamoDB. Each touch is one item keyed by its click id; the two indexes
 * key it by `<app>#<advertising id>` and `<app>#<IP match key>` with a sort key unique per
 * touch, so a window of one device's touches is one query, newest first. An address's key is
 * sharded (./shards.ts): one carrier NAT's or one bot's address spreads its taps over several
 * partitions, and its window is read from each and merged, newest first.
 * The same table keeps which installs send from each address (./sightings.ts), which matching
 * reads with the address's touches, and which install holds each click matching credited: an
 * item keyed `claim#<app>#<click id>` naming the install by a hash of its id, written on the
 * condition that no other install holds it (no index key, no `source`: no lookup and no
 * stream of the table's taps takes it). Items expire by DynamoDB's TTL on AWS and by `reap` on
 * the embedded runtime.
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { TOUCH_TYPES } from "../../domain/touch.ts";
import type { Touch, TouchStore, TouchWindow } from "../../ports/touches.ts";
import { claimStep, releasedClaim, type StoredClaim } from "../../touches/click-claims.ts";
import { ipMatchKey } from "../../touches/ip.ts";
import {
  installTag,
  maidMatchKey,
  touchExpirySeconds,
  touchSortKey,
  windowEndKey,
} from "../../touches/lookup-keys.ts";
import { adFieldsItem, costItem } from "./ad-fields.ts";
import { conditionHolds } from "./conditional.ts";
import { deleteAll, expiredKeys, writeAll } from "./expiry.ts";
import { shards } from "./shards.ts";
import { countInstallsAt, sightingItem } from "./sightings.ts";
import { stringMapItem, stringMapText } from "./string-map.ts";
import {
  CLAIM_KEY_PREFIX,
  type IndexName,
  indexOf,
  SIGHTING_KEY_PREFIX,
} from "./table-definitions.ts";

const text = z.string().nullable();

const touchItem = z.object({
  clickId: z.string(),
  appId: z.string(),
  touchType: z.enum(TOUCH_TYPES),
  source: z.enum(["link", "network"]),
  touchTime: z.string(),
  receivedAt: z.string(),
  deeplinkId: text,
  ...adFieldsItem,
  networkClickId: text,
  ip: text,
  userAgent: text,
  platform: z.enum(["android", "ios", "other"]),
  osVersion: text,
  deviceModel: text,
  language: text,
  country: text,
  maid: text,
  params: stringMapItem,
  urlParams: stringMapItem,
  cost: costItem,
});

/**
 * A stored item as the touch it holds; throws on a wrong item. Its index keys and TTL are no
 * field of a touch, and zod's object leaves them out.
 */
export const toTouch = (item: Record<string, unknown>): Touch => touchItem.parse(item);

/**
 * Whether a key may name a touch: a referrer's click id is the phone's to say, and may name a
 * sighting or a claim instead.
 */
const isTouchKey = (clickId: string) =>
  !clickId.startsWith(SIGHTING_KEY_PREFIX) && !clickId.startsWith(CLAIM_KEY_PREFIX);

const maidKey = (appId: string, maid: string) => `${appId}#${maidMatchKey(maid)}`;
const ipKey = (appId: string, key: string) => `${appId}#${key}`;
const IP_SHARDS = shards(8);

const itemOf = (touch: Touch) => {
  const ip = ipMatchKey(touch.ip);
  return {
    ...touch,
    params: stringMapText(touch.params),
    urlParams: stringMapText(touch.urlParams),
    ...(touch.maid ? { maidKey: maidKey(touch.appId, touch.maid) } : {}),
    ...(ip ? { ipKey: IP_SHARDS.keyOf(ipKey(touch.appId, ip), touch.clickId) } : {}),
    touchKey: touchSortKey(touch),
    expiresTtl: touchExpirySeconds(touch.touchTime),
  };
};

/** A claim's conditional writes tried, each after reading what the last one met. */
const CLAIM_ATTEMPTS = 4;

const storedClaim = z.object({
  holder: z.string(),
  device: z.string().optional(),
  ownHolder: z.string().optional(),
  ownDevice: z.string().optional(),
});

const claimItem = (clickId: string, claim: StoredClaim, expiresTtl: number) => ({
  clickId,
  holder: claim.holder,
  ...(claim.device ? { device: claim.device } : {}),
  ...(claim.ownHolder && claim.ownDevice
    ? { ownHolder: claim.ownHolder, ownDevice: claim.ownDevice }
    : {}),
  expiresTtl,
});

/** A write's condition that the claim is still as read (or still absent). */
const unchangedSince = (stored: StoredClaim | undefined) =>
  stored === undefined
    ? { ConditionExpression: "attribute_not_exists(clickId)" }
    : stored.ownHolder === undefined
      ? {
          ConditionExpression: "holder = :holder AND attribute_not_exists(ownHolder)",
          ExpressionAttributeValues: { ":holder": stored.holder },
        }
      : {
          ConditionExpression: "holder = :holder AND ownHolder = :ownHolder",
          ExpressionAttributeValues: { ":holder": stored.holder, ":ownHolder": stored.ownHolder },
        };

export const createTouchStore = (doc: DynamoDBDocumentClient, table: string): TouchStore => {
  const readClaim = async (clickId: string): Promise<StoredClaim | undefined> => {
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: { clickId }, ConsistentRead: true }),
    );
    if (Item === undefined) return undefined;
    const { device, ...rest } = storedClaim.parse(Item);
    return { ...rest, device: device ?? null };
  };
  const inWindow = async (
    index: IndexName<"touches">,
    key: string,
    window: TouchWindow,
  ): Promise<Touch[]> => {
    const { partitionKey, sortKey } = indexOf("touches", index);
    const found: Touch[] = [];
    const pages = paginateQuery(
      { client: doc },
      {
        TableName: table,
        IndexName: index,
        KeyConditionExpression: "#key = :key AND #sort BETWEEN :from AND :to",
        ExpressionAttributeNames: { "#key": partitionKey, "#sort": sortKey },
        ExpressionAttributeValues: {
          ":key": key,
          ":from": window.from.toISOString(),
          // The window's last millisecond included.
          ":to": windowEndKey(window.to),
        },
        ScanIndexForward: false,
      },
    );
    for await (const page of pages) for (const item of page.Items ?? []) found.push(toTouch(item));
    return found;
  };

  return {
    // One touch (the link host's tap) is one PutItem, the only write its function may make.
    put: async (touches) => {
      const [only] = touches;
      if (touches.length === 1 && only) {
        await doc.send(new PutCommand({ TableName: table, Item: itemOf(only) }));
        return;
      }
      await writeAll(
        doc,
        table,
        touches.map((touch) => ({ PutRequest: { Item: itemOf(touch) } })),
      );
    },
    async putIfAbsent(touch) {
      const created = await conditionHolds(() =>
        doc.send(
          new PutCommand({
            TableName: table,
            Item: itemOf(touch),
            ConditionExpression: "attribute_not_exists(clickId)",
          }),
        ),
      );
      if (created) return { touch, created };
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: { clickId: touch.clickId }, ConsistentRead: true }),
      );
      return { touch: Item ? toTouch(Item) : touch, created: false };
    },
    delete: (clickIds) =>
      deleteAll(
        doc,
        table,
        clickIds.map((clickId) => ({ clickId })),
      ),
    async get(clickId) {
      // A referrer's click id is the phone's to say: one that names a sighting is no touch.
      if (!isTouchKey(clickId)) return undefined;
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: { clickId } }));
      return Item ? toTouch(Item) : undefined;
    },
    byMaid: (maid, window) => inWindow("byMaid", maidKey(window.appId, maid), window),
    async byIp(ip, window) {
      const key = ipMatchKey(ip);
      if (!key) return [];
      const shards = await Promise.all(
        IP_SHARDS.all(ipKey(window.appId, key)).map((sharded) => inWindow("byIp", sharded, window)),
      );
      // Newest first, as one query of the index would give them (its sort key's byte order).
      return shards
        .flat()
        .map((touch) => ({ touch, key: touchSortKey(touch) }))
        .sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0))
        .map(({ touch }) => touch);
    },
    recordSightings(sightings) {
      const items = new Map<string, Record<string, unknown>>();
      for (const sighting of sightings) {
        const item = sightingItem(sighting);
        // One batch may not name a key twice; the same install in the same hour is one item.
        if (item) items.set(String(item.clickId), item);
      }
      return writeAll(
        doc,
        table,
        [...items.values()].map((Item) => ({ PutRequest: { Item } })),
      );
    },
    installsAt: (ip, window, cap) => countInstallsAt(doc, table, ip, window, cap),
    async claimClick(claim) {
      const request = {
        holder: installTag(claim.appId, claim.serviceId),
        device: claim.device,
        own: claim.own,
      };
      const clickId = `${CLAIM_KEY_PREFIX}${claim.appId}#${claim.clickId}`;
      const expiresTtl = touchExpirySeconds(claim.touchTime);
      // Each write is conditional on the claim it read, the first on there being none (most
      // clicks are claimed once: one request). One another install changed in between is read
      // again and decided anew; past the attempts, a claim the last read shows needs no write
      // stands, else the click is left to the others, which a probabilistic match passes and a
      // device's own click is credited all the same.
      let stored: StoredClaim | undefined;
      for (let attempt = 1; ; attempt++) {
        const step = claimStep(stored, request);
        const next = step.next;
        if (!next) return step.holder;
        if (attempt > CLAIM_ATTEMPTS) return "another_install";
        const written = await conditionHolds(() =>
          doc.send(
            new PutCommand({
              TableName: table,
              Item: claimItem(clickId, next, expiresTtl),
              ...unchangedSince(stored),
            }),
          ),
        );
        if (written) return step.holder;
        stored = await readClaim(clickId);
      }
    },
    async releaseClaim(claim) {
      const clickId = `${CLAIM_KEY_PREFIX}${claim.appId}#${claim.clickId}`;
      for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
        const stored = await readClaim(clickId);
        if (stored === undefined) return;
        const next = releasedClaim(stored, installTag(claim.appId, claim.serviceId));
        // Another install's claim on the click stays.
        if (next === stored) return;
        const condition = unchangedSince(stored);
        const written = await conditionHolds(() =>
          next
            ? doc.send(
                new PutCommand({
                  TableName: table,
                  Item: claimItem(clickId, next, touchExpirySeconds(claim.touchTime)),
                  ...condition,
                }),
              )
            : doc.send(new DeleteCommand({ TableName: table, Key: { clickId }, ...condition })),
        );
        if (written) return;
      }
      // Failed, so that the purge tries again rather than count the install's traces gone.
      throw new Error(
        `The claim on click ${claim.clickId} changed at each of ${CLAIM_ATTEMPTS} tries`,
      );
    },
    async reap(cutoff) {
      const expired = await expiredKeys(doc, table, "clickId", cutoff);
      await deleteAll(doc, table, expired);
      return expired.length;
    },
  };
};

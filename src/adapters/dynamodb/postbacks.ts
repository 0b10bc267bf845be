/**
 * Postbacks on DynamoDB: apps' configurations (one item each, and one of the app's settings,
 * found by the by-app index), the outbox (one item per send, added only where none is, then
 * claimed and settled attempt by attempt under conditions), and the delivery log (one item per
 * attempt, and a few per app, day and configuration counting attempts by verdict, an attempt's
 * record and its count written in one transaction, which dynalite lacks: the embedded runtime
 * keeps a log of its own, ../local-delivery-log). Outbox and log items expire by DynamoDB's TTL
 * on AWS and by `reap` on the embedded runtime.
 */
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { DAY_MS } from "../../domain/time.ts";
import {
  type AppPostbackConfigs,
  DEFAULT_POSTBACK_SETTINGS,
  DELIVERY_LOG_DAYS,
  type DeliveryCounts,
  type DeliveryLog,
  type DeliveryLogEntry,
  LOG_VERDICTS,
  OUTBOX_DAYS,
  OUTBOX_STATES,
  type OutboxRow,
  type OutboxStore,
  type PostbackConfigStore,
  type PostbackSettings,
  type StoredPartnerConfig,
  type StoredWebhookConfig,
} from "../../ports/postbacks.ts";
import { conditionHolds, unlessConditionFails } from "./conditional.ts";
import { deleteAll, epochSeconds, expiredKeys } from "./expiry.ts";
import { pageCursor } from "./page-cursor.ts";
import { queryIndex } from "./query-index.ts";
import { indexOf } from "./table-definitions.ts";

/** The log's records of those attempts recorded already, by their key, each as stored. */
const recordedEntries = async (
  doc: DynamoDBDocumentClient,
  table: string,
  keys: readonly string[],
): Promise<Map<string, { readonly entry: DeliveryLogEntry; readonly body: string }>> => {
  const found = new Map<string, { entry: DeliveryLogEntry; body: string }>();
  for (let start = 0; start < keys.length; start += 100) {
    let pending: BatchGetCommandOutput["UnprocessedKeys"] | undefined = {
      [table]: {
        Keys: keys.slice(start, start + 100).map((logKey) => ({ logKey })),
        ProjectionExpression: "logKey, body",
        ConsistentRead: true,
      },
    };
    for (let attempt = 0; pending?.[table]?.Keys?.length; attempt++) {
      if (attempt > 8) throw new Error(`DynamoDB kept refusing reads on ${table}`);
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 10));
      const answer: BatchGetCommandOutput = await doc.send(
        new BatchGetCommand({ RequestItems: pending }),
      );
      for (const item of answer.Responses?.[table] ?? []) {
        found.set(String(item.logKey), { entry: entryOf(item), body: String(item.body) });
      }
      pending = answer.UnprocessedKeys;
    }
  }
  return found;
};

/** An install's key in the by-install indexes. */
const installKeyOf = (appId: string, serviceId: string) => `${appId}#${serviceId}`;

/**
 * Deletes an install's items one by one: an install has few sends, and its deletion is the
 * purge's, which is granted single deletes only.
 */
const deleteEach = async (
  doc: DynamoDBDocumentClient,
  table: string,
  keys: readonly Record<string, string>[],
): Promise<void> => {
  for (const Key of keys) await doc.send(new DeleteCommand({ TableName: table, Key }));
};

/** The primary keys of an install's items, by the table's by-install index. */
const keysOfInstall = async (
  doc: DynamoDBDocumentClient,
  table: string,
  key: string,
  installKey: string,
): Promise<Record<string, string>[]> => {
  const found: Record<string, string>[] = [];
  const pages = paginateQuery(
    { client: doc },
    {
      TableName: table,
      IndexName: "byInstall",
      KeyConditionExpression: "installKey = :install",
      ProjectionExpression: "#key",
      ExpressionAttributeNames: { "#key": key },
      ExpressionAttributeValues: { ":install": installKey },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) found.push({ [key]: String(item[key]) });
  }
  return found;
};

// ---------------------------------------------------------------------------------------------
// Configurations

const CONFIGS_BY_APP = indexOf("postbackConfigs", "byApp");

const partnerBody = z.object({
  id: z.string(),
  appId: z.string(),
  partner: z.string(),
  template: z.unknown(),
  mediaSources: z.array(z.string()),
  values: z.record(z.string(), z.string()),
  sealedValues: z.record(z.string(), z.string()),
  secretValues: z.array(z.string()),
  installs: z.enum(["won", "all"]),
  events: z.record(z.string(), z.object({ name: z.string(), revenue: z.boolean() })),
  eventWindowDays: z.number(),
  tcfVendorId: z.number().nullable(),
  enabled: z.boolean(),
  updatedAt: z.string(),
});

const webhookBody = z.object({
  id: z.string(),
  appId: z.string(),
  url: z.string(),
  sealedSecret: z.string(),
  previous: z.object({ sealedSecret: z.string(), until: z.string() }).nullable(),
  enabled: z.boolean(),
  updatedAt: z.string(),
});

const settingsBody = z.object({ shareDeviceDataWithoutConsent: z.boolean() });

/** Every item: its keys, its kind, and its body as JSON text (keys from outside stay keys). */
const configItem = z.object({
  configKey: z.string(),
  appId: z.string(),
  kind: z.enum(["partner", "webhook", "settings"]),
  body: z.string(),
});

const configKey = (appId: string, kind: "partner" | "webhook", id: string) =>
  `${appId}#${kind}#${id}`;
const settingsKey = (appId: string) => `${appId}#settings`;

const partnerOf = (item: Record<string, unknown>): StoredPartnerConfig =>
  partnerBody.parse(JSON.parse(configItem.parse(item).body)) as StoredPartnerConfig;
const webhookOf = (item: Record<string, unknown>): StoredWebhookConfig =>
  webhookBody.parse(JSON.parse(configItem.parse(item).body));

export const createPostbackConfigStore = (
  doc: DynamoDBDocumentClient,
  table: string,
): PostbackConfigStore => {
  const getItem = async (key: string) =>
    (await doc.send(new GetCommand({ TableName: table, Key: { configKey: key } }))).Item;
  const put = (appId: string, key: string, kind: string, body: unknown) =>
    doc.send(
      new PutCommand({
        TableName: table,
        Item: { configKey: key, appId, kind, body: JSON.stringify(body) },
      }),
    );
  return {
    async listByApp(appId) {
      const items = await queryIndex(
        doc,
        { table, index: CONFIGS_BY_APP.name, key: CONFIGS_BY_APP.partitionKey, value: appId },
        (item) => ({ item, kind: configItem.parse(item).kind }),
      );
      const found: {
        partners: StoredPartnerConfig[];
        webhooks: StoredWebhookConfig[];
        settings: PostbackSettings;
      } = { partners: [], webhooks: [], settings: DEFAULT_POSTBACK_SETTINGS };
      for (const { item, kind } of items) {
        if (kind === "partner") found.partners.push(partnerOf(item));
        else if (kind === "webhook") found.webhooks.push(webhookOf(item));
        else found.settings = settingsBody.parse(JSON.parse(configItem.parse(item).body));
      }
      return found satisfies AppPostbackConfigs;
    },
    async getPartner(appId, id) {
      const item = await getItem(configKey(appId, "partner", id));
      return item ? partnerOf(item) : undefined;
    },
    async getWebhook(appId, id) {
      const item = await getItem(configKey(appId, "webhook", id));
      return item ? webhookOf(item) : undefined;
    },
    async putPartner(config) {
      await put(config.appId, configKey(config.appId, "partner", config.id), "partner", config);
    },
    async putWebhook(config) {
      await put(config.appId, configKey(config.appId, "webhook", config.id), "webhook", config);
    },
    async delete(appId, target, id) {
      const { Attributes } = await doc.send(
        new DeleteCommand({
          TableName: table,
          Key: { configKey: configKey(appId, target, id) },
          ReturnValues: "ALL_OLD",
        }),
      );
      return Attributes !== undefined;
    },
    async putSettings(appId, settings) {
      await put(appId, settingsKey(appId), "settings", settings);
    },
  };
};

// ---------------------------------------------------------------------------------------------
// The outbox

const nullableText = z.string().nullable().default(null);

const subjectBody = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("install"),
    serviceId: z.string(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
  }),
  z.object({
    kind: z.literal("event"),
    serviceId: z.string(),
    eventId: z.string(),
    name: z.string(),
    time: z.string(),
    revenue: z
      .object({ amount: z.number(), currency: z.string(), usd: z.number().nullable() })
      .nullable(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    customerUserId: z.string().nullable(),
    anonymous: z.boolean().optional(),
  }),
]);

const outboxItem = z.object({
  sendId: z.string(),
  appId: z.string(),
  configId: z.string(),
  target: z.enum(["partner", "webhook"]),
  subject: z.string().transform((text) => subjectBody.parse(JSON.parse(text))),
  state: z.enum(OUTBOX_STATES),
  attempts: z.number().int(),
  nextAttemptAt: nullableText,
  note: nullableText,
  claimToken: nullableText,
  claimedUntil: nullableText,
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** Its TTL and install key are no field of a row, and zod's object leaves them out. */
const toRow = (item: Record<string, unknown>): OutboxRow => outboxItem.parse(item);

/** Null fields are left out of the item: the store reads an absent one as null. */
const outboxItemOf = (row: OutboxRow): Record<string, unknown> => {
  const item: Record<string, unknown> = {
    ...row,
    subject: JSON.stringify(row.subject),
    installKey: installKeyOf(row.appId, row.subject.serviceId),
    expiresTtl: epochSeconds(Date.parse(row.createdAt) + OUTBOX_DAYS * DAY_MS),
  };
  for (const [key, value] of Object.entries(item)) if (value === null) delete item[key];
  return item;
};

export const createOutboxStore = (doc: DynamoDBDocumentClient, table: string): OutboxStore => {
  const get = async (sendId: string) => {
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: { sendId }, ConsistentRead: true }),
    );
    return Item ? toRow(Item) : undefined;
  };
  return {
    add: (row) =>
      conditionHolds(() =>
        doc.send(
          new PutCommand({
            TableName: table,
            Item: outboxItemOf(row),
            ConditionExpression: "attribute_not_exists(sendId)",
          }),
        ),
      ),
    get,
    async claim(sendId, claim) {
      // Another holder's claim stands until it ends, unless the queue says its holder is gone.
      const unclaimed = claim.takeOver
        ? ""
        : " AND (attribute_not_exists(claimedUntil) OR claimedUntil < :now)";
      const answer = await unlessConditionFails(() =>
        doc.send(
          new UpdateCommand({
            TableName: table,
            Key: { sendId },
            UpdateExpression: "SET claimToken = :token, claimedUntil = :until, updatedAt = :now",
            ConditionExpression: `attempts = :done AND (#state = :queued OR #state = :retrying)${unclaimed}`,
            ExpressionAttributeNames: { "#state": "state" },
            ExpressionAttributeValues: {
              ":token": claim.token,
              ":until": claim.until,
              ":now": claim.now,
              ":done": claim.attempt - 1,
              ":queued": "queued",
              ":retrying": "retrying",
            },
            ReturnValues: "ALL_NEW",
          }),
        ),
      );
      return answer?.Attributes ? toRow(answer.Attributes) : undefined;
    },
    settle(sendId, token, settlement) {
      const set = ["attempts = :attempt", "#state = :state", "updatedAt = :at"];
      const remove = ["claimToken", "claimedUntil"];
      const values: Record<string, unknown> = {
        ":attempt": settlement.attempt,
        ":state": settlement.state,
        ":at": settlement.at,
        ":token": token,
      };
      for (const [field, value] of [
        ["nextAttemptAt", settlement.nextAttemptAt],
        ["note", settlement.note],
      ] as const) {
        if (value === null) remove.push(field);
        else {
          set.push(`${field} = :${field}`);
          values[`:${field}`] = value;
        }
      }
      if (settlement.subject) {
        set.push("subject = :subject");
        values[":subject"] = JSON.stringify(settlement.subject);
      }
      return conditionHolds(() =>
        doc.send(
          new UpdateCommand({
            TableName: table,
            Key: { sendId },
            UpdateExpression: `SET ${set.join(", ")} REMOVE ${remove.join(", ")}`,
            ConditionExpression: "claimToken = :token",
            ExpressionAttributeNames: { "#state": "state" },
            ExpressionAttributeValues: values,
          }),
        ),
      );
    },
    skip(sendId, note, at, subject) {
      // A row that is gone fails the condition too: nothing is written back.
      return conditionHolds(() =>
        doc.send(
          new UpdateCommand({
            TableName: table,
            Key: { sendId },
            UpdateExpression: `SET #state = :skipped, note = :note, updatedAt = :at${subject ? ", subject = :subject" : ""} REMOVE claimToken, claimedUntil, nextAttemptAt`,
            ConditionExpression: "#state = :queued OR #state = :retrying",
            ExpressionAttributeNames: { "#state": "state" },
            ExpressionAttributeValues: {
              ":skipped": "skipped",
              ":note": note,
              ":at": at,
              ":queued": "queued",
              ":retrying": "retrying",
              ...(subject ? { ":subject": JSON.stringify(subject) } : {}),
            },
          }),
        ),
      );
    },
    async reap(now) {
      const expired = await expiredKeys(doc, table, "sendId", now);
      await deleteAll(doc, table, expired);
      return expired.length;
    },
    async purgeInstall(appId, serviceId) {
      const keys = await keysOfInstall(doc, table, "sendId", installKeyOf(appId, serviceId));
      await deleteEach(doc, table, keys);
      return keys.length;
    },
  };
};

// ---------------------------------------------------------------------------------------------
// The delivery log

const LOG_BY_APP = indexOf("deliveryLog", "byApp");
/** Counts' sort keys begin so: after every time (ISO 8601 begins with a digit). */
const COUNT_PREFIX = "count#";

const entryBody = z.object({
  appId: z.string(),
  sendId: z.string(),
  configId: z.string(),
  target: z.enum(["partner", "webhook"]),
  partner: z.string(),
  subject: z.object({
    kind: z.enum(["install", "event"]),
    serviceId: z.string(),
    eventId: z.string().nullable(),
  }),
  time: z.string(),
  url: z.string(),
  method: z.string(),
  status: z.number().nullable(),
  answer: z.string().nullable(),
  error: z.string().nullable(),
  attempt: z.number(),
  retry: z.boolean(),
  verdict: z.enum(LOG_VERDICTS),
  final: z.boolean(),
  reason: z.string().nullable(),
});

const entryOf = (item: Record<string, unknown>): DeliveryLogEntry =>
  entryBody.parse(JSON.parse(z.object({ body: z.string() }).parse(item).body));

/**
 * Items each app's day of one configuration is counted over. Every attempt's transaction
 * updates its configuration's day count, and two transactions on one item at once conflict:
 * with the worker's instances recording a burst of one partner's sends together, each
 * transaction takes one of these at random, and a read adds them up.
 */
const COUNT_SHARDS = 8;

const countItem = z.object({
  logSort: z.string(),
  day: z.string(),
  configId: z.string(),
  partner: z.string(),
  delivered: z.number().default(0),
  retry: z.number().default(0),
  failed: z.number().default(0),
  skipped: z.number().default(0),
});

/** The counts of each day, target and configuration, their shards added up. */
const sumShards = (items: readonly z.output<typeof countItem>[]): DeliveryCounts[] => {
  const sums = new Map<string, DeliveryCounts>();
  for (const { logSort, ...item } of items) {
    const key = logSort.slice(0, logSort.lastIndexOf("#"));
    const sum = sums.get(key);
    sums.set(
      key,
      sum
        ? {
            ...sum,
            delivered: sum.delivered + item.delivered,
            retry: sum.retry + item.retry,
            failed: sum.failed + item.failed,
            skipped: sum.skipped + item.skipped,
          }
        : item,
    );
  }
  return [...sums.values()];
};

/** A key attribute's bound in DynamoDB (a sort key's; a partition key may be longer). */
const KEY_MAX_BYTES = 1024;

/**
 * A page cursor is the last item's keys; the app's id comes from the caller, not the cursor.
 * Only the keys of an attempt's item pass, as logItemOf makes them: its `logSort` ends with its
 * `logKey` and sorts below the counts, so it is a place within the page's query (DynamoDB
 * refuses a start key outside the key condition, or an empty key, with an error of its own).
 */
const CURSOR = pageCursor(
  z
    .object({
      logKey: z.string().min(1).max(KEY_MAX_BYTES),
      logSort: z.string().min(1).max(KEY_MAX_BYTES),
    })
    .refine(
      ({ logKey, logSort }) =>
        logSort < COUNT_PREFIX &&
        logSort.endsWith(`#${logKey}`) &&
        logSort.isWellFormed() &&
        Buffer.byteLength(logSort, "utf8") <= KEY_MAX_BYTES,
    ),
  ["logKey", "logSort"],
);

const dayOf = (iso: string) => iso.slice(0, 10);

/** What an attempt is counted under, but for the shard: its day, target and configuration. */
const countSortOf = (entry: DeliveryLogEntry) =>
  `${dayOf(entry.time)}#${entry.target}#${entry.configId}`;

/** An attempt's item: its record, found by app (newest first) and by install. */
const logItemOf = (entry: DeliveryLogEntry) => {
  const logKey = `${entry.sendId}#${entry.attempt}`;
  return {
    logKey,
    appId: entry.appId,
    logSort: `${entry.time}#${logKey}`,
    installKey: installKeyOf(entry.appId, entry.subject.serviceId),
    body: JSON.stringify(entry),
    expiresTtl: epochSeconds(Date.parse(entry.time) + DELIVERY_LOG_DAYS * DAY_MS),
  };
};

/** Attempts recorded in one transaction: each a record and up to two days' counts, of 100. */
const ATTEMPTS_PER_TRANSACTION = 33;
/** Transactions tried for one set of attempts before the append fails. */
const TRANSACTION_TRIES = 8;
/**
 * Why a transaction was cancelled that another try may get past: an attempt recorded by
 * another writer since it was read (read again, its verdict is the one to take off), another
 * transaction on a shared item (a day's counts, which every attempt of a configuration
 * changes), or throttling.
 */
const TRIED_AGAIN = new Set(["ConditionalCheckFailed", "TransactionConflict", "ThrottlingError"]);

/**
 * The writes of a set of attempts, as one transaction: each record, put only over the record it
 * was read as (none, or the same body), and each day's counts changed, one update per app, day
 * and configuration: a new attempt's verdict added, and a replaced one's earlier verdict taken
 * off as its new one is added (a time-out recorded, then the same attempt delivered once taken
 * over, counts as delivered only).
 */
const attemptWrites = (
  table: string,
  items: ReadonlyMap<string, DeliveryLogEntry>,
  recorded: Awaited<ReturnType<typeof recordedEntries>>,
) => {
  const writes: NonNullable<TransactWriteCommandInput["TransactItems"]> = [];
  const counts = new Map<string, { entry: DeliveryLogEntry; verdicts: Map<string, number> }>();
  // One of the counts' shards for the whole transaction: another try takes another at random.
  const shard = Math.floor(Math.random() * COUNT_SHARDS);
  const count = (entry: DeliveryLogEntry, change: number) => {
    // A partner and a webhook of one app may share an id: each is counted apart.
    const key = `${COUNT_PREFIX}${entry.appId}#${countSortOf(entry)}#${shard}`;
    const counted = counts.get(key) ?? { entry, verdicts: new Map<string, number>() };
    counted.verdicts.set(entry.verdict, (counted.verdicts.get(entry.verdict) ?? 0) + change);
    counts.set(key, counted);
  };
  for (const [logKey, entry] of items) {
    const earlier = recorded.get(logKey);
    if (earlier) count(earlier.entry, -1);
    count(entry, 1);
    const item = logItemOf(entry);
    // An update that sets every attribute, as a put would (the write grant's), only over the
    // record as read: none, or the same body.
    writes.push({
      Update: {
        TableName: table,
        Key: { logKey },
        UpdateExpression:
          "SET appId = :app, logSort = :sort, installKey = :install, body = :body, expiresTtl = :expires",
        ConditionExpression: earlier ? "body = :earlier" : "attribute_not_exists(logKey)",
        ExpressionAttributeValues: {
          ":app": item.appId,
          ":sort": item.logSort,
          ":install": item.installKey,
          ":body": item.body,
          ":expires": item.expiresTtl,
          ...(earlier ? { ":earlier": earlier.body } : {}),
        },
      },
    });
  }
  for (const [logKey, { entry, verdicts }] of counts) {
    const day = dayOf(entry.time);
    const added = [...verdicts.keys()].filter((verdict) => verdicts.get(verdict) !== 0);
    // Recorded again with the verdict it had: nothing to change.
    if (added.length === 0) continue;
    writes.push({
      Update: {
        TableName: table,
        Key: { logKey },
        UpdateExpression: `SET appId = :app, logSort = :sort, #day = :day, configId = :config, partner = :partner, expiresTtl = :expires ADD ${added.map((_, i) => `#v${i} :v${i}`).join(", ")}`,
        ExpressionAttributeNames: {
          "#day": "day",
          ...Object.fromEntries(added.map((verdict, i) => [`#v${i}`, verdict])),
        },
        ExpressionAttributeValues: {
          ":app": entry.appId,
          ":sort": `${COUNT_PREFIX}${countSortOf(entry)}#${shard}`,
          ":day": day,
          ":config": entry.configId,
          ":partner": entry.partner,
          ":expires": epochSeconds(Date.parse(day) + (DELIVERY_LOG_DAYS + 1) * DAY_MS),
          ...Object.fromEntries(added.map((verdict, i) => [`:v${i}`, verdicts.get(verdict)])),
        },
      },
    });
  }
  return writes;
};

/**
 * Records a set of attempts with their counts in one transaction, so that a record is never
 * kept without its count, nor a count without its record: a write that fails leaves both as
 * they were. Which are recorded already (their worker stopped before it was done, and the
 * attempt is recorded again) is read first, and each record is written only over what was
 * read: two writers of one attempt (a delivery taken over) cannot both count it as new, the
 * second reading the first's record and trying again.
 */
const recordTogether = async (
  doc: DynamoDBDocumentClient,
  table: string,
  items: ReadonlyMap<string, DeliveryLogEntry>,
): Promise<void> => {
  for (let tries = 1; ; tries += 1) {
    const recorded = await recordedEntries(doc, table, [...items.keys()]);
    try {
      await doc.send(
        new TransactWriteCommand({ TransactItems: attemptWrites(table, items, recorded) }),
      );
      return;
    } catch (error) {
      const reasons =
        error instanceof TransactionCanceledException
          ? (error.CancellationReasons ?? []).map((reason) => reason.Code ?? "None")
          : [];
      const again =
        reasons.some((code) => TRIED_AGAIN.has(code)) &&
        reasons.every((code) => code === "None" || TRIED_AGAIN.has(code));
      if (!again || tries === TRANSACTION_TRIES) throw error;
      // Writers of one configuration's attempts meet on its day's counts: apart at random.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** tries * 10));
    }
  }
};

/** Records a group of attempts, one record per attempt: the last given stands. */
const recordAttempts = async (
  doc: DynamoDBDocumentClient,
  table: string,
  entries: readonly DeliveryLogEntry[],
): Promise<void> => {
  const items = [...new Map(entries.map((entry) => [logItemOf(entry).logKey, entry]))];
  // One set after another: sets written at once would meet on the same days' counts.
  for (let start = 0; start < items.length; start += ATTEMPTS_PER_TRANSACTION) {
    await recordTogether(doc, table, new Map(items.slice(start, start + ATTEMPTS_PER_TRANSACTION)));
  }
};

/** How long the first attempt of a group waits for others to be written with it. */
const LOG_GATHER_MS = 25;

/**
 * The delivery log. Attempts are written in groups (a group commit): those recorded within
 * LOG_GATHER_MS of the first, and those recorded while a group is being written, go together.
 * Under a burst of postbacks a few requests record dozens of attempts, where each alone took a
 * conditional put and an update. Each `append` resolves once its own attempt is written.
 */
export const createDeliveryLog = (doc: DynamoDBDocumentClient, table: string): DeliveryLog => {
  let waiting: Array<{
    entry: DeliveryLogEntry;
    resolve: () => void;
    reject: (error: unknown) => void;
  }> = [];
  let writing = false;
  let gathering = false;
  const writeWaiting = () => {
    if (writing || gathering || waiting.length === 0) return;
    const group = waiting;
    waiting = [];
    writing = true;
    recordAttempts(
      doc,
      table,
      group.map((one) => one.entry),
    )
      .then(
        () => {
          for (const one of group) one.resolve();
        },
        (error: unknown) => {
          for (const one of group) one.reject(error);
        },
      )
      .finally(() => {
        writing = false;
        writeWaiting();
      });
  };
  return {
    append: (entry) =>
      new Promise<void>((resolve, reject) => {
        waiting.push({ entry, resolve, reject });
        if (writing || gathering) return;
        gathering = true;
        setTimeout(() => {
          gathering = false;
          writeWaiting();
        }, LOG_GATHER_MS);
      }),
    async listByApp(appId, page) {
      const after = page.after === undefined ? undefined : CURSOR.decode(page.after);
      const { Items, LastEvaluatedKey } = await doc.send(
        new QueryCommand({
          TableName: table,
          IndexName: LOG_BY_APP.name,
          KeyConditionExpression: "#app = :app AND #sort < :counts",
          ExpressionAttributeNames: {
            "#app": LOG_BY_APP.partitionKey,
            "#sort": LOG_BY_APP.sortKey,
          },
          ExpressionAttributeValues: { ":app": appId, ":counts": COUNT_PREFIX },
          ScanIndexForward: false,
          Limit: page.limit + 1,
          ExclusiveStartKey: after ? { ...after, appId } : undefined,
        }),
      );
      const { items, next } = CURSOR.page(Items, LastEvaluatedKey, page.limit);
      return { entries: items.map(entryOf), next };
    },
    async counts(appId, since) {
      const found: z.output<typeof countItem>[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const {
          Items,
          LastEvaluatedKey,
        }: { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> } =
          await doc.send(
            new QueryCommand({
              TableName: table,
              IndexName: LOG_BY_APP.name,
              KeyConditionExpression: "#app = :app AND #sort BETWEEN :from AND :to",
              ExpressionAttributeNames: {
                "#app": LOG_BY_APP.partitionKey,
                "#sort": LOG_BY_APP.sortKey,
              },
              ExpressionAttributeValues: {
                ":app": appId,
                ":from": `${COUNT_PREFIX}${dayOf(since.toISOString())}`,
                ":to": `${COUNT_PREFIX}~`,
              },
              ExclusiveStartKey: start,
            }),
          );
        for (const item of Items ?? []) found.push(countItem.parse(item));
        start = LastEvaluatedKey;
      } while (start);
      return sumShards(found);
    },
    async reap(now) {
      const expired = await expiredKeys(doc, table, "logKey", now);
      await deleteAll(doc, table, expired);
      return expired.length;
    },
    async purgeInstall(appId, serviceId) {
      const keys = await keysOfInstall(doc, table, "logKey", installKeyOf(appId, serviceId));
      await deleteEach(doc, table, keys);
      return keys.length;
    },
  };
};

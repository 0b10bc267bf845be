/**
 * The dashboard's users and sessions on DynamoDB (the same code against AWS and the embedded
 * server). A session item carries DynamoDB's TTL attribute; reads also check its expiry, as the
 * TTL reaps only eventually and the embedded server not at all. Sign-ins awaiting a TOTP code
 * are kept in the sessions table too, under keys no session has.
 *
 * A user's `sessionGeneration` is written only when the user is made and by
 * `renewSessionGeneration`, each a write of that attribute alone, and its apps by `grantApp` and
 * `revokeApp`: `save` updates the secrets alone in place, so a record read before a renewal or a
 * revoke cannot put the old generation or apps back.
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { ConflictError, NotFoundError } from "../../domain/errors.ts";
import type { SessionStore, User, UserStore } from "../../ports/users.ts";
import { conditionHolds, putWhen } from "./conditional.ts";
import { deleteAll, expiredKeys } from "./expiry.ts";
import { scanAll } from "./query-index.ts";

const userItem = z.object({
  email: z.string(),
  admin: z.boolean(),
  viewer: z.boolean().optional(),
  appIds: z.array(z.string()),
  createdAt: z.string(),
  passwordHash: z.string().optional(),
  totpSecret: z.string().optional(),
  sessionGeneration: z.string(),
});

/** The attribute an admin's record bears while they remove another (`removeByAdmin`). */
const REMOVAL_MARK = "removingSince";
/** How long a removal's mark counts: a removal is a few writes, not a minute. */
const REMOVAL_MARK_MS = 60_000;

/** What `save` writes: the secrets alone (the port's `save`). */
const SAVED = ["passwordHash", "totpSecret"] as const satisfies readonly (keyof User)[];

const sessionItem = z.object({
  sessionKey: z.string(),
  email: z.string(),
  csrfToken: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  generation: z.string(),
});

const pendingItem = z.object({
  email: z.string(),
  step: z.enum(["totp", "totp-setup"]),
  state: z.string(),
  failures: z.number(),
  expiresAt: z.string(),
  generation: z.string(),
});

/**
 * How a pending sign-in's key begins in the sessions table: a session's key is a hex hash, so
 * no cookie's token leads to one.
 */
const PENDING_PREFIX = "pending#";

export const createUserStore = (doc: DynamoDBDocumentClient, table: string): UserStore => ({
  async create(user) {
    const created = await putWhen(doc, table, { ...user }, "email", "absent");
    if (!created) throw new ConflictError(`A user ${user.email} already exists.`);
  },
  async get(email) {
    const { Item } = await doc.send(new GetCommand({ TableName: table, Key: { email } }));
    return Item ? userItem.parse(Item) : undefined;
  },
  async list() {
    const found = await scanAll(doc, table, (item) => userItem.parse(item));
    return found.sort((a, b) => a.email.localeCompare(b.email));
  },
  async grantApp(email, appId) {
    // Appended once: the condition keeps a second grant (or two at once) from adding it twice.
    const granted = await conditionHolds(() =>
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { email },
          UpdateExpression: "SET appIds = list_append(appIds, :added)",
          ConditionExpression: "attribute_exists(email) AND NOT contains(appIds, :appId)",
          ExpressionAttributeValues: { ":added": [appId], ":appId": appId },
        }),
      ),
    );
    if (!granted && !(await this.get(email))) throw new NotFoundError(`No user ${email}.`);
  },
  async revokeApp(email, appId) {
    // A list's element is removed by its index: the condition that the index still holds this
    // app keeps a concurrent grant or revoke from shifting another app out in its place, and a
    // failed condition reads the list again.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const user = await this.get(email);
      if (!user) throw new NotFoundError(`No user ${email}.`);
      // The last copy first: a record that lists the app twice keeps none (another index's
      // copy is taken at the next turn).
      const at = user.appIds.lastIndexOf(appId);
      if (at === -1) return;
      const removed = await conditionHolds(() =>
        doc.send(
          new UpdateCommand({
            TableName: table,
            Key: { email },
            UpdateExpression: `REMOVE appIds[${at}]`,
            ConditionExpression: `appIds[${at}] = :appId`,
            ExpressionAttributeValues: { ":appId": appId },
          }),
        ),
      );
      if (removed && !user.appIds.slice(0, at).includes(appId)) return;
    }
    throw new ConflictError(`The apps of ${email} kept changing; try again.`);
  },
  async save(user) {
    const set = SAVED.filter((name) => user[name] !== undefined);
    const removed = SAVED.filter((name) => user[name] === undefined);
    const saved = await conditionHolds(() =>
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { email: user.email },
          UpdateExpression: [
            ...(set.length > 0
              ? [`SET ${set.map((name) => `#${name} = :${name}`).join(", ")}`]
              : []),
            ...(removed.length > 0
              ? [`REMOVE ${removed.map((name) => `#${name}`).join(", ")}`]
              : []),
          ].join(" "),
          ConditionExpression: "attribute_exists(email)",
          ExpressionAttributeNames: Object.fromEntries(SAVED.map((name) => [`#${name}`, name])),
          ...(set.length > 0
            ? {
                ExpressionAttributeValues: Object.fromEntries(
                  set.map((name) => [`:${name}`, user[name]]),
                ),
              }
            : {}),
        }),
      ),
    );
    if (!saved) throw new NotFoundError(`No user ${user.email}.`);
  },
  async renewSessionGeneration(email, generation) {
    const renewed = await conditionHolds(() =>
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { email },
          UpdateExpression: "SET sessionGeneration = :generation",
          ConditionExpression: "attribute_exists(email)",
          ExpressionAttributeValues: { ":generation": generation },
        }),
      ),
    );
    if (!renewed) throw new NotFoundError(`No user ${email}.`);
  },
  async remove(email) {
    await doc.send(new DeleteCommand({ TableName: table, Key: { email } }));
  },
  async removeByAdmin(email, admin, now = new Date()) {
    // Without a transaction (the embedded tables have none): the admin asking marks their own
    // record, and the removal holds only while the record removed bears no such mark. Of two
    // admins removing each other at once, at least one finds the other marked: one removal
    // stands at most. A mark a stopped process left counts no more after a minute.
    const stale = new Date(now.getTime() - REMOVAL_MARK_MS).toISOString();
    const unmarked = "(attribute_not_exists(#removing) OR #removing < :stale)";
    const names = { "#removing": REMOVAL_MARK };
    const marked = await conditionHolds(() =>
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { email: admin },
          UpdateExpression: "SET #removing = :now",
          ConditionExpression: `#admin = :true AND ${unmarked}`,
          ExpressionAttributeNames: { ...names, "#admin": "admin" },
          ExpressionAttributeValues: { ":now": now.toISOString(), ":stale": stale, ":true": true },
        }),
      ),
    );
    if (!marked) {
      if (!(await this.get(admin))?.admin) return false;
      throw new ConflictError(`${admin} is removing another person; try again.`);
    }
    try {
      const removed = await conditionHolds(() =>
        doc.send(
          new DeleteCommand({
            TableName: table,
            Key: { email },
            ConditionExpression: `attribute_exists(email) AND ${unmarked}`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ":stale": stale },
          }),
        ),
      );
      if (removed) return true;
      if (!(await this.get(email))) throw new NotFoundError(`No user ${email}.`);
      throw new ConflictError(`${email} is removing another person at this moment; try again.`);
    } finally {
      await conditionHolds(() =>
        doc.send(
          new UpdateCommand({
            TableName: table,
            Key: { email: admin },
            UpdateExpression: "REMOVE #removing",
            ConditionExpression: "attribute_exists(email)",
            ExpressionAttributeNames: names,
          }),
        ),
      );
    }
  },
});

export const createSessionStore = (doc: DynamoDBDocumentClient, table: string): SessionStore => ({
  async put(session) {
    await doc.send(
      new PutCommand({
        TableName: table,
        Item: { ...session, expiresTtl: Math.ceil(Date.parse(session.expiresAt) / 1000) },
      }),
    );
  },
  async get(sessionKey, now = new Date()) {
    const { Item } = await doc.send(new GetCommand({ TableName: table, Key: { sessionKey } }));
    if (!Item) return undefined;
    const session = sessionItem.parse(Item);
    return Date.parse(session.expiresAt) > now.getTime() ? session : undefined;
  },
  async remove(sessionKey) {
    await doc.send(new DeleteCommand({ TableName: table, Key: { sessionKey } }));
  },
  async putPending({ challengeKey, ...pending }) {
    await doc.send(
      new PutCommand({
        TableName: table,
        Item: {
          ...pending,
          sessionKey: `${PENDING_PREFIX}${challengeKey}`,
          expiresTtl: Math.ceil(Date.parse(pending.expiresAt) / 1000),
        },
      }),
    );
  },
  async getPending(challengeKey, now = new Date()) {
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: { sessionKey: `${PENDING_PREFIX}${challengeKey}` } }),
    );
    if (!Item) return undefined;
    const pending = { challengeKey, ...pendingItem.parse(Item) };
    return Date.parse(pending.expiresAt) > now.getTime() ? pending : undefined;
  },
  async removePending(challengeKey) {
    await doc.send(
      new DeleteCommand({
        TableName: table,
        Key: { sessionKey: `${PENDING_PREFIX}${challengeKey}` },
      }),
    );
  },
  async reap(now) {
    // An expired session is never made live again: its key is a new sign-in's hash.
    const expired = await expiredKeys(doc, table, "sessionKey", now);
    await deleteAll(doc, table, expired);
    return expired.length;
  },
});

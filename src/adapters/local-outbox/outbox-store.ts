/**
 * The embedded runtime's outbox: what the DynamoDB table `outbox` is on AWS, kept in a LevelDB
 * database of its own (../local-disk/level.ts) rather than in the embedded DynamoDB. Each send is
 * added, read, claimed and settled: four requests through dynalite (the AWS SDK's marshalling,
 * HTTP to its thread), four reads and writes of one key here.
 *
 * Keys:
 *
 *     s␀<send id>                                   the row, as JSON
 *     i␀<app>␀<service id>␀<send id>                 the install's sends, for its deletion
 *     x␀<expiry, Unix seconds, 12 digits>␀<send id>  when the row is past its lifetime
 *
 * Writes of one row that depend on it (an add, a claim, a settling, a skip, a deletion) take
 * turns, so a claim is held by one holder at a time.
 */
import { DAY_MS } from "../../domain/time.ts";
import { OUTBOX_DAYS, type OutboxRow, type OutboxStore } from "../../ports/postbacks.ts";
import { keyPart, type LevelStore, openLevelStore, SEPARATOR } from "../local-disk/level.ts";

const rowKey = (sendId: string) => `s${SEPARATOR}${sendId}`;
const installPrefix = (appId: string, serviceId: string) =>
  `i${SEPARATOR}${keyPart(appId)}${SEPARATOR}${keyPart(serviceId)}${SEPARATOR}`;
const EXPIRY_PREFIX = `x${SEPARATOR}`;
/** DynamoDB's TTL attribute, in whole seconds. */
const epochSeconds = (ms: number) => Math.floor(ms / 1000);
const expiryPrefix = (seconds: number) =>
  `${EXPIRY_PREFIX}${String(Math.max(0, seconds)).padStart(12, "0")}`;

/** The keys a row is stored under: the row, its install's entry, and its expiry. */
const keysOf = (row: OutboxRow) => ({
  row: rowKey(row.sendId),
  install: `${installPrefix(row.appId, row.subject.serviceId)}${row.sendId}`,
  expiry: `${expiryPrefix(epochSeconds(Date.parse(row.createdAt) + OUTBOX_DAYS * DAY_MS))}${SEPARATOR}${row.sendId}`,
});

const isOpen = (row: OutboxRow) => row.state === "queued" || row.state === "retrying";

export interface LocalOutboxStore extends OutboxStore {
  close(): Promise<void>;
}

export const openLocalOutboxStore = async (dir: string): Promise<LocalOutboxStore> =>
  outboxIn(await openLevelStore(dir));

const outboxIn = (level: LevelStore): LocalOutboxStore => {
  const { db, inTurn } = level;
  const get = (sendId: string) => level.read<OutboxRow>(rowKey(sendId));
  const replace = (row: OutboxRow) => db.put(rowKey(row.sendId), JSON.stringify(row));

  /** Deletes a row with all its keys, in its turn, if it is still stored; whether it was. */
  const forget = (sendId: string) =>
    inTurn(sendId, async () => {
      const row = await get(sendId);
      if (!row) return false;
      await db.batch(Object.values(keysOf(row)).map((key) => ({ type: "del" as const, key })));
      return true;
    });

  /** Forgets each of the sends; how many there were. */
  const forgetAll = async (sendIds: readonly string[]) =>
    (await Promise.all(sendIds.map(forget))).filter(Boolean).length;

  return {
    add: (row) =>
      inTurn(row.sendId, async () => {
        if (await get(row.sendId)) return false;
        const keys = keysOf(row);
        await db.batch([
          { type: "put", key: keys.row, value: JSON.stringify(row) },
          { type: "put", key: keys.install, value: "" },
          { type: "put", key: keys.expiry, value: "" },
        ]);
        return true;
      }),

    get,

    claim: (sendId, claim) =>
      inTurn(sendId, async () => {
        const row = await get(sendId);
        if (!row || row.attempts !== claim.attempt - 1 || !isOpen(row)) return undefined;
        // Another holder's claim stands until it ends, unless the queue says its holder is gone.
        if (!claim.takeOver && row.claimedUntil !== null && row.claimedUntil >= claim.now) {
          return undefined;
        }
        const claimed: OutboxRow = {
          ...row,
          claimToken: claim.token,
          claimedUntil: claim.until,
          updatedAt: claim.now,
        };
        await replace(claimed);
        return claimed;
      }),

    settle: (sendId, token, settlement) =>
      inTurn(sendId, async () => {
        const row = await get(sendId);
        if (row?.claimToken !== token) return false;
        await replace({
          ...row,
          attempts: settlement.attempt,
          state: settlement.state,
          nextAttemptAt: settlement.nextAttemptAt,
          note: settlement.note,
          updatedAt: settlement.at,
          claimToken: null,
          claimedUntil: null,
          subject: settlement.subject ?? row.subject,
        });
        return true;
      }),

    skip: (sendId, note, at, subject) =>
      inTurn(sendId, async () => {
        const row = await get(sendId);
        if (!row || !isOpen(row)) return false;
        await replace({
          ...row,
          subject: subject ?? row.subject,
          state: "skipped",
          note,
          updatedAt: at,
          claimToken: null,
          claimedUntil: null,
          nextAttemptAt: null,
        });
        return true;
      }),

    async reap(now) {
      const sendIds: string[] = [];
      for await (const key of db.keys({
        gt: EXPIRY_PREFIX,
        lt: expiryPrefix(epochSeconds(now.getTime())),
      })) {
        sendIds.push(key.slice(key.indexOf(SEPARATOR, EXPIRY_PREFIX.length) + 1));
      }
      return forgetAll(sendIds);
    },

    async purgeInstall(appId, serviceId) {
      const prefix = installPrefix(appId, serviceId);
      const sendIds: string[] = [];
      for await (const key of db.keys({ gte: prefix, lt: `${prefix}\uffff` })) {
        // A longer service id that begins with this one (and a NUL) has its own keys here.
        const sendId = key.slice(prefix.length);
        if (!sendId.includes(SEPARATOR)) sendIds.push(sendId);
      }
      return forgetAll(sendIds);
    },

    close: level.close,
  };
};

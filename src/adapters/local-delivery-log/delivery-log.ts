/**
 * The embedded runtime's delivery log: what the DynamoDB table `deliveryLog` is on AWS, kept in
 * a LevelDB database of its own (../local-disk/level.ts) rather than in the embedded DynamoDB.
 * Every postback attempt writes it; through dynalite each group of attempts cost the AWS SDK's
 * marshalling, HTTP to its thread and that thread's own work, here one batch of a few keys.
 *
 * Keys:
 *
 *     e␀<app>␀<time>␀<send id>␀<attempt>          the attempt, as JSON: an app's, newest last
 *     k␀<send id>␀<attempt>                        its `e` key, so that an attempt recorded again replaces it
 *     i␀<app>␀<service id>␀<send id>␀<attempt>     its `e` key, for the install's deletion
 *     c␀<app>␀<day>␀<configuration>                 the day's counts of the configuration's attempts
 *     x␀<expiry, Unix seconds, 12 digits>␀<key>     an `e` or `c` key past its lifetime then
 *
 * Attempts appended together are written in one batch, groups one after another, and purges
 * and reaping take their turn between groups: a count is read and written by one writer at a
 * time. A write resolves once LevelDB has handed it to the system, so a killed process loses
 * none.
 */
import { ValidationError } from "../../domain/errors.ts";
import { DAY_MS } from "../../domain/time.ts";
import {
  DELIVERY_LOG_DAYS,
  type DeliveryCounts,
  type DeliveryLog,
  type DeliveryLogEntry,
} from "../../ports/postbacks.ts";
import { keyPart, type LevelStore, openLevelStore, SEPARATOR } from "../local-disk/level.ts";

export interface LocalDeliveryLog extends DeliveryLog {
  close(): Promise<void>;
}

const S = SEPARATOR;
const appPrefix = (appId: string) => `e${S}${keyPart(appId)}${S}`;
const attemptPart = (entry: DeliveryLogEntry) => `${keyPart(entry.sendId)}${S}${entry.attempt}`;
const entryKey = (entry: DeliveryLogEntry) =>
  `${appPrefix(entry.appId)}${entry.time}${S}${attemptPart(entry)}`;
const replaceKey = (entry: DeliveryLogEntry) => `k${S}${attemptPart(entry)}`;
const installPrefix = (appId: string, serviceId: string) =>
  `i${S}${keyPart(appId)}${S}${keyPart(serviceId)}${S}`;
const installKey = (entry: DeliveryLogEntry) =>
  `${installPrefix(entry.appId, entry.subject.serviceId)}${attemptPart(entry)}`;
const countPrefix = (appId: string) => `c${S}${keyPart(appId)}${S}`;
const dayOf = (iso: string) => iso.slice(0, 10);
/** A partner and a webhook of one app may share an id: each is counted apart. */
const countKey = (entry: DeliveryLogEntry) =>
  `${countPrefix(entry.appId)}${dayOf(entry.time)}${S}${entry.target}${S}${keyPart(entry.configId)}`;

const EXPIRY_PREFIX = `x${S}`;
const epochSeconds = (ms: number) => Math.floor(ms / 1000);
const expiryPrefix = (seconds: number) =>
  `${EXPIRY_PREFIX}${String(Math.max(0, seconds)).padStart(12, "0")}`;
const expiryKey = (ms: number, key: string) => `${expiryPrefix(epochSeconds(ms))}${S}${key}`;
/** An attempt is kept 30 days from its time; a day's counts until that day's attempts go. */
const entryExpiry = (entry: DeliveryLogEntry) =>
  expiryKey(Date.parse(entry.time) + DELIVERY_LOG_DAYS * DAY_MS, entryKey(entry));
const countExpiry = (entry: DeliveryLogEntry) =>
  expiryKey(Date.parse(dayOf(entry.time)) + (DELIVERY_LOG_DAYS + 1) * DAY_MS, countKey(entry));

/** Where an attempt is stored: its record, and the keys leading to it (its day's counts apart). */
const keysOf = (entry: DeliveryLogEntry) => ({
  record: entryKey(entry),
  leading: [replaceKey(entry), installKey(entry), entryExpiry(entry)],
});
/** Every key of an attempt, for its deletion. */
const deletionsOf = (entry: DeliveryLogEntry) => {
  const { record, leading } = keysOf(entry);
  return [record, ...leading].map((key) => ({ type: "del" as const, key }));
};

// A page cursor is the last entry's key after its app's prefix; the app comes from the caller.
const encodeCursor = (key: string, appId: string) =>
  Buffer.from(key.slice(appPrefix(appId).length), "utf8").toString("base64url");
/**
 * What an entry's key holds after its app's prefix, as entryKey writes it: its time, its send id
 * (its own separators escaped) and its attempt. Only such a place is a cursor.
 */
const CURSOR_PLACE = new RegExp(
  `^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?Z${S}(?:[^${S}]|${S}\u0001)+${S}\\d{1,9}$`,
);
const decodeCursor = (cursor: string, appId: string) => {
  const rest = Buffer.from(cursor, "base64url").toString("utf8");
  if (!CURSOR_PLACE.test(rest) || Buffer.from(rest, "utf8").toString("base64url") !== cursor) {
    throw new ValidationError("cursor: must be the next_cursor of an earlier page");
  }
  return `${appPrefix(appId)}${rest}`;
};

interface Waiting {
  readonly entry: DeliveryLogEntry;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export const openLocalDeliveryLog = async (dir: string): Promise<LocalDeliveryLog> => {
  const level = await openLevelStore(dir);
  return deliveryLogIn(level);
};

const deliveryLogIn = ({ db, read, close }: LevelStore): LocalDeliveryLog => {
  /** Groups, purges and reaping, one after another. */
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const done = turn.then(work);
    turn = done.catch(() => undefined);
    return done;
  };
  /**
   * Writes a group: each attempt once (the last given), its verdict counted; an attempt recorded
   * before (its worker stopped before it was done) replaces its earlier record, whose verdict is
   * taken off its day's count as the new one is added.
   */
  const writeGroup = async (entries: readonly DeliveryLogEntry[]) => {
    const latest = new Map(entries.map((entry) => [replaceKey(entry), entry]));
    const operations: (
      | { type: "put"; key: string; value: string }
      | { type: "del"; key: string }
    )[] = [];
    const counts = new Map<string, DeliveryCounts>();
    const count = async (entry: DeliveryLogEntry, change: 1 | -1) => {
      const key = countKey(entry);
      const stored = counts.has(key) ? undefined : await read<DeliveryCounts>(key);
      const counted = counts.get(key) ??
        stored ?? {
          day: dayOf(entry.time),
          configId: entry.configId,
          partner: entry.partner,
          delivered: 0,
          retry: 0,
          failed: 0,
          skipped: 0,
        };
      if (!counts.has(key) && stored === undefined) {
        operations.push({ type: "put", key: countExpiry(entry), value: key });
      }
      counts.set(key, {
        ...counted,
        partner: change > 0 ? entry.partner : counted.partner,
        [entry.verdict]: Math.max(0, counted[entry.verdict] + change),
      });
    };
    for (const [replace, entry] of latest) {
      const before = db.getSync(replace);
      const earlier = before === undefined ? undefined : await read<DeliveryLogEntry>(before);
      if (earlier) {
        operations.push(...deletionsOf(earlier));
        await count(earlier, -1);
      }
      await count(entry, 1);
      // The record under its key, and each other key leading to it.
      const { record, leading } = keysOf(entry);
      operations.push({ type: "put", key: record, value: JSON.stringify(entry) });
      for (const key of leading) operations.push({ type: "put", key, value: record });
    }
    for (const [key, count] of counts) {
      operations.push({ type: "put", key, value: JSON.stringify(count) });
    }
    await db.batch(operations);
  };

  let waiting: Waiting[] = [];
  let scheduled = false;
  const writeWaiting = () => {
    scheduled = false;
    if (waiting.length === 0) return;
    const group = waiting;
    waiting = [];
    inTurn(() => writeGroup(group.map((one) => one.entry))).then(
      () => {
        for (const one of group) one.resolve();
      },
      (error: unknown) => {
        for (const one of group) one.reject(error);
      },
    );
  };

  /** Deletes attempts by their `e` keys, with the keys that lead to them; how many there were. */
  const forgetEntries = async (
    keys: readonly string[],
    belongs = (_: DeliveryLogEntry) => true,
  ) => {
    const operations: { type: "del"; key: string }[] = [];
    let forgotten = 0;
    for (const key of keys) {
      const entry = await read<DeliveryLogEntry>(key);
      if (!entry || !belongs(entry)) continue;
      forgotten += 1;
      operations.push(...deletionsOf(entry));
    }
    await db.batch(operations);
    return forgotten;
  };

  const valuesIn = async (range: { gte: string; lt: string }) => {
    const values: string[] = [];
    for await (const value of db.values(range)) values.push(value);
    return values;
  };

  return {
    // Attempts given in the same turn of the event loop go together, as one batch.
    append: (entry) =>
      new Promise<void>((resolve, reject) => {
        waiting.push({ entry, resolve, reject });
        if (scheduled) return;
        scheduled = true;
        setImmediate(writeWaiting);
      }),

    async listByApp(appId, page) {
      const prefix = appPrefix(appId);
      const entries: DeliveryLogEntry[] = [];
      let lastKey: string | undefined;
      let more = false;
      for await (const [key, value] of db.iterator({
        gt: prefix,
        lt: page.after === undefined ? `${prefix}\uffff` : decodeCursor(page.after, appId),
        reverse: true,
        limit: page.limit + 1,
      })) {
        if (entries.length === page.limit) {
          more = true;
          break;
        }
        entries.push(JSON.parse(value) as DeliveryLogEntry);
        lastKey = key;
      }
      return {
        entries,
        next: more && lastKey !== undefined ? encodeCursor(lastKey, appId) : null,
      };
    },

    async counts(appId, since) {
      const prefix = countPrefix(appId);
      const values = await valuesIn({
        gte: `${prefix}${dayOf(since.toISOString())}`,
        lt: `${prefix}\uffff`,
      });
      return values.map((value) => JSON.parse(value) as DeliveryCounts);
    },

    reap: (now) =>
      inTurn(async () => {
        const entries: string[] = [];
        const counts: { type: "del"; key: string }[] = [];
        for await (const [key, ref] of db.iterator({
          gte: EXPIRY_PREFIX,
          lt: expiryPrefix(epochSeconds(now.getTime())),
        })) {
          if (ref.startsWith("e")) entries.push(ref);
          else counts.push({ type: "del", key: ref }, { type: "del", key });
        }
        const forgotten = await forgetEntries(entries);
        await db.batch(counts);
        return forgotten + counts.length / 2;
      }),

    purgeInstall: (appId, serviceId) =>
      inTurn(async () => {
        const prefix = installPrefix(appId, serviceId);
        const keys = await valuesIn({ gte: prefix, lt: `${prefix}\uffff` });
        // A longer service id that begins with this one (and a NUL) has its own keys here.
        return forgetEntries(
          keys,
          (entry) => entry.appId === appId && entry.subject.serviceId === serviceId,
        );
      }),

    async close() {
      // Attempts given before the close are written first, not refused by a closed store.
      writeWaiting();
      await inTurn(async () => undefined);
      await close();
    },
  };
};

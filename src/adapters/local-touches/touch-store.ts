/**
 * The embedded runtime's touch store: what the DynamoDB table `touches` is on AWS, kept in a
 * LevelDB database of its own (classic-level, in this process) rather than in the embedded
 * DynamoDB. The link host writes every answered tap here from its click log, in batches of
 * hundreds; through dynalite each click cost a request marshalled by the AWS SDK, sent over
 * HTTP to its thread, checked and written there with an index entry apiece (most of the
 * service's CPU per click), where here a batch is one LevelDB write of a few keys a click.
 * It keeps to disk what it holds, so its memory is LevelDB's caches whatever the touches of the
 * last 30 days number, and it opens at once after a restart.
 *
 * Keys (the same lookups as the DynamoDB table's item and indexes, src/touches/lookup-keys.ts):
 *
 *     t␀<click id>                                   the touch, as JSON
 *     m␀<app>#<advertising id, lower case>␀<time>#<click id>   its click id
 *     i␀<app>#<IP match key>␀<time>#<click id>                its click id
 *     s␀<app>#<IP match key>␀<hour>#<install tag>             a sighting
 *     c␀<app>␀<click id>                             the click's claim (click-claims.ts), as JSON
 *     x␀<expiry, Unix seconds, 12 digits>␀<an item's first key>  the item's keys, as JSON
 *
 * A window is one range of an index's keys, read backwards: newest first. The lookup key's
 * own NUL characters (an advertising id is the sender's to say) are written as NUL then \x01,
 * so that one lookup key's range never takes another's entries: those of a longer key that
 * begins with it sort before the range's first time. A touch is written with all its keys in
 * one batch, without reading what its click id held: a click id stored again is written over,
 * and the lookup entries of its old version, left behind, are passed by (the touch they name no
 * longer has them) until `reap` deletes them with the old version's expiry key. `reap` deletes
 * what the expiry keys before its cutoff name. Writes take turns, so that a claim of a click id
 * (`putIfAbsent`, `claimClick`, which read first) is made once.
 *
 * A write resolves once LevelDB has handed it to the system, so a killed process loses none;
 * `put`, the click log's batches and a network report's, is synced too, as the click log's
 * groups are, so that a click the log counts as applied outlasts a power cut.
 */
import type { AddressSighting, SightingWindow } from "../../ports/address-crowds.ts";
import type { Touch, TouchStore, TouchWindow } from "../../ports/touches.ts";
import { claimStep, releasedClaim, type StoredClaim } from "../../touches/click-claims.ts";
import { ipMatchKey } from "../../touches/ip.ts";
import {
  installTag,
  maidMatchKey,
  sightingExpirySeconds,
  sightingHour,
  touchExpirySeconds,
  touchSortKey,
  windowEndKey,
} from "../../touches/lookup-keys.ts";
import { keyPart, type LevelDb, openLevelStore, SEPARATOR } from "../local-disk/level.ts";

export interface LocalTouchStore extends TouchStore {
  close(): Promise<void>;
}

/** A lookup key's NUL is written so that no lookup key's range reaches into another's. */
const escaped = keyPart;
const indexPrefix = (space: "m" | "i" | "s", key: string) =>
  `${space}${SEPARATOR}${escaped(key)}${SEPARATOR}`;

const TOUCH_PREFIX = `t${SEPARATOR}`;
const touchKey = (clickId: string) => `${TOUCH_PREFIX}${clickId}`;
const claimKey = (appId: string, clickId: string) =>
  `c${SEPARATOR}${keyPart(appId)}${SEPARATOR}${clickId}`;

/** A claim as stored, as JSON. */
const claimOf = (value: string) => JSON.parse(value) as StoredClaim;
const expiryPrefix = (seconds: number) =>
  `x${SEPARATOR}${String(Math.max(0, seconds)).padStart(12, "0")}`;
const expiryKey = (seconds: number, itemKey: string) =>
  `${expiryPrefix(seconds)}${SEPARATOR}${itemKey}`;

const maidLookup = (appId: string, maid: string) =>
  indexPrefix("m", `${appId}#${maidMatchKey(maid)}`);
const ipLookup = (appId: string, ipKey: string) => indexPrefix("i", `${appId}#${ipKey}`);
const sightingLookup = (appId: string, ipKey: string) => indexPrefix("s", `${appId}#${ipKey}`);

/** The keys a touch is stored under: the touch itself, its lookups, and its expiry. */
const touchKeys = (touch: Touch) => {
  const place = touchSortKey(touch);
  const main = touchKey(touch.clickId);
  const lookups: string[] = [];
  if (touch.maid) lookups.push(`${maidLookup(touch.appId, touch.maid)}${place}`);
  const ip = ipMatchKey(touch.ip);
  if (ip) lookups.push(`${ipLookup(touch.appId, ip)}${place}`);
  return { main, lookups, expiry: expiryKey(touchExpirySeconds(touch.touchTime), main) };
};

type Batch = ReturnType<LevelDb["batch"]>;

const write = (batch: Batch, touch: Touch) => {
  const { main, lookups, expiry } = touchKeys(touch);
  batch.put(main, JSON.stringify(touch));
  for (const key of lookups) batch.put(key, touch.clickId);
  // What `reap` deletes, with the expiry's own key.
  batch.put(expiry, JSON.stringify([main, ...lookups]));
};

const parse = (text: string) => JSON.parse(text) as Touch;

/** Expired items a reap deletes at a time, so that writes waiting for their turn go between. */
const REAP_BATCH = 1_000;

export const openLocalTouchStore = async (dir: string): Promise<LocalTouchStore> => {
  const level = await openLevelStore(dir);
  const { db } = level;

  // Writes that read first take one turn across the store, not one per key (../local-disk/
  // level.ts's): the click log's batches write hundreds of touches at once, and a reap many.
  /** Writes that read first, one after another. */
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const done = turn.then(work, work);
    turn = done.catch(() => undefined);
    return done;
  };

  /** The touches stored under these click ids (undefined where none is). */
  const stored = async (clickIds: readonly string[]): Promise<(Touch | undefined)[]> =>
    clickIds.length === 0
      ? []
      : (await db.getMany(clickIds.map(touchKey))).map((text) =>
          text === undefined ? undefined : parse(text),
        );

  /** Idempotent puts, read nothing: the same install at the same address and hour is one key. */
  const putSightings = async (
    sightings: readonly { address: string; hour: string; sortKey: string }[],
  ) => {
    if (sightings.length === 0) return;
    const batch = db.batch();
    for (const { address, hour, sortKey } of sightings) {
      const key = `${indexPrefix("s", address)}${sortKey}`;
      batch.put(key, "");
      batch.put(expiryKey(sightingExpirySeconds(hour), key), JSON.stringify([key]));
    }
    await batch.write();
  };

  /**
   * A window of one lookup's touches, newest first: each entry's touch, unless it was deleted
   * since, or written over with other lookups (the entry then names what it no longer is).
   */
  const inWindow = async (prefix: string, window: TouchWindow): Promise<Touch[]> => {
    const entries: string[] = [];
    const clickIds: string[] = [];
    for await (const [key, clickId] of db.iterator({
      gte: `${prefix}${window.from.toISOString()}`,
      lte: `${prefix}${windowEndKey(window.to)}`,
      reverse: true,
    })) {
      entries.push(key);
      clickIds.push(clickId);
    }
    const touches = await stored(clickIds);
    return touches.filter(
      (touch, index): touch is Touch =>
        touch !== undefined && touchKeys(touch).lookups.includes(entries[index] ?? ""),
    );
  };

  return {
    // Written without reading what the click ids held: the click log's batches are new clicks
    // (or, after a crash, the same clicks again), and a read would wait on LevelDB's lock, on
    // the thread that answers taps. A touch written over leaves its old lookup entries, which
    // lookups pass by and `reap` deletes.
    put: (touches) =>
      inTurn(async () => {
        if (touches.length === 0) return;
        const batch = db.batch();
        for (const touch of touches) write(batch, touch);
        await batch.write({ sync: true });
      }),

    putIfAbsent: (touch) =>
      inTurn(async () => {
        const [old] = await stored([touch.clickId]);
        if (old) return { touch: old, created: false };
        const batch = db.batch();
        write(batch, touch);
        await batch.write();
        return { touch, created: true };
      }),

    delete: (clickIds) =>
      inTurn(async () => {
        const batch = db.batch();
        for (const old of await stored(clickIds)) {
          if (!old) continue;
          const { main, lookups, expiry } = touchKeys(old);
          for (const key of [main, ...lookups, expiry]) batch.del(key);
        }
        if (batch.length > 0) await batch.write();
        else await batch.close();
      }),

    async get(clickId) {
      const [touch] = await stored([clickId]);
      return touch;
    },

    byMaid: (maid, window) => inWindow(maidLookup(window.appId, maid), window),

    async byIp(ip, window) {
      const key = ipMatchKey(ip);
      return key ? inWindow(ipLookup(window.appId, key), window) : [];
    },

    recordSightings: (sightings: readonly AddressSighting[]) =>
      putSightings(
        sightings.flatMap((sighting) => {
          const ip = ipMatchKey(sighting.ip);
          if (!ip) return [];
          const hour = sightingHour(Date.parse(sighting.at));
          const tag = installTag(sighting.appId, sighting.serviceId);
          return [{ address: `${sighting.appId}#${ip}`, hour, sortKey: `${hour}#${tag}` }];
        }),
      ),

    async installsAt(ip: string, window: SightingWindow, cap: number) {
      const address = ipMatchKey(ip);
      if (!address || cap <= 0) return 0;
      const prefix = sightingLookup(window.appId, address);
      const installs = new Set<string>();
      for await (const key of db.keys({
        gte: `${prefix}${sightingHour(window.from.getTime())}`,
        lte: `${prefix}${windowEndKey(window.to)}`,
        reverse: true,
      })) {
        installs.add(key.slice(key.lastIndexOf("#") + 1));
        if (installs.size >= cap) break;
      }
      return installs.size;
    },

    claimClick: (claim) =>
      inTurn(async () => {
        const key = claimKey(claim.appId, claim.clickId);
        const [held] = await db.getMany([key]);
        const step = claimStep(held === undefined ? undefined : claimOf(held), {
          holder: installTag(claim.appId, claim.serviceId),
          device: claim.device,
          own: claim.own,
        });
        if (step.next) {
          const batch = db.batch();
          batch.put(key, JSON.stringify(step.next));
          batch.put(expiryKey(touchExpirySeconds(claim.touchTime), key), JSON.stringify([key]));
          await batch.write();
        }
        return step.holder;
      }),

    releaseClaim: (claim) =>
      inTurn(async () => {
        const key = claimKey(claim.appId, claim.clickId);
        const [held] = await db.getMany([key]);
        if (held === undefined) return;
        const stored = claimOf(held);
        const next = releasedClaim(stored, installTag(claim.appId, claim.serviceId));
        // Another install's claim stays as it is.
        if (next === stored) return;
        const batch = db.batch();
        if (next) batch.put(key, JSON.stringify(next));
        else {
          batch.del(key);
          batch.del(expiryKey(touchExpirySeconds(claim.touchTime), key));
        }
        await batch.write();
      }),

    async reap(cutoff) {
      // DynamoDB's TTL takes an item whose expiry is before the cutoff's second.
      const end = expiryPrefix(Math.floor(cutoff.getTime() / 1000));
      let reaped = 0;
      for (;;) {
        const { items, expired } = await inTurn(async () => {
          const entries: { key: string; keys: string[] }[] = [];
          for await (const [key, value] of db.iterator({
            gt: `x${SEPARATOR}`,
            lt: end,
            limit: REAP_BATCH,
          })) {
            entries.push({ key, keys: JSON.parse(value) as string[] });
          }
          // A touch's entry may be an older version's, whose touch was written over since:
          // only the keys the touch no longer has go.
          const touchIds = entries.flatMap(({ keys: [main] }) =>
            main?.startsWith(TOUCH_PREFIX) ? [main.slice(TOUCH_PREFIX.length)] : [],
          );
          const current = new Map<string, ReturnType<typeof touchKeys>>();
          for (const touch of await stored(touchIds)) {
            if (touch) current.set(touchKey(touch.clickId), touchKeys(touch));
          }
          const batch = db.batch();
          let count = 0;
          for (const { key, keys } of entries) {
            const now = keys[0] === undefined ? undefined : current.get(keys[0]);
            if (now === undefined || now.expiry === key) {
              for (const itemKey of keys) batch.del(itemKey);
              count += now === undefined && keys[0]?.startsWith(TOUCH_PREFIX) ? 0 : 1;
            } else {
              for (const itemKey of keys) {
                if (itemKey !== now.main && !now.lookups.includes(itemKey)) batch.del(itemKey);
              }
              // The touch as it stands expires later (written over since, or stored when touches
              // were kept for less time): its own entry is made sure of, so it still goes then.
              if (now.expiry > key)
                batch.put(now.expiry, JSON.stringify([now.main, ...now.lookups]));
            }
            batch.del(key);
          }
          if (batch.length > 0) await batch.write();
          else await batch.close();
          return { items: entries.length, expired: count };
        });
        reaped += expired;
        if (items < REAP_BATCH) return reaped;
      }
    },

    close: () => inTurn(() => level.close()),
  };
};

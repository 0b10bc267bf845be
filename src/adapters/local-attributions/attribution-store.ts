/**
 * The embedded runtime's attributions: what the DynamoDB table `attributions` is on AWS, kept in
 * a LevelDB database of its own (../local-disk/level.ts) rather than in the embedded DynamoDB.
 * Every install reads and writes its attribution five times on its way from the request to its
 * postbacks; through dynalite each was a request marshalled by the AWS SDK and sent over HTTP
 * to its thread, which cost more of the service's CPU under a burst of installs than the
 * matching itself.
 *
 * Keys:
 *
 *     r␀<app>␀<service id>                     the record, as JSON (with `requestedAt` kept once resolved)
 *     o␀<requested at, ISO 8601 UTC>␀<app>␀<service id>   an open attribution (not delivered), for the sweeper
 *
 * Conditional writes of one record take turns, so an install is attributed once however many
 * runs race.
 */
import type { AttributionRecord, AttributionStore } from "../../ports/attributions.ts";
import { keyPart, type LevelStore, openLevelStore, SEPARATOR } from "../local-disk/level.ts";

/** A record as stored: a resolved one keeps the time it was requested, for the open index. */
type Stored = AttributionRecord & { readonly requestedAt: string };

const recordKey = (appId: string, serviceId: string) =>
  `r${SEPARATOR}${keyPart(appId)}${SEPARATOR}${keyPart(serviceId)}`;
const OPEN_PREFIX = `o${SEPARATOR}`;
/** The sweeper reads open attributions in time order: any form of ISO 8601, normalised. */
const openTime = (iso: string) => new Date(iso).toISOString();
const openKey = (stored: Pick<Stored, "appId" | "serviceId" | "requestedAt">) =>
  `${OPEN_PREFIX}${openTime(stored.requestedAt)}${recordKey(stored.appId, stored.serviceId).slice(1)}`;

/** The record as the port gives it: a resolved one without its request time. */
const recordOf = (stored: Stored): AttributionRecord => {
  if (stored.state !== "resolved") return stored;
  const { requestedAt: _requested, ...record } = stored;
  return record;
};

export interface LocalAttributionStore extends AttributionStore {
  close(): Promise<void>;
}

export const openLocalAttributionStore = async (dir: string): Promise<LocalAttributionStore> =>
  attributionsIn(await openLevelStore(dir));

const attributionsIn = (level: LevelStore): LocalAttributionStore => {
  const { db, inTurn } = level;
  const read = (appId: string, serviceId: string) =>
    level.read<Stored>(recordKey(appId, serviceId));
  const replace = (stored: Stored) =>
    db.put(recordKey(stored.appId, stored.serviceId), JSON.stringify(stored));

  return {
    createPending: (pending) =>
      inTurn(recordKey(pending.appId, pending.serviceId), async () => {
        if (await read(pending.appId, pending.serviceId)) return false;
        const stored: Stored = { ...pending, state: "pending" };
        await db.batch([
          {
            type: "put",
            key: recordKey(pending.appId, pending.serviceId),
            value: JSON.stringify(stored),
          },
          { type: "put", key: openKey(stored), value: "" },
        ]);
        return true;
      }),

    async get(appId, serviceId) {
      const stored = await read(appId, serviceId);
      return stored && recordOf(stored);
    },

    resolve: (appId, serviceId, result, sender) =>
      inTurn(recordKey(appId, serviceId), async () => {
        const stored = await read(appId, serviceId);
        if (!stored || stored.state === "resolved") return false;
        await replace({
          state: "resolved",
          appId,
          serviceId,
          result,
          delivered: false,
          sender: { ip: sender.ip, userAgent: sender.userAgent },
          requestedAt: stored.requestedAt,
        });
        return true;
      }),

    markFailed: (appId, serviceId) =>
      inTurn(recordKey(appId, serviceId), async () => {
        const stored = await read(appId, serviceId);
        if (stored?.state === "pending") await replace({ ...stored, state: "failed" });
      }),

    markDelivered: (appId, serviceId) =>
      inTurn(recordKey(appId, serviceId), async () => {
        const stored = await read(appId, serviceId);
        // As DynamoDB's conditional update refuses it.
        if (stored?.state !== "resolved") {
          throw new Error(`the attribution of ${appId} ${serviceId} is not resolved`);
        }
        await db.batch([
          {
            type: "put",
            key: recordKey(appId, serviceId),
            value: JSON.stringify({ ...stored, delivered: true, sender: null }),
          },
          { type: "del", key: openKey(stored) },
        ]);
      }),

    async listOpen(before) {
      const found: { appId: string; serviceId: string }[] = [];
      for await (const key of db.keys({
        gt: OPEN_PREFIX,
        lt: `${OPEN_PREFIX}${before.toISOString()}`,
      })) {
        const stored = await level.read<Stored>(
          `r${key.slice(key.indexOf(SEPARATOR, OPEN_PREFIX.length))}`,
        );
        if (stored) found.push({ appId: stored.appId, serviceId: stored.serviceId });
      }
      return found;
    },

    delete: (appId, serviceId) =>
      inTurn(recordKey(appId, serviceId), async () => {
        const stored = await read(appId, serviceId);
        if (!stored) return;
        await db.batch([
          { type: "del", key: recordKey(appId, serviceId) },
          { type: "del", key: openKey(stored) },
        ]);
      }),

    close: level.close,
  };
};

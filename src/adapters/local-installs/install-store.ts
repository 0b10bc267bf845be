/**
 * The embedded runtime's installs: what the DynamoDB table `installs` is on AWS, kept in a
 * LevelDB database of its own (../local-disk/level.ts) rather than in the embedded DynamoDB,
 * since every install is written once on its first open (the service keeps those it read in
 * memory, src/adapters/cache/cached-installs.ts). The customer-user mapping stays in the table.
 *
 * Keys:
 *
 *     n␀<app>␀<service id>            the install, as JSON
 *     v␀<app>␀<IDFV>␀<service id>     an iOS device's installs of the app
 *
 * Writes of one install that depend on what is stored (its first report, a consent) take turns.
 */
import type { Install, InstallHistory, InstallStore } from "../../ports/installs.ts";
import { keyPart, type LevelStore, openLevelStore, SEPARATOR } from "../local-disk/level.ts";

const installKey = (appId: string, serviceId: string) =>
  `n${SEPARATOR}${keyPart(appId)}${SEPARATOR}${keyPart(serviceId)}`;
const idfvPrefix = (appId: string, idfv: string) =>
  `v${SEPARATOR}${keyPart(appId)}${SEPARATOR}${keyPart(idfv)}${SEPARATOR}`;

export interface LocalInstallStore extends InstallStore, InstallHistory {
  close(): Promise<void>;
}

export const openLocalInstallStore = async (dir: string): Promise<LocalInstallStore> =>
  installsIn(await openLevelStore(dir));

const installsIn = (level: LevelStore): LocalInstallStore => {
  const { db, inTurn } = level;
  const get = (appId: string, serviceId: string) =>
    level.read<Install>(installKey(appId, serviceId));

  return {
    putIfAbsent: (install) =>
      inTurn(installKey(install.appId, install.serviceId), async () => {
        // A repeat (an SDK retry, or two first opens racing): the first one stands.
        const stored = await get(install.appId, install.serviceId);
        if (stored) return { install: stored, created: false };
        const batch = db.batch();
        batch.put(installKey(install.appId, install.serviceId), JSON.stringify(install));
        if (install.idfv) {
          batch.put(`${idfvPrefix(install.appId, install.idfv)}${keyPart(install.serviceId)}`, "");
        }
        await batch.write();
        return { install, created: true };
      }),

    get,

    update: (appId, serviceId, { consent, tracking }) =>
      inTurn(installKey(appId, serviceId), async () => {
        // Only an install that exists: a change never makes one.
        const stored = await get(appId, serviceId);
        if (!stored) return undefined;
        const updated: Install = {
          ...stored,
          ...(consent ? { consent } : {}),
          ...(tracking ? { maid: tracking.maid, attStatus: tracking.attStatus } : {}),
        };
        await db.put(installKey(appId, serviceId), JSON.stringify(updated));
        return updated;
      }),

    async withIdfv(appId, idfv) {
      const prefix = idfvPrefix(appId, idfv);
      const keys: string[] = [];
      for await (const key of db.keys({ gte: prefix, lt: `${prefix}\uffff` })) {
        // A longer IDFV that begins with this one (and a NUL) has its own keys here.
        const serviceId = key.slice(prefix.length);
        if (!serviceId.includes(SEPARATOR)) keys.push(installKey(appId, serviceId));
      }
      const found = await db.getMany(keys);
      return found.flatMap((text) => (text === undefined ? [] : [JSON.parse(text) as Install]));
    },

    delete: (appId, serviceId) =>
      inTurn(installKey(appId, serviceId), async () => {
        const stored = await get(appId, serviceId);
        if (!stored) return;
        const batch = db.batch();
        batch.del(installKey(appId, serviceId));
        if (stored.idfv) batch.del(`${idfvPrefix(appId, stored.idfv)}${keyPart(serviceId)}`);
        await batch.write();
      }),

    close: level.close,
  };
};

import { issueKey } from "../../apps/registration.ts";
import { NotFoundError } from "../../domain/errors.ts";
import { KEY_KINDS, type KeyKind } from "../../domain/keys.ts";
import { appMustExist, withAdminStores } from "../admin-stores.ts";

export const createKeyCommand = async (options: {
  appId: string;
  kind: KeyKind;
  dataDir: string;
  json?: boolean;
}) => {
  const issued = await withAdminStores(options.dataDir, async (stores) => {
    await appMustExist(stores, options.appId);
    return issueKey(options.appId, options.kind, stores.keys);
  });
  if (options.json) {
    console.log(JSON.stringify(issued, null, 2));
    return;
  }
  console.log(
    `Created ${options.kind} key ${issued.keyId} for ${options.appId} (${KEY_KINDS[options.kind].scopes.join(", ")}).`,
  );
  console.log("The key is shown once and cannot be shown again:");
  console.log(`  ${issued.key}`);
};

export const listKeysCommand = async (options: {
  appId: string;
  dataDir: string;
  json?: boolean;
}) => {
  const keys = await withAdminStores(options.dataDir, async (stores) => {
    await appMustExist(stores, options.appId);
    return stores.keys.listByApp(options.appId);
  });
  // Hashes stay inside: a listing says which keys exist, never anything that checks one.
  const listed = keys
    .map(({ hash: _hash, ...key }) => key)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  if (options.json) {
    console.log(JSON.stringify(listed, null, 2));
    return;
  }
  if (listed.length === 0) console.log(`No keys for ${options.appId}.`);
  for (const key of listed) {
    const state = key.revokedAt ? `revoked ${key.revokedAt}` : "active";
    console.log(`${key.keyId}  ${key.kind.padEnd(6)}  created ${key.createdAt}  ${state}`);
  }
};

export const revokeKeyCommand = async (options: {
  keyId: string;
  /** The key's app, when named: a key of another app is left as it is. */
  appId?: string;
  dataDir: string;
}) => {
  const revoked = await withAdminStores(options.dataDir, async (stores) => {
    if (options.appId !== undefined) {
      await appMustExist(stores, options.appId);
      const key = await stores.keys.get(options.keyId);
      if (key && key.appId !== options.appId) {
        throw new NotFoundError(
          `Key ${options.keyId} is not a key of ${options.appId}: it was not revoked.`,
        );
      }
    }
    return stores.keys.revoke(options.keyId, new Date().toISOString());
  });
  if (!revoked) throw new NotFoundError(`Key ${options.keyId} does not exist.`);
  console.log(`Key ${revoked.keyId} of ${revoked.appId} is revoked since ${revoked.revokedAt}.`);
};

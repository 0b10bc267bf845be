/** Resolves an API key to its app and scopes, or to nothing when the key is not valid now. */

import { keyIdOf, keyMatches, type Scope } from "../domain/keys.ts";
import type { AppStore, KeyStore } from "../ports/apps.ts";

/** Who is calling: the app a key belongs to, and what the key may do. */
export interface Principal {
  readonly keyId: string;
  readonly appId: string;
  readonly appName: string;
  readonly scopes: readonly Scope[];
}

export const authenticate = async (
  presented: string | undefined,
  stores: { keys: KeyStore; apps: AppStore },
): Promise<Principal | undefined> => {
  // The spec sends the bare key; a "Bearer " prefix is tolerated because HTTP tools add it.
  const plaintext = presented?.trim().replace(/^Bearer\s+/i, "");
  const keyId = plaintext ? keyIdOf(plaintext) : undefined;
  if (!plaintext || !keyId) return undefined;
  const key = await stores.keys.get(keyId);
  if (!key || key.revokedAt || !keyMatches(plaintext, key.hash)) return undefined;
  const app = await stores.apps.get(key.appId);
  if (!app) return undefined;
  return { keyId, appId: app.appId, appName: app.name, scopes: key.scopes };
};

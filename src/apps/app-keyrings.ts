/**
 * The private keys that open an app's sealed values, unwrapped once per process and kept in
 * memory, so opening values on the ingestion path needs no call to KMS or the key file. Each
 * app's keys are unwrapped together, on the app's first batch (so a cold start that sees no
 * sealed value's app never calls KMS), into a keyring that every later batch shares; it is
 * made again when the app's keys change. This is the one cache of unwrapped keys. Ingestion
 * opens values synchronously, so the keys are unwrapped before the batch that needs them.
 */
import type { Keyring } from "../crypto/envelope.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { unwrapKeyring } from "../crypto/keyring.ts";
import type { App } from "../ports/apps.ts";
import { appKeyContext } from "./app-config.ts";

export type AppKeyrings = (app: App) => Promise<Keyring>;

export const createAppKeyrings = (wrapper: KeyWrapper): AppKeyrings => {
  const rings = new Map<string, { keyIds: string; ring: Promise<Keyring> }>();
  return (app) => {
    const keyIds = (app.encryptionKeys ?? []).map((k) => k.keyId).join(",");
    const kept = rings.get(app.appId);
    if (kept && kept.keyIds === keyIds) return kept.ring;
    const ring = unwrapKeyring(app.encryptionKeys ?? [], wrapper, appKeyContext(app.appId));
    rings.set(app.appId, { keyIds, ring });
    // A failed unwrap (KMS out of reach, say) is not kept: the next batch tries again.
    ring.catch(() => {
      if (rings.get(app.appId)?.ring === ring) rings.delete(app.appId);
    });
    return ring;
  };
};

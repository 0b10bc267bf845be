import type { KeyKind, Scope } from "../domain/keys.ts";

export const PLATFORMS = ["android", "ios"] as const;
export type Platform = (typeof PLATFORMS)[number];

export interface App {
  /** Bundle identifier or package name. */
  readonly appId: string;
  readonly name: string;
  readonly platform: Platform;
  readonly enabled: boolean;
  readonly createdAt: string;
}

export interface StoredKey {
  readonly keyId: string;
  readonly appId: string;
  readonly kind: KeyKind;
  readonly scopes: readonly Scope[];
  readonly hash: string;
  readonly createdAt: string;
  readonly revokedAt?: string;
}

export interface AppStore {
  /** Creates the app; rejects with ConflictError when the id is taken. */
  create(app: App): Promise<void>;
  get(appId: string): Promise<App | undefined>;
  list(): Promise<App[]>;
}

export interface KeyStore {
  put(key: StoredKey): Promise<void>;
  get(keyId: string): Promise<StoredKey | undefined>;
  listByApp(appId: string): Promise<StoredKey[]>;
}

import type { KeyKind, Scope } from "../domain/keys.ts";

import type { CoarseValue } from "./apple-postbacks.ts";
export const PLATFORMS = ["android", "ios"] as const;
export type Platform = (typeof PLATFORMS)[number];

/** An app's key pair for values sealed on the device; the private key only ever wrapped. */
export interface AppEncryptionKey {
  readonly keyId: string;
  /** base64url SPKI DER, published in the remote configuration. */
  readonly publicKey: string;
  /** The PKCS#8 private key, wrapped by KMS on AWS or the key file on the embedded runtime. */
  readonly wrappedPrivateKey: string;
  readonly createdAt: string;
}

export interface App {
  /** Bundle identifier or package name. */
  readonly appId: string;
  readonly name: string;
  readonly platform: Platform;
  /** Remote configuration: a disabled app's SDKs switch themselves off. */
  readonly enabled: boolean;
  readonly createdAt: string;
  /** Whether SDKs seal parameter values to the app's current key. */
  readonly encryptionEnabled?: boolean;
  /** Newest first; older keys stay so values sealed before a rotation still open. */
  readonly encryptionKeys?: readonly AppEncryptionKey[];
  /** Where the app's links send a tap, and what its link hosts publish for it. */
  readonly links?: AppLinkSettings;
  /** What the app changed of the attribution defaults (src/attribution/settings.ts). */
  readonly attribution?: StoredAttributionSettings;
  /**
   * The IANA time zone its reports count days in (src/domain/time-zone.ts); UTC when unset.
   */
  readonly timeZone?: string;
  /** SKAdNetwork: the conversion value schema, and the app's own names of ad network ids. */
  readonly skadnetwork?: {
    readonly schema?: ConversionSchema;
    readonly networks?: Readonly<Record<string, string>>;
  };
}

/** A rule of a conversion value schema (src/skadnetwork/conversion-schema.ts checks it). */
export interface ConversionRule {
  readonly event: string;
  readonly min_count: number;
  readonly revenue_usd?: { readonly min: number; readonly max?: number | undefined } | undefined;
  readonly parameter?: { readonly name: string; readonly at_least: number } | undefined;
  readonly fine?: number | undefined;
  readonly coarse: CoarseValue;
  readonly lock: boolean;
}

/** An app's conversion value schema as saved: its version and its three windows' rules. */
export interface ConversionSchema {
  readonly version: number;
  /** ISO 8601 UTC. */
  readonly updated_at: string;
  readonly windows: { rules: ConversionRule[] }[];
}

/** An app's own attribution settings; each unset one takes its default. */
export interface StoredAttributionSettings {
  readonly enabled?: boolean;
  readonly clickWindowDays?: number;
  readonly viewWindowHours?: number;
  readonly probabilisticWindowHours?: number;
  readonly probabilistic?: { readonly android?: boolean; readonly ios?: boolean };
  readonly confidenceFloor?: "low" | "medium";
  readonly deepLinkConfidenceFloor?: "low" | "medium" | "high";
}

/** An app's link settings (`attribution apps config`); every one optional. */
export interface AppLinkSettings {
  /**
   * The App Store's numeric id of the app (its store page; a Play package is the app id). An
   * Android app that names one is in both stores: its iOS build is there.
   */
  readonly appStoreId?: string;
  /**
   * The Google Play package of an iOS app's Android build (an Android app's is its app id): an
   * iOS app that names one is in both stores.
   */
  readonly playPackage?: string;
  /**
   * The bundle id of an Android app's iOS build (an iOS app's is its app id), which
   * `apple-app-site-association` names so that a tap opens that build.
   */
  readonly iosBundleId?: string;
  /** The app's web site: where a tap from neither Android nor iOS goes. */
  readonly webUrl?: string;
  /**
   * Host names the app's links are served on (custom domains pointed at the link host); the
   * first is the one new links name. None: the service's own link host.
   */
  readonly hosts?: readonly string[];
  /** Apple's team id, for `apple-app-site-association`. */
  readonly appleTeamId?: string;
  /** SHA-256 fingerprints of the Android signing certificates, for `assetlinks.json`. */
  readonly androidSha256Fingerprints?: readonly string[];
  /**
   * The languages of its links' landing pages (src/links/landing-strings.ts), the first for a
   * browser that asks for none of them; none: English.
   */
  readonly languages?: readonly string[];
  /** What its links' cards in chats and feeds show when a link sets none of its own. */
  readonly previewTitle?: string;
  readonly previewDescription?: string;
  readonly previewImageUrl?: string;
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
  /**
   * Changes an existing app, the only way to: applies `change` to the app as stored and writes
   * the result only if no other write came in between; otherwise it applies `change` again to
   * the app as that write left it, a few times, then rejects with ConflictError. So two changes
   * at once both hold, whatever each read; and `change` may run more than once, so it only
   * computes the new app from the one given (making a key that is kept only if written is
   * fine), and refuses by throwing, which rejects the update with nothing written. The app
   * keeps its id. Rejects with NotFoundError when there is no app; resolves to the app as written.
   */
  update(appId: string, change: (app: App) => App | Promise<App>): Promise<App>;
}

export interface KeyStore {
  put(key: StoredKey): Promise<void>;
  get(keyId: string): Promise<StoredKey | undefined>;
  listByApp(appId: string): Promise<StoredKey[]>;
  /** Marks the key revoked (once; a later call keeps the first time); undefined if unknown. */
  revoke(keyId: string, at: string): Promise<StoredKey | undefined>;
}

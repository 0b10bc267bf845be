/**
 * The remote configuration an SDK fetches on `configure` (GET /v1/config), and the app
 * settings behind it.
 */
import { SEALED_VERSION } from "../crypto/envelope.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { generateWrappedAppKey } from "../crypto/keyring.ts";
import type { FxRates } from "../fx/ecb-rates.ts";
import type { App } from "../ports/apps.ts";
import type { ConversionSchemaRequest } from "../skadnetwork/conversion-schema.ts";

/** How often SDKs fetch the configuration again. */
export const CONFIG_REFRESH_SECONDS = 3_600;

/**
 * How long away from the foreground starts a new session (src/ingest/sessions.ts): Adjust's
 * 30 minutes, which AppsFlyer's default matches.
 */
export const SESSION_INTERVAL_SECONDS = 1_800;

/** What the envelope's algorithm is called in the configuration: see spec/encryption-test-vectors.json. */
export const SEALING_ALGORITHM = "ECDH-P256+HKDF-SHA256+AES-256-GCM";

/**
 * Parameter keys an SDK never seals: the server needs them in clear (revenue in USD,
 * attribution campaign fields, deep link routing).
 */
export const CLEAR_PARAMETER_KEYS = [
  "revenue",
  "currency",
  "media_source",
  "campaign",
  "campaign_id",
  "adset",
  "adset_id",
  "ad",
  "ad_id",
  "deep_link_path",
] as const;

/** What the SDKs evaluate on iOS: the app's conversion value schema, and USD rates for revenue. */
export type SkadnetworkConfig = {
  version: number;
  windows: ConversionSchemaRequest["windows"];
  /** USD of one unit of each currency (upper-case ISO 4217 code). */
  usd_rates: Record<string, number>;
};

export type RemoteConfig = {
  enabled: boolean;
  refresh_interval_seconds: number;
  /** How long away from the foreground starts a new session (src/ingest/sessions.ts). */
  session_interval_seconds: number;
  /** Null when the app has no conversion value schema. */
  skadnetwork: SkadnetworkConfig | null;
  encryption:
    | { enabled: false }
    | {
        enabled: true;
        key_id: string;
        public_key: string;
        algorithm: string;
        envelope_version: string;
        clear_keys: readonly string[];
      };
};

const UNITS = 1_000_000;

/** USD of one unit of each currency the rates know, at their newest day. */
export const usdRates = (fx: FxRates): Record<string, number> => {
  const rates: Record<string, number> = {};
  for (const currency of [...fx.currencies, "USD"]) {
    // A million units' worth, so that rounding to a millionth of a dollar leaves a unit of a
    // small currency (IDR, VND) its precision: a purchase near a revenue range's edge falls on
    // the side the service would put it.
    const usd = fx.toUsd(UNITS, currency, fx.lastDate);
    if (usd !== null) rates[currency] = usd / UNITS;
  }
  return rates;
};

export const remoteConfig = (app: App, fx: FxRates): RemoteConfig => {
  const key = app.encryptionKeys?.[0];
  const schema = app.skadnetwork?.schema;
  return {
    enabled: app.enabled,
    refresh_interval_seconds: CONFIG_REFRESH_SECONDS,
    session_interval_seconds: SESSION_INTERVAL_SECONDS,
    skadnetwork: schema
      ? { version: schema.version, windows: schema.windows, usd_rates: usdRates(fx) }
      : null,
    encryption:
      app.encryptionEnabled && key
        ? {
            enabled: true,
            key_id: key.keyId,
            public_key: key.publicKey,
            algorithm: SEALING_ALGORITHM,
            envelope_version: SEALED_VERSION,
            clear_keys: CLEAR_PARAMETER_KEYS,
          }
        : { enabled: false },
  };
};

/** The context an app's private keys are wrapped under: a key of one app opens for no other. */
export const appKeyContext = (appId: string) => ({ appId });

/** Switches sealing on (making the app's first key pair if it has none) or off. */
export const withEncryption = async (
  app: App,
  enabled: boolean,
  wrapper: KeyWrapper,
  now = new Date(),
): Promise<App> => {
  if (!enabled || (app.encryptionKeys?.length ?? 0) > 0)
    return { ...app, encryptionEnabled: enabled };
  const key = await generateWrappedAppKey(wrapper, appKeyContext(app.appId));
  return {
    ...app,
    encryptionEnabled: true,
    encryptionKeys: [{ ...key, createdAt: now.toISOString() }],
  };
};

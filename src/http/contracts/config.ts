/** The remote configuration's contract: `GET /v1/config`. */
import * as z from "zod";
import {
  CLEAR_PARAMETER_KEYS,
  CONFIG_REFRESH_SECONDS,
  type RemoteConfig,
  SEALING_ALGORITHM,
  SESSION_INTERVAL_SECONDS,
} from "../../apps/app-config.ts";
import { SEALED_VERSION } from "../../crypto/envelope.ts";
import { conversionSchemaRequest } from "../../skadnetwork/conversion-schema.ts";
import { INTERNAL, JSON_MEDIA_TYPE, type RouteContract, tiedTo, unauthorized } from "./shared.ts";

const encryptionOff = z.strictObject({ enabled: z.literal(false) }).meta({
  id: "EncryptionOff",
  description: "Sealing is off: the SDK sends every value in clear.",
});

const encryptionOn = z
  .strictObject({
    enabled: z.literal(true),
    key_id: z.string().meta({
      description: "Id of the app's current sealing key; every sealed value names it.",
      example: "k3f9a61c2d8e04b75",
    }),
    public_key: z.string().meta({
      description:
        "The app's P-256 public key: base64url without padding of its SubjectPublicKeyInfo " +
        "DER (91 bytes; the last 65 are the uncompressed point).",
    }),
    algorithm: z.string().meta({
      description: "How values are sealed: ephemeral-static ECDH, HKDF and AES-256-GCM.",
      example: SEALING_ALGORITHM,
    }),
    envelope_version: z.string().meta({
      description: "The version prefix of every sealed value (`<version>.<key_id>.…`).",
      example: SEALED_VERSION,
    }),
    clear_keys: z
      .array(z.string())
      .readonly()
      .meta({
        description: "Parameter keys the SDK never seals: the server needs them in clear.",
        example: [...CLEAR_PARAMETER_KEYS],
      }),
  })
  .meta({
    id: "EncryptionOn",
    description:
      "Sealing is on: the SDK may seal parameter values, except those of `clear_keys`, with " +
      "the app's public key.",
  });

export const remoteConfigSchema = tiedTo<RemoteConfig>()(
  z
    .strictObject({
      enabled: z.boolean().meta({
        description:
          "False when the app's owner switched the SDK off: it should send nothing (events it " +
          "sends anyway are answered 202, counted as ignored and not stored; an install is " +
          "still recorded).",
      }),
      refresh_interval_seconds: z.int().min(1).meta({
        description: "How often the SDK fetches this configuration again, in seconds.",
        example: CONFIG_REFRESH_SECONDS,
      }),
      session_interval_seconds: z
        .int()
        .min(1)
        .meta({
          description:
            "How long the app must be away from the foreground, in seconds, for its return to " +
            "start a new session (POST /v1/sessions).",
          example: SESSION_INTERVAL_SECONDS,
        }),
      encryption: z.union([encryptionOff, encryptionOn]).meta({
        description: "Whether and how the SDK seals parameter values on the device.",
      }),
      skadnetwork: z
        .strictObject({
          version: z.int().min(1).meta({
            description: "The schema's version: a new one applies to the events after it.",
            example: 3,
          }),
          windows: conversionSchemaRequest.shape.windows.meta({
            description:
              "The three conversion windows' rules, which the iOS SDK evaluates on each event (docs/skadnetwork.md).",
          }),
          usd_rates: z.record(z.string(), z.number()).meta({
            description:
              "USD of one unit of each currency, for the rules' revenue in USD (upper-case ISO 4217 codes).",
            example: { USD: 1, EUR: 1.08 },
          }),
        })
        .nullable()
        .meta({
          id: "SkadnetworkConfig",
          description:
            "The app's SKAdNetwork conversion value schema for its iOS SDK; null when it has none.",
        }),
    })
    .meta({ id: "RemoteConfig", description: "The app's remote configuration for its SDKs." }),
);

export const CONFIG_CONTRACTS = {
  config: {
    summary: "Get the app's remote configuration",
    description:
      "What the SDK fetches on `configure`, and again every `refresh_interval_seconds`: " +
      "whether it is switched on, and whether and how to seal parameter values.",
    success: {
      status: 200,
      description: "The app's remote configuration.",
      content: { [JSON_MEDIA_TYPE]: remoteConfigSchema },
    },
    errors: { 401: unauthorized("config"), 500: INTERNAL },
  },
} as const satisfies Record<string, RouteContract>;

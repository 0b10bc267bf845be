/** The dashboard's app routes' contracts: apps, their settings, their keys. */
import * as z from "zod";
import {
  type AppSettings,
  type AppSummary,
  type KeyAnswer,
  newAppBody,
  newKeyBody,
  settingsChangeBody,
} from "../../dashboard/apps.ts";
import { SCOPES } from "../../domain/keys.ts";
import { PLATFORMS } from "../../ports/apps.ts";
import { keyIdParam } from "../handlers/apps.ts";
import {
  INTERNAL,
  JSON_MEDIA_TYPE,
  NOT_JSON,
  type RouteContract,
  TOO_LARGE,
  tiedTo,
  unauthorized,
} from "./shared.ts";

const summaryShape = {
  app_id: z
    .string()
    .meta({ description: "Bundle identifier or package name.", example: "com.example.game" }),
  name: z.string().meta({ example: "Example Game" }),
  platform: z.enum(PLATFORMS),
  enabled: z.boolean().meta({ description: "Off: the app's SDKs switch themselves off." }),
  created_at: z.iso.datetime(),
  time_zone: z.string().meta({
    description:
      "The IANA time zone the reports count days in (an install's day, a cohort's day N); UTC unless set.",
    example: "America/Los_Angeles",
  }),
};

const appSummarySchema = tiedTo<AppSummary>()(
  z.strictObject(summaryShape).meta({ id: "AppSummary", description: "An app." }),
);

const appSettingsSchema = tiedTo<AppSettings>()(
  z
    .strictObject({
      ...summaryShape,
      encryption: z.strictObject({
        enabled: z.boolean().meta({ description: "Whether SDKs seal parameter values." }),
        key_id: z.string().nullable().meta({ description: "The current sealing key's id." }),
      }),
      attribution: z.strictObject({
        enabled: z.boolean(),
        click_window_days: z.number(),
        view_window_hours: z.number(),
        probabilistic_window_hours: z.number(),
        probabilistic: z.strictObject({ android: z.boolean(), ios: z.boolean() }),
        confidence_floor: z.enum(["low", "medium"]),
        deep_link_confidence_floor: z.enum(["low", "medium", "high"]),
      }),
      links: z.strictObject({
        app_store_id: z.string().nullable(),
        play_package: z.string().nullable().meta({
          description:
            "An iOS app's Android build's Google Play package (an Android app's is its id).",
        }),
        ios_bundle_id: z.string().nullable().meta({
          description:
            "An Android app's iOS build's bundle id (an iOS app's is its id), for apple-app-site-association.",
        }),
        web_url: z.string().nullable(),
        hosts: z.array(z.string()).readonly(),
        apple_team_id: z.string().nullable(),
        android_sha256_fingerprints: z.array(z.string()).readonly(),
        languages: z.array(z.string()).readonly().meta({
          description:
            "The languages of the links' landing pages, the first for a browser that asks for none of them; empty: English.",
        }),
        preview_title: z.string().nullable().meta({
          description: "The links' preview title when a link sets none; null: the app's name.",
        }),
        preview_description: z.string().nullable(),
        preview_image_url: z.string().nullable(),
      }),
    })
    .meta({
      id: "AppSettings",
      description: "An app with its settings, the defaults filled in for those it never set.",
    }),
);

const keyShape = {
  key_id: z.string().meta({ example: "3f9a0c1d2e4b5a69" }),
  kind: z.enum(["sdk", "server"]),
  scopes: z.array(z.enum(SCOPES)).readonly(),
  created_at: z.iso.datetime(),
  revoked_at: z.iso.datetime().nullable(),
};
const keySchema = tiedTo<KeyAnswer>()(z.strictObject(keyShape).meta({ id: "Key" }));
const newKeySchema = tiedTo<KeyAnswer & { key: string }>()(
  z
    .strictObject({
      ...keyShape,
      key: z.string().meta({ description: "The key itself: shown this once, never stored." }),
    })
    .meta({ id: "NewKey" }),
);

const appIdParams = z.object({
  app_id: z.string().meta({ description: "The app's id.", example: "com.example.game" }),
});
const keyParams = appIdParams.extend({
  key_id: keyIdParam.meta({ description: "The key's id.", example: "3f9a0c1d2e4b5a69" }),
});

const UNAUTHORIZED = unauthorized("apps");
const json = (schema: z.ZodType) => ({ [JSON_MEDIA_TYPE]: schema });

export const APP_CONTRACTS = {
  "list-apps": {
    summary: "List the apps",
    description: "The apps the signed-in person may see (every app for an admin).",
    success: {
      status: 200,
      description: "The apps.",
      content: json(z.strictObject({ apps: z.array(appSummarySchema) })),
    },
    errors: { 401: UNAUTHORIZED, 500: INTERNAL },
  },
  "create-app": {
    summary: "Create an app",
    description: "A new app, which its maker may then see. It has no key until one is made.",
    request: {
      body: { description: "The new app.", schema: newAppBody.meta({ id: "NewApp" }) },
    },
    success: {
      status: 201,
      description: "The app.",
      content: json(z.strictObject({ app: appSettingsSchema })),
    },
    errors: {
      400: NOT_JSON,
      401: UNAUTHORIZED,
      409: "An app with this id exists.",
      413: TOO_LARGE,
      422: "The body breaks a rule; the detail names the field.",
      500: INTERNAL,
    },
  },
  "get-app": {
    summary: "Get an app's settings",
    description: "The app and its settings.",
    request: { params: appIdParams },
    success: {
      status: 200,
      description: "The app.",
      content: json(z.strictObject({ app: appSettingsSchema })),
    },
    errors: { 401: UNAUTHORIZED, 500: INTERNAL },
  },
  "update-app": {
    summary: "Change an app's settings",
    description:
      "Any subset of the writable settings; a nested object may be partial. A link setting " +
      "given as null (or a list given empty) is cleared. Switching encryption on makes the " +
      "app's first sealing key pair. A link host another app names first moves to this app " +
      "when the host's DNS has a TXT record `_attribution.<host>` of `attribution-app=<app id>`.",
    request: {
      params: appIdParams,
      body: { description: "The change.", schema: settingsChangeBody.meta({ id: "AppChange" }) },
    },
    success: {
      status: 200,
      description: "The app as it is now.",
      content: json(z.strictObject({ app: appSettingsSchema })),
    },
    errors: {
      400: NOT_JSON,
      401: UNAUTHORIZED,
      409:
        "The App Store id or a link host is another app's (the detail says how the domain's " +
        "owner proves a host theirs), or a link host is the service's own.",
      413: TOO_LARGE,
      422: "A setting is out of range or malformed; the detail names it.",
      500: INTERNAL,
    },
  },
  "list-keys": {
    summary: "List an app's keys",
    description: "Every key of the app, oldest first, revoked ones too; never a key itself.",
    request: { params: appIdParams },
    success: {
      status: 200,
      description: "The keys.",
      content: json(z.strictObject({ keys: z.array(keySchema) })),
    },
    errors: { 401: UNAUTHORIZED, 500: INTERNAL },
  },
  "create-key": {
    summary: "Make a key",
    description:
      "A new SDK key (ingest, config, attribution read: embedded in apps) or server key " +
      "(export, server-to-server, deletions, links, reports). The key is in this answer only.",
    request: {
      params: appIdParams,
      body: { description: "The kind of key.", schema: newKeyBody.meta({ id: "NewKeyRequest" }) },
    },
    success: {
      status: 201,
      description: "The key, shown once.",
      content: json(z.strictObject({ key: newKeySchema })),
    },
    errors: {
      400: NOT_JSON,
      401: UNAUTHORIZED,
      413: TOO_LARGE,
      422: "`kind` is not sdk or server.",
      500: INTERNAL,
    },
  },
  "revoke-key": {
    summary: "Revoke a key",
    description:
      "The key stops working at once on this service's embedded runtime, and within the authorizer's cache time on AWS.",
    request: { params: keyParams },
    success: {
      status: 200,
      description: "The key, revoked.",
      content: json(z.strictObject({ key: keySchema })),
    },
    errors: {
      401: UNAUTHORIZED,
      404: "The app has no key with this id.",
      422: "`key_id` is not a key id.",
      500: INTERNAL,
    },
  },
} as const satisfies Record<string, RouteContract>;

/** Registering an app: the app itself and its first SDK and server keys, shown once. */
import * as z from "zod";
import { ValidationError } from "../domain/errors.ts";
import { generateKey, type KeyKind } from "../domain/keys.ts";
import { type App, type AppStore, type KeyStore, PLATFORMS } from "../ports/apps.ts";

/** Bundle identifiers and package names; also safe as a lake partition value. */
export const APP_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

export const newAppSchema = z.object({
  appId: z.string().regex(APP_ID_PATTERN, {
    error: "app id must be a bundle identifier or package name (letters, digits, '.', '_', '-').",
  }),
  name: z
    .string()
    .trim()
    .min(1, { error: "name must not be empty." })
    .max(200, { error: "name must be at most 200 characters." }),
  platform: z.enum(PLATFORMS, { error: `platform must be one of ${PLATFORMS.join(", ")}.` }),
});
export type NewApp = z.infer<typeof newAppSchema>;

export interface IssuedKey {
  readonly keyId: string;
  readonly kind: KeyKind;
  /** The key itself; it is not stored and cannot be shown again. */
  readonly key: string;
}

export const issueKey = async (
  appId: string,
  kind: KeyKind,
  keys: KeyStore,
  now = new Date(),
): Promise<IssuedKey> => {
  const key = generateKey(kind);
  await keys.put({
    keyId: key.keyId,
    appId,
    kind,
    scopes: key.scopes,
    hash: key.hash,
    createdAt: now.toISOString(),
  });
  return { keyId: key.keyId, kind, key: key.plaintext };
};

export const createApp = async (
  input: NewApp,
  stores: { apps: AppStore; keys: KeyStore },
  now = new Date(),
): Promise<{ app: App; keys: IssuedKey[] }> => {
  const parsed = newAppSchema.safeParse(input);
  // Each rule's own sentence, as the command line and the API show it.
  if (!parsed.success) {
    throw new ValidationError(parsed.error.issues.map((issue) => issue.message).join(" "));
  }
  const app: App = { ...parsed.data, enabled: true, createdAt: now.toISOString() };
  await stores.apps.create(app);
  const keys = [
    await issueKey(app.appId, "sdk", stores.keys, now),
    await issueKey(app.appId, "server", stores.keys, now),
  ];
  return { app, keys };
};

/**
 * The embedded runtime's KeyWrapper: AES-256-GCM under a 32-byte master key kept in a file
 * of its own (mode 0600), outside the data it protects, so a copy of the data folder's
 * stores alone opens nothing. The file is created on first use.
 *
 * Wrapped form: `kf1.<check>.<b64url nonce>.<b64url ciphertext||tag>`, where `check` names the
 * master key (8 bytes derived from it, hex), so a key wrapped under another master key is
 * reported as such rather than as tampering. The AAD is the canonical JSON of the context.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { chmod, link, mkdir, open, readFile, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { decodeBase64url } from "../../crypto/app-keys.ts";
import { KeyUnwrapError, type KeyWrapper, type WrapContext } from "../../crypto/key-wrapper.ts";

const VERSION = "kf1";
const MASTER_KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** The context as AAD: its [key, value] pairs sorted by key, as JSON (key order never matters). */
export const canonicalContext = (context: WrapContext): string =>
  JSON.stringify(Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

const isErrno = (error: unknown, code: string): boolean =>
  error instanceof Error && "code" in error && error.code === code;

const parseKeyFile = (path: string, text: string): Buffer => {
  const key = decodeBase64url(text.trim());
  if (key?.length !== MASTER_KEY_BYTES) {
    throw new Error(`The key file ${path} does not hold a ${MASTER_KEY_BYTES}-byte base64url key`);
  }
  return key;
};

/**
 * Creates the key file if absent. The key is written and synced to a private temporary file
 * and then hard-linked into place: link fails if the file exists, so concurrent first uses
 * agree on one key, and no reader ever sees a half-written file.
 */
const createKeyFile = async (path: string): Promise<void> => {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  const handle = await open(temporary, "wx", 0o600);
  try {
    await handle.writeFile(`${randomBytes(MASTER_KEY_BYTES).toString("base64url")}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    // The umask can only narrow the mode; this makes it exactly 0600.
    await chmod(temporary, 0o600);
    await link(temporary, path);
  } catch (error) {
    if (!isErrno(error, "EEXIST")) throw error;
  } finally {
    await unlink(temporary);
  }
};

const loadMasterKey = async (path: string): Promise<Buffer> => {
  try {
    return parseKeyFile(path, await readFile(path, "utf8"));
  } catch (error) {
    if (!isErrno(error, "ENOENT")) throw error;
  }
  await createKeyFile(path);
  return parseKeyFile(path, await readFile(path, "utf8"));
};

interface DerivedKeys {
  readonly wrapKey: Buffer;
  readonly check: string;
}

// Separate keys for encryption and for naming the master key, so neither use weakens the other.
const derive = (master: Buffer): DerivedKeys => {
  const expand = (label: string, bytes: number) =>
    Buffer.from(
      hkdfSync(
        "sha256",
        master,
        Buffer.alloc(0),
        `attribution-key-file/${VERSION}|${label}`,
        bytes,
      ),
    );
  return { wrapKey: expand("wrap", 32), check: expand("check", 8).toString("hex") };
};

/**
 * A KeyWrapper under the master key at `keyFilePath`, e.g. `<dataDir>/keys/master.key`.
 * Losing that file loses every key it wraps: back it up, apart from the data.
 */
export const createKeyFileWrapper = (keyFilePath: string): KeyWrapper => {
  let keys: Promise<DerivedKeys> | undefined;
  const load = (): Promise<DerivedKeys> => {
    if (!keys) {
      const loading = loadMasterKey(keyFilePath).then(derive);
      // A failed load (unreadable file, say) is retried on the next call.
      loading.catch(() => {
        if (keys === loading) keys = undefined;
      });
      keys = loading;
    }
    return keys;
  };

  return {
    async wrap(plaintext, context) {
      const { wrapKey, check } = await load();
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv("aes-256-gcm", wrapKey, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(canonicalContext(context), "utf8"));
      const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      return [VERSION, check, nonce.toString("base64url"), sealed.toString("base64url")].join(".");
    },
    async unwrap(wrapped, context) {
      const [version, check, nonceText = "", sealedText = "", ...rest] = wrapped.split(".");
      const nonce = decodeBase64url(nonceText);
      const sealed = decodeBase64url(sealedText);
      if (
        version !== VERSION ||
        rest.length > 0 ||
        nonce?.length !== NONCE_BYTES ||
        sealed === undefined ||
        sealed.length < TAG_BYTES
      ) {
        throw new KeyUnwrapError("malformed", "The wrapped key is not in the key-file format");
      }
      const derived = await load();
      if (check !== derived.check) {
        throw new KeyUnwrapError(
          "wrong-master-key",
          `The key was wrapped under another master key than ${keyFilePath}`,
        );
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", derived.wrapKey, nonce, {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(Buffer.from(canonicalContext(context), "utf8"));
        decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
        return Buffer.concat([
          decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)),
          decipher.final(),
        ]);
      } catch {
        throw new KeyUnwrapError(
          "authentication-failed",
          "The wrapped key or its context was altered",
        );
      }
    },
  };
};

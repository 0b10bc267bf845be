/**
 * The AWS KeyWrapper: KMS Encrypt and Decrypt under one symmetric key, with the context as
 * the KMS encryption context (bound to the ciphertext and recorded in CloudTrail, so it must
 * hold ids, never secrets). Wrapped form: `kms1.<b64url CiphertextBlob>`.
 */
import {
  DecryptCommand,
  EncryptCommand,
  IncorrectKeyException,
  InvalidCiphertextException,
  type KMSClient,
} from "@aws-sdk/client-kms";
import { decodeBase64url } from "../../crypto/app-keys.ts";
import { KeyUnwrapError, type KeyWrapper } from "../../crypto/key-wrapper.ts";

const PREFIX = "kms1.";
/** KMS Encrypt takes at most 4 KB; a PKCS#8 P-256 key is 138 bytes. */
const MAX_PLAINTEXT_BYTES = 4096;

export interface KmsKeyWrapperOptions {
  readonly kms: KMSClient;
  /** The key's id, ARN or alias; Decrypt is pinned to it so no other key is ever trusted. */
  readonly keyId: string;
}

/** Throttling, network and permission errors pass through unchanged: they are transient or ours. */
export const createKmsKeyWrapper = ({ kms, keyId }: KmsKeyWrapperOptions): KeyWrapper => ({
  async wrap(plaintext, context) {
    if (plaintext.length > MAX_PLAINTEXT_BYTES) {
      throw new RangeError(
        `KMS wraps at most ${MAX_PLAINTEXT_BYTES} bytes, not ${plaintext.length}`,
      );
    }
    const { CiphertextBlob } = await kms.send(
      new EncryptCommand({ KeyId: keyId, Plaintext: plaintext, EncryptionContext: { ...context } }),
    );
    if (!CiphertextBlob) throw new Error("KMS Encrypt returned no ciphertext");
    return `${PREFIX}${Buffer.from(CiphertextBlob).toString("base64url")}`;
  },
  async unwrap(wrapped, context) {
    const blob = wrapped.startsWith(PREFIX)
      ? decodeBase64url(wrapped.slice(PREFIX.length))
      : undefined;
    if (!blob || blob.length === 0) {
      throw new KeyUnwrapError("malformed", "The wrapped key is not in the KMS format");
    }
    try {
      const { Plaintext } = await kms.send(
        new DecryptCommand({
          KeyId: keyId,
          CiphertextBlob: blob,
          EncryptionContext: { ...context },
        }),
      );
      if (!Plaintext) throw new Error("KMS Decrypt returned no plaintext");
      return Buffer.from(Plaintext);
    } catch (error) {
      if (error instanceof IncorrectKeyException) {
        throw new KeyUnwrapError(
          "wrong-master-key",
          `The key was wrapped under another KMS key than ${keyId}`,
        );
      }
      // KMS answers a wrong encryption context or an altered blob the same way.
      if (error instanceof InvalidCiphertextException) {
        throw new KeyUnwrapError(
          "authentication-failed",
          "The wrapped key or its context was altered",
        );
      }
      throw error;
    }
  },
});

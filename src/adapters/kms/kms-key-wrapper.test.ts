import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import {
  DecryptCommand,
  type DecryptCommandInput,
  EncryptCommand,
  type EncryptCommandInput,
  IncorrectKeyException,
  InvalidCiphertextException,
  KMSClient,
  KMSInternalException,
} from "@aws-sdk/client-kms";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { KeyUnwrapError } from "../../crypto/key-wrapper.ts";
import { createKmsKeyWrapper } from "./kms-key-wrapper.ts";

const KEY_ARN = "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab";
const CONTEXT = { appId: "com.example.game", keyId: "k0123456789abcdef" };

/**
 * KMS as far as the wrapper can tell: the context is bound to the blob, and Decrypt under
 * another key or context fails with the exceptions KMS raises.
 */
const fakeKms = () => {
  const master = randomBytes(32);
  const aad = (keyId: string | undefined, context: Record<string, string> | undefined) =>
    Buffer.from(JSON.stringify([keyId, Object.entries(context ?? {}).sort()]));
  const encrypt = (input: EncryptCommandInput) => {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", master, nonce);
    cipher.setAAD(aad(input.KeyId, input.EncryptionContext));
    const body = Buffer.concat([
      cipher.update(input.Plaintext ?? new Uint8Array()),
      cipher.final(),
    ]);
    const keyTag = Buffer.from(input.KeyId ?? "");
    const blob = Buffer.concat([
      Buffer.from([keyTag.length]),
      keyTag,
      nonce,
      cipher.getAuthTag(),
      body,
    ]);
    return { CiphertextBlob: new Uint8Array(blob), KeyId: input.KeyId, $metadata: {} };
  };
  const decrypt = (input: DecryptCommandInput) => {
    const blob = Buffer.from(input.CiphertextBlob ?? new Uint8Array());
    const keyLength = blob[0] ?? 0;
    const keyId = blob.subarray(1, 1 + keyLength).toString();
    if (input.KeyId && input.KeyId !== keyId) {
      throw new IncorrectKeyException({ message: "incorrect key", $metadata: {} });
    }
    const rest = blob.subarray(1 + keyLength);
    try {
      const decipher = createDecipheriv("aes-256-gcm", master, rest.subarray(0, 12));
      decipher.setAAD(aad(keyId, input.EncryptionContext));
      decipher.setAuthTag(rest.subarray(12, 28));
      const plaintext = Buffer.concat([decipher.update(rest.subarray(28)), decipher.final()]);
      return { Plaintext: new Uint8Array(plaintext), KeyId: keyId, $metadata: {} };
    } catch {
      throw new InvalidCiphertextException({ message: "invalid ciphertext", $metadata: {} });
    }
  };
  return { encrypt, decrypt };
};

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => "unwrapped",
    (error: unknown) => (error instanceof KeyUnwrapError ? error.reason : error),
  );

describe("KMS wrapper", () => {
  const kms = new KMSClient({ region: "eu-west-1" });
  const mock = mockClient(kms);
  const wrapper = createKmsKeyWrapper({ kms, keyId: KEY_ARN });

  beforeEach(() => {
    mock.reset();
    const fake = fakeKms();
    mock.on(EncryptCommand).callsFake(fake.encrypt);
    mock.on(DecryptCommand).callsFake(fake.decrypt);
  });

  it("round-trips through Encrypt and Decrypt with the context as encryption context", async () => {
    const secret = randomBytes(138);
    const wrapped = await wrapper.wrap(secret, CONTEXT);
    expect(wrapped).toMatch(/^kms1\.[A-Za-z0-9_-]+$/);
    await expect(wrapper.unwrap(wrapped, CONTEXT)).resolves.toEqual(secret);
    expect(mock.commandCalls(EncryptCommand)[0]?.args[0].input).toEqual({
      KeyId: KEY_ARN,
      Plaintext: secret,
      EncryptionContext: CONTEXT,
    });
    expect(mock.commandCalls(DecryptCommand)[0]?.args[0].input).toMatchObject({
      KeyId: KEY_ARN,
      EncryptionContext: CONTEXT,
    });
  });

  it("fails authentication with another context or an altered blob", async () => {
    const wrapped = await wrapper.wrap(randomBytes(32), CONTEXT);
    expect(await failure(wrapper.unwrap(wrapped, { ...CONTEXT, appId: "com.example.other" }))).toBe(
      "authentication-failed",
    );
    const blob = Buffer.from(wrapped.slice("kms1.".length), "base64url");
    blob[blob.length - 1] = (blob[blob.length - 1] ?? 0) ^ 1;
    expect(await failure(wrapper.unwrap(`kms1.${blob.toString("base64url")}`, CONTEXT))).toBe(
      "authentication-failed",
    );
  });

  it("reports a key wrapped under another KMS key", async () => {
    const other = createKmsKeyWrapper({ kms, keyId: "alias/other" });
    const wrapped = await other.wrap(randomBytes(32), CONTEXT);
    expect(await failure(wrapper.unwrap(wrapped, CONTEXT))).toBe("wrong-master-key");
  });

  it("refuses malformed wrapped keys without calling KMS", async () => {
    for (const malformed of ["", "kms1.", "kf1.abc.def.ghi", "kms1.not base64", "kms1.AAAA="]) {
      expect(await failure(wrapper.unwrap(malformed, CONTEXT))).toBe("malformed");
    }
    expect(mock.commandCalls(DecryptCommand)).toHaveLength(0);
  });

  it("passes throttling and other KMS failures through unchanged", async () => {
    const throttled = Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException" });
    const internal = new KMSInternalException({ message: "internal", $metadata: {} });
    mock.on(DecryptCommand).rejectsOnce(throttled).rejectsOnce(internal);
    await expect(wrapper.unwrap("kms1.AAAA", CONTEXT)).rejects.toBe(throttled);
    await expect(wrapper.unwrap("kms1.AAAA", CONTEXT)).rejects.toBe(internal);
  });

  it("refuses more than KMS can encrypt, and takes as much as it can", async () => {
    await expect(wrapper.wrap(Buffer.alloc(4097), CONTEXT)).rejects.toThrow(RangeError);
    expect(mock.commandCalls(EncryptCommand)).toHaveLength(0);
    const most = randomBytes(4096);
    await expect(wrapper.unwrap(await wrapper.wrap(most, CONTEXT), CONTEXT)).resolves.toEqual(most);
  });

  it("fails, never wraps or unwraps to nothing, when KMS answers without its bytes", async () => {
    mock.on(EncryptCommand).resolvesOnce({});
    mock.on(DecryptCommand).resolvesOnce({});
    await expect(wrapper.wrap(Buffer.from("s"), CONTEXT)).rejects.toThrow(/no ciphertext/);
    await expect(wrapper.unwrap("kms1.AAAA", CONTEXT)).rejects.toThrow(/no plaintext/);
  });
});

import { describe, expect, it, vi } from "vitest";
import { generateAppKeyPair } from "./app-keys.ts";
import { openSealedAsync, SealedValueError, seal } from "./envelope.ts";
import { KeyUnwrapError, type KeyWrapper, type WrapContext } from "./key-wrapper.ts";
import { createKeyring, generateWrappedAppKey, sealingKeyContext } from "./keyring.ts";

/** A wrapper that only records and checks the context: the crypto is the adapters' concern. */
const fakeWrapper = () => {
  const canonical = (context: WrapContext) => JSON.stringify(Object.entries(context).sort());
  const wrapper: KeyWrapper = {
    wrap: vi.fn(async (plaintext: Buffer, context: WrapContext) =>
      JSON.stringify({ key: plaintext.toString("base64"), context: canonical(context) }),
    ),
    unwrap: vi.fn(async (wrapped: string, context: WrapContext) => {
      const { key, context: bound } = JSON.parse(wrapped);
      if (bound !== canonical(context))
        throw new KeyUnwrapError("authentication-failed", "context");
      return Buffer.from(key, "base64");
    }),
  };
  return wrapper;
};

const APP = { appId: "com.example.game" };

describe("keyring over wrapped keys", () => {
  it("wraps a new key under its purpose and id, and opens values sealed to it", async () => {
    const wrapper = fakeWrapper();
    const key = await generateWrappedAppKey(wrapper, APP);
    expect(wrapper.wrap).toHaveBeenCalledWith(expect.any(Buffer), {
      appId: "com.example.game",
      purpose: "sealed-value-private-key",
      keyId: key.keyId,
    });
    const keyring = createKeyring([key], wrapper, APP);
    const envelope = seal({ email: "jane@example.com" }, key);
    await expect(openSealedAsync(envelope, keyring)).resolves.toEqual({
      email: "jane@example.com",
    });
  });

  it("unwraps lazily, once, even for concurrent first uses", async () => {
    const wrapper = fakeWrapper();
    const key = await generateWrappedAppKey(wrapper, APP);
    const keyring = createKeyring([key], wrapper, APP);
    expect(wrapper.unwrap).not.toHaveBeenCalled();
    const envelopes = [1, 2, 3].map((n) => seal(n, key));
    await expect(Promise.all(envelopes.map((e) => openSealedAsync(e, keyring)))).resolves.toEqual([
      1, 2, 3,
    ]);
    await openSealedAsync(envelopes[0] ?? "", keyring);
    expect(wrapper.unwrap).toHaveBeenCalledTimes(1);
  });

  it("retries an unwrap that failed", async () => {
    const wrapper = fakeWrapper();
    const key = await generateWrappedAppKey(wrapper, APP);
    vi.mocked(wrapper.unwrap).mockRejectedValueOnce(new Error("throttled"));
    const keyring = createKeyring([key], wrapper, APP);
    const envelope = seal("x", key);
    await expect(openSealedAsync(envelope, keyring)).rejects.toThrow("throttled");
    await expect(openSealedAsync(envelope, keyring)).resolves.toBe("x");
  });

  it("does not unwrap a key under another app's context", async () => {
    const wrapper = fakeWrapper();
    const key = await generateWrappedAppKey(wrapper, APP);
    const keyring = createKeyring([key], wrapper, { appId: "com.example.other" });
    await expect(openSealedAsync(seal("x", key), keyring)).rejects.toBeInstanceOf(KeyUnwrapError);
  });

  it("does not let a wrapped key pass for another key id", async () => {
    const wrapper = fakeWrapper();
    const key = await generateWrappedAppKey(wrapper, APP);
    const keyring = createKeyring(
      [{ keyId: "kswapped", wrappedPrivateKey: key.wrappedPrivateKey }],
      wrapper,
      APP,
    );
    const envelope = seal("x", { keyId: "kswapped", publicKey: key.publicKey });
    await expect(openSealedAsync(envelope, keyring)).rejects.toBeInstanceOf(KeyUnwrapError);
  });

  it("reports a key id it does not hold as a SealedValueError", async () => {
    const wrapper = fakeWrapper();
    const keyring = createKeyring([await generateWrappedAppKey(wrapper, APP)], wrapper, APP);
    const stranger = generateAppKeyPair();
    const error = await openSealedAsync(seal("x", stranger), keyring).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(SealedValueError);
    expect(error).toMatchObject({ reason: "unknown-key-id" });
  });

  it("refuses a key id listed twice", async () => {
    const wrapper = fakeWrapper();
    const key = await generateWrappedAppKey(wrapper, APP);
    expect(() => createKeyring([key, key], wrapper, APP)).toThrow(/twice/);
  });

  it("lets the key's purpose and id override the caller's context", () => {
    expect(sealingKeyContext({ appId: "a", keyId: "forged", purpose: "other" }, "k1")).toEqual({
      appId: "a",
      purpose: "sealed-value-private-key",
      keyId: "k1",
    });
  });
});

import { describe, expect, it, vi } from "vitest";
import { generateAppKeyPair } from "./app-keys.ts";
import { openSealed, SealedValueError, seal } from "./envelope.ts";
import { KeyUnwrapError, type KeyWrapper, type WrapContext } from "./key-wrapper.ts";
import { generateWrappedAppKey, sealingKeyContext, unwrapKeyring } from "./keyring.ts";

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
    const keyring = await unwrapKeyring([key], wrapper, APP);
    const envelope = seal({ email: "jane@example.com" }, key);
    expect(openSealed(envelope, keyring)).toEqual({ email: "jane@example.com" });
  });

  it("unwraps each key once, up front, and then opens values with no further unwrap", async () => {
    const wrapper = fakeWrapper();
    const keys = [
      await generateWrappedAppKey(wrapper, APP),
      await generateWrappedAppKey(wrapper, APP),
    ];
    const keyring = await unwrapKeyring(keys, wrapper, APP);
    expect(wrapper.unwrap).toHaveBeenCalledTimes(2);
    expect(keys.map((key, n) => openSealed(seal(n, key), keyring))).toEqual([0, 1]);
    expect(wrapper.unwrap).toHaveBeenCalledTimes(2);
  });

  it("fails whole when one key does not unwrap", async () => {
    const wrapper = fakeWrapper();
    const key = await generateWrappedAppKey(wrapper, APP);
    vi.mocked(wrapper.unwrap).mockRejectedValueOnce(new Error("throttled"));
    await expect(unwrapKeyring([key], wrapper, APP)).rejects.toThrow("throttled");
  });

  it("does not unwrap a key under another app's context", async () => {
    const wrapper = fakeWrapper();
    const key = await generateWrappedAppKey(wrapper, APP);
    await expect(
      unwrapKeyring([key], wrapper, { appId: "com.example.other" }),
    ).rejects.toBeInstanceOf(KeyUnwrapError);
  });

  it("does not let a wrapped key pass for another key id", async () => {
    const wrapper = fakeWrapper();
    const key = await generateWrappedAppKey(wrapper, APP);
    await expect(
      unwrapKeyring(
        [{ keyId: "kswapped", wrappedPrivateKey: key.wrappedPrivateKey }],
        wrapper,
        APP,
      ),
    ).rejects.toBeInstanceOf(KeyUnwrapError);
  });

  it("reports a key id it does not hold as a SealedValueError", async () => {
    const wrapper = fakeWrapper();
    const keyring = await unwrapKeyring([await generateWrappedAppKey(wrapper, APP)], wrapper, APP);
    const stranger = generateAppKeyPair();
    let error: unknown;
    try {
      openSealed(seal("x", stranger), keyring);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(SealedValueError);
    expect(error).toMatchObject({ reason: "unknown-key-id" });
  });

  it("refuses a key id listed twice", async () => {
    const wrapper = fakeWrapper();
    const key = await generateWrappedAppKey(wrapper, APP);
    await expect(unwrapKeyring([key, key], wrapper, APP)).rejects.toThrow(/twice/);
  });

  it("lets the key's purpose and id override the caller's context", () => {
    expect(sealingKeyContext({ appId: "a", keyId: "forged", purpose: "other" }, "k1")).toEqual({
      appId: "a",
      purpose: "sealed-value-private-key",
      keyId: "k1",
    });
  });
});

/**
 * Sealing switched on and off for an app, and what its remote configuration then tells the
 * SDKs: the first key pair made once, kept through a switch off and on, since every SDK in the
 * field holds its public key and the service its private one.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { parseEcbRates } from "../fx/ecb-rates.ts";
import type { App } from "../ports/apps.ts";
import { remoteConfig, withEncryption } from "./app-config.ts";

// Wraps by base64: no secrecy is needed to see which key is which.
const wrapper: KeyWrapper = {
  wrap: async (plain) => Buffer.from(plain).toString("base64"),
  unwrap: async (wrapped) => Buffer.from(wrapped, "base64"),
};

const APP: App = {
  appId: "com.example.sealed",
  name: "Sealed",
  platform: "android",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
};

const FX = parseEcbRates("Date,USD,\n2026-11-01,1.1,\n");

describe("sealing", () => {
  it("makes the app's first key pair when switched on, and tells the SDKs its public key", async () => {
    const on = await withEncryption(APP, true, wrapper, new Date("2026-11-02T00:00:00.000Z"));
    expect(on.encryptionEnabled).toBe(true);
    expect(on.encryptionKeys).toHaveLength(1);
    const [key] = on.encryptionKeys ?? [];
    expect(key?.createdAt).toBe("2026-11-02T00:00:00.000Z");
    expect(remoteConfig(on, FX).encryption).toMatchObject({
      enabled: true,
      key_id: key?.keyId,
      public_key: key?.publicKey,
    });
  });

  it("keeps the key pair through a switch off and on, and tells the SDKs nothing of it while off", async () => {
    const on = await withEncryption(APP, true, wrapper);
    const off = await withEncryption(on, false, wrapper);
    expect(off.encryptionEnabled).toBe(false);
    expect(off.encryptionKeys).toEqual(on.encryptionKeys);
    expect(remoteConfig(off, FX).encryption).toEqual({ enabled: false });
    const again = await withEncryption(off, true, wrapper);
    expect(again.encryptionEnabled).toBe(true);
    expect(again.encryptionKeys).toEqual(on.encryptionKeys);
  });

  it("makes no key for an app that never switched it on", async () => {
    const off = await withEncryption(APP, false, wrapper);
    expect(off).toEqual({ ...APP, encryptionEnabled: false });
    expect(remoteConfig(off, FX).encryption).toEqual({ enabled: false });
  });
});

describe("the remote configuration", () => {
  it("names the parameters an SDK keeps clear when it seals, as the SDKs' shared cases have them", async () => {
    // The keys the SDKs are tested against (sdk/conformance/requests.json): a list the service
    // and the SDKs must agree on, since a parameter sealed on the device cannot be routed.
    const cases = JSON.parse(
      readFileSync(new URL("../../sdk/conformance/requests.json", import.meta.url), "utf8"),
    ) as { events: { input?: { encryption?: { clear_keys?: string[] } } }[] };
    const shared = cases.events.flatMap((one) => one.input?.encryption?.clear_keys ?? []);
    expect(shared).toContain("deep_link_path");
    const on = await withEncryption(APP, true, wrapper);
    const { encryption } = remoteConfig(on, FX);
    expect(encryption.enabled && encryption.clear_keys).toEqual(shared);
  });

  it("gives the schema's version, and USD rates at the newest day, a small currency's to more than a millionth", () => {
    const fx = parseEcbRates("Date,USD,IDR,\n2026-11-01,1.1,17123.45,\n2026-10-31,1.2,17000,\n");
    const schema = {
      version: 4,
      updated_at: "2026-11-01T00:00:00.000Z",
      windows: [{ rules: [] }, { rules: [] }, { rules: [] }],
    };
    const config = remoteConfig({ ...APP, skadnetwork: { schema } }, fx);
    expect(config.skadnetwork?.version).toBe(4);
    const rates = config.skadnetwork?.usd_rates ?? {};
    expect(rates.USD).toBe(1);
    expect(rates.EUR).toBe(1.1);
    // 1.1 / 17123.45 USD: kept past the sixth decimal, where a unit's own rounding would stop.
    expect(rates.IDR).toBeCloseTo(1.1 / 17123.45, 10);
    expect(rates.IDR).not.toBe(Number((rates.IDR ?? 0).toFixed(6)));
  });
});

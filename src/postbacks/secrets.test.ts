import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyFileWrapper } from "../adapters/key-file/key-file-wrapper.ts";
import { KeyUnwrapError, type KeyWrapper } from "../crypto/key-wrapper.ts";
import { parsePartnerConfig, parseWebhookConfig } from "./config.ts";
import {
  openPartnerConfig,
  openWebhookConfig,
  sealPartnerConfig,
  sealWebhookConfig,
} from "./secrets.ts";

const TIKTOK = parsePartnerConfig({
  id: "tiktok-main",
  appId: "com.example.game",
  partner: "tiktok",
  values: { tiktok_app_id: "7012345678", access_token: "tt-secret-token" },
  events: { service_purchase: { name: "Purchase", revenue: true } },
});

describe("configuration secrets", () => {
  let dir: string;
  let wrapper: KeyWrapper;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "postback-secrets-"));
    wrapper = createKeyFileWrapper(join(dir, "master.key"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("stores a partner's secret values sealed, the others in clear, and opens them", async () => {
    const stored = await sealPartnerConfig(TIKTOK, wrapper, new Date("2026-11-24T12:00:00Z"));
    expect(stored.values).toEqual({ tiktok_app_id: "7012345678" });
    expect(Object.keys(stored.sealedValues)).toEqual(["access_token"]);
    expect(JSON.stringify(stored)).not.toContain("tt-secret-token");
    expect(stored.updatedAt).toBe("2026-11-24T12:00:00.000Z");
    expect(await openPartnerConfig(stored, wrapper)).toEqual(TIKTOK);
  });

  it("does not open a sealed value moved to another configuration or value", async () => {
    const stored = await sealPartnerConfig(TIKTOK, wrapper);
    const moved = { ...stored, id: "tiktok-other" };
    await expect(openPartnerConfig(moved, wrapper)).rejects.toBeInstanceOf(KeyUnwrapError);
    const swapped = {
      ...stored,
      values: { access_token: "x" },
      sealedValues: { tiktok_app_id: stored.sealedValues.access_token ?? "" },
    };
    await expect(openPartnerConfig(swapped, wrapper)).rejects.toBeInstanceOf(KeyUnwrapError);
  });

  it("stores a webhook's signing secret sealed", async () => {
    const webhook = parseWebhookConfig({
      id: "backend",
      appId: "com.example.game",
      url: "https://backend.example/hooks",
      secret: "whsec_0123456789abcdef0123456789abcdef",
    });
    const stored = await sealWebhookConfig(webhook, wrapper);
    expect(JSON.stringify(stored)).not.toContain("0123456789abcdef0123456789abcdef");
    expect(await openWebhookConfig(stored, wrapper)).toEqual(webhook);
    await expect(
      openWebhookConfig({ ...stored, appId: "com.example.other" }, wrapper),
    ).rejects.toBeInstanceOf(KeyUnwrapError);
  });
});

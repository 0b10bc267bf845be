/** `GET /v1/config` over HTTP: the remote configuration an SDK fetches on configure. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

describe("GET /v1/config", () => {
  let rt: TestRuntime;
  let keys: { sdkKey: string; serverKey: string };

  beforeAll(async () => {
    rt = await startTestRuntime();
    keys = await rt.createApp("com.example.config", "ios");
  });

  afterAll(async () => {
    await rt.dispose();
  });

  it("answers an SDK key with the app's configuration", async () => {
    const response = await rt.get("/v1/config", keys.sdkKey);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      enabled: true,
      refresh_interval_seconds: 3600,
      encryption: { enabled: false },
    });
  });

  it("rejects a missing or unknown key with 401, and a server key too (no config scope)", async () => {
    for (const key of [
      undefined,
      "sdk_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      keys.serverKey,
    ]) {
      const response = await rt.get("/v1/config", key);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: "Unauthorized" });
    }
  });

  it("says enabled: false once the app is switched off", async () => {
    const app = await rt.stores.apps.get("com.example.config");
    if (!app) throw new Error("app missing");
    await rt.stores.apps.save({ ...app, enabled: false });
    const response = await rt.get("/v1/config", keys.sdkKey);
    expect(await response.json()).toMatchObject({ enabled: false });
    await rt.stores.apps.save(app);
  });
});

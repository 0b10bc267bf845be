/**
 * Keys, 401s and the remote configuration (`GET /v1/config`), on any target: apps and keys are made, changed and
 * revoked with the admin CLI against the target's tables, and every answer comes over HTTP.
 */
import { afterAll, beforeAll, describe, expect } from "vitest";
import { installRequest } from "../../support/installs.ts";
import { itAll, itNeeds, type Keys, openTarget, type Target } from "../../support/target.ts";

const UNKNOWN_SDK_KEY = "sdk_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
/** A key with its last character changed: its id is known, its secret wrong. */
const altered = (key: string) => `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;

const UNKNOWN_SERVER_KEY = "srv_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

describe("keys and configuration", () => {
  let target: Target;
  let app: string;
  let keys: Keys;

  beforeAll(async () => {
    target = await openTarget();
    app = target.appId("com.example.keys");
    keys = await target.createApp(app, "ios");
  });

  afterAll(() => target?.dispose());

  itAll("answers an SDK key with the app's configuration", async () => {
    const response = await target.get("/v1/config", keys.sdkKey);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      enabled: true,
      refresh_interval_seconds: 3600,
      session_interval_seconds: 1800,
      encryption: { enabled: false },
      // No conversion value schema yet.
      skadnetwork: null,
    });
  });

  itAll(
    "answers 401 with the spec's body to no key, an unknown, malformed or altered key, and the wrong kind",
    async () => {
      const cases: [string, string | undefined][] = [
        ["/v1/config", undefined],
        ["/v1/config", UNKNOWN_SDK_KEY],
        ["/v1/config", "not-a-key"],
        ["/v1/config", altered(keys.sdkKey)],
        ["/v1/config", keys.serverKey],
        ["/v1/links", keys.sdkKey],
      ];
      for (const [path, key] of cases) {
        const response = await target.get(path, key);
        expect(response.status, `${path} with ${key ?? "no key"}`).toBe(401);
        const body = (await response.json()) as { error: string; detail: string };
        expect(body).toEqual({ error: "Unauthorized", detail: expect.any(String) });
        expect(body.detail.length).toBeGreaterThan(0);
      }
      for (const key of [altered(keys.sdkKey), keys.serverKey, undefined]) {
        expect((await target.post("/v1/installs", installRequest("k-1"), key)).status).toBe(401);
      }
    },
  );

  itNeeds(["export"], "answers the export's 401s with the spec's body", async () => {
    for (const key of [
      undefined,
      UNKNOWN_SERVER_KEY,
      "not-a-key",
      altered(keys.serverKey),
      keys.sdkKey,
    ]) {
      const response = await target.get("/api/v1/export?timestamp=0", key);
      expect(response.status, key ?? "no key").toBe(401);
      const body = (await response.json()) as { error: string; detail: string };
      expect(body).toEqual({ error: "Unauthorized", detail: expect.any(String) });
    }
  });

  itAll(
    "says enabled: false once the app is switched off with the CLI, and true again",
    async () => {
      await target.cli("apps", "config", "--app-id", app, "--disable");
      await target.eventually("the config says disabled", async () => {
        const response = await target.get("/v1/config", keys.sdkKey);
        expect(await response.json()).toMatchObject({ enabled: false });
      });
      await target.cli("apps", "config", "--app-id", app, "--enable");
      await target.eventually("the config says enabled", async () => {
        const response = await target.get("/v1/config", keys.sdkKey);
        expect(await response.json()).toMatchObject({ enabled: true });
      });
    },
  );

  itAll("takes a key made with the CLI, and refuses it once revoked", async () => {
    const made = JSON.parse(
      await target.cli("keys", "create", "--app-id", app, "--kind", "sdk", "--json"),
    ) as { keyId: string; key: string };
    await target.eventually("the new key is taken", async () => {
      expect((await target.get("/v1/config", made.key)).status).toBe(200);
    });
    const listed = await target.cli("keys", "list", "--app-id", app, "--json");
    expect(listed).toContain(made.keyId);
    expect(listed).not.toContain(made.key);
    await target.cli("keys", "revoke", made.keyId);
    // At once on the embedded runtime; within the authorizer's cache time on AWS.
    await target.eventually("the revoked key is refused", async () => {
      expect((await target.get("/v1/config", made.key)).status).toBe(401);
    });
    // The app's other keys go on working.
    expect((await target.get("/v1/config", keys.sdkKey)).status).toBe(200);
  });

  itAll("keeps apps apart: one app's keys never reach another's data", async () => {
    const other = target.appId("com.example.keys.other");
    const otherKeys = await target.createApp(other, "android");
    const installed = await target.post(
      "/v1/installs",
      installRequest("shared-device", { os: "android", idfv: null }),
      keys.sdkKey,
    );
    expect(installed.status).toBe(202);
    // The same service id under the other app is another install: its attribution is its own.
    const theirs = await target.get("/v1/installs/shared-device/attribution", otherKeys.sdkKey);
    expect(theirs.status).toBe(404);
  });
});

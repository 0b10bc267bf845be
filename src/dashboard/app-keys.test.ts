/**
 * An app's keys and its App Store id through the dashboard, on the DynamoDB stores (dynalite, as
 * the embedded runtime keeps them): what one app's page can do to another app.
 */
import { describe, expect, it } from "vitest";
import { dynaliteForTests } from "../adapters/dynamodb/dynamo-targets.test-support.ts";
import { createAppStore, createKeyStore } from "../adapters/dynamodb/stores.ts";
import { authenticate } from "../apps/authenticate.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { ConflictError, NotFoundError } from "../domain/errors.ts";
import { LOCAL_TABLE_NAMES } from "../embedded/local-dynamodb.ts";
import { createDashboardApps } from "./apps.ts";
import { memoryUserStore } from "./memory-stores.test-support.ts";

const OWNER = "owner@example.com";
const OTHER = "other@example.com";

const wrapper: KeyWrapper = {
  wrap: async (plain) => Buffer.from(plain).toString("base64"),
  unwrap: async (wrapped) => Buffer.from(wrapped, "base64"),
};

describe("an app's keys and App Store id, through the dashboard", () => {
  const dynamo = dynaliteForTests("dashboard-app-keys-");

  /** The owner's app, and someone else's, which the owner may not see: each test's own. */
  const setUp = async (name: string) => {
    const MINE = `com.example.${name}.mine`;
    const THEIRS = `com.example.${name}.theirs`;
    const apps = createAppStore(dynamo().doc, LOCAL_TABLE_NAMES.apps);
    const keys = createKeyStore(dynamo().doc, LOCAL_TABLE_NAMES.keys);
    const users = memoryUserStore([
      { email: OWNER, admin: false, appIds: [MINE], createdAt: "t", sessionGeneration: "g" },
      { email: OTHER, admin: false, appIds: [THEIRS], createdAt: "t", sessionGeneration: "g" },
    ]);
    const dashboard = createDashboardApps({ apps, keys, users, keyWrapper: wrapper });
    await dashboard.create(OWNER, { app_id: MINE, name: "Mine", platform: "ios" });
    await dashboard.create(OTHER, { app_id: THEIRS, name: "Theirs", platform: "ios" });
    return { dashboard, keys, apps, MINE, THEIRS };
  };

  it("lists an app's keys oldest first, and revokes none of another app's by its id", async () => {
    const { dashboard, keys, apps, MINE, THEIRS } = await setUp("keys");
    const first = await dashboard.issueKey(MINE, { kind: "sdk" });
    const second = await dashboard.issueKey(MINE, { kind: "server" });
    const listed = await dashboard.keys(MINE);
    // Both created within a second: the order is the creation times'.
    const byAge = [...listed].sort((a, b) => a.created_at.localeCompare(b.created_at));
    expect(listed.map((key) => key.key_id)).toEqual(byAge.map((key) => key.key_id));
    expect(listed.map((key) => key.key_id)).toEqual(
      expect.arrayContaining([first.key_id, second.key_id]),
    );

    const theirs = await dashboard.issueKey(THEIRS, { kind: "server" });
    await expect(dashboard.revokeKey(MINE, theirs.key_id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await keys.get(theirs.key_id))?.revokedAt).toBeUndefined();
    const revoked = await dashboard.revokeKey(MINE, first.key_id);
    // Revoked in the store (which the authorizer reads), and the answer says when.
    const stored = (await keys.get(first.key_id))?.revokedAt;
    expect(stored).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(revoked.revoked_at).toBe(stored);
    expect(await authenticate(first.key, { keys, apps })).toBeUndefined();
    // The other key of the app stays in force.
    expect((await authenticate(second.key, { keys, apps }))?.appId).toBe(MINE);
    expect((await keys.get(second.key_id))?.revokedAt).toBeUndefined();
  });

  it("refuses an App Store id another app has, naming no app the person may not see", async () => {
    const { dashboard, MINE, THEIRS } = await setUp("store");
    await dashboard.update(OTHER, THEIRS, { links: { app_store_id: "1234567890" } });
    const taking = dashboard.update(OWNER, MINE, { links: { app_store_id: "1234567890" } });
    await expect(taking).rejects.toBeInstanceOf(ConflictError);
    await expect(taking).rejects.toThrow("App Store id 1234567890 is another app's already");
    expect((await dashboard.get(MINE)).links.app_store_id).toBeNull();
  });
});

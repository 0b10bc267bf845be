/** The deletion store's saved purge passes against a DynamoDB-compatible server (dynalite on disk). */
import { describe, expect, it } from "vitest";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { type DeletionRequest, PASS_INSTALLS_AT_MOST } from "../../ports/deletions.ts";
import { createDeletionStore, passKey } from "./deletions.ts";
import { dynaliteForTests } from "./dynamo-targets.test-support.ts";

const request = (requestId: string, appId: string, serviceId: string): DeletionRequest => ({
  requestId,
  appId,
  serviceId,
  status: "pending",
  requestedAt: "2026-11-01T10:00:00.000Z",
  completedAt: null,
});

describe("DynamoDB deletion store's saved passes", () => {
  const dynamo = dynaliteForTests("dynamo-passes-");

  // Read from the indexes, as on AWS, and by scanning the table, as the embedded runtime does.
  const stores = () => [
    createDeletionStore(dynamo().doc, LOCAL_TABLE_NAMES.deletions),
    createDeletionStore(dynamo().doc, LOCAL_TABLE_NAMES.deletions, { listByScan: true }),
  ];

  it("lists a request as open until it is completed, and moves none that is not there", async () => {
    for (const [index, deletions] of stores().entries()) {
      const appId = `com.open.${index}`;
      await deletions.create(request(`${appId}-r1`, appId, "s1"));
      await deletions.create(request(`${appId}-r2`, appId, "s2"));
      await deletions.setStatus(`${appId}-r1`, "in_progress", "2026-11-01T10:01:00.000Z");
      await deletions.setStatus(`${appId}-r2`, "completed", "2026-11-01T10:02:00.000Z");
      const open = (await deletions.listOpen())
        .map((r) => r.requestId)
        .filter((id) => id.startsWith(appId));
      expect(open).toEqual([`${appId}-r1`]);
      expect(await deletions.get(`${appId}-r2`)).toMatchObject({
        status: "completed",
        completedAt: "2026-11-01T10:02:00.000Z",
      });
      await expect(
        deletions.setStatus(`${appId}-missing`, "completed", "2026-11-01T10:03:00.000Z"),
      ).rejects.toThrow();
      expect(await deletions.get(`${appId}-missing`)).toBeUndefined();
    }
  });

  it("keeps an app's pass, in place of the one before, until it is cleared", async () => {
    const [deletions] = stores();
    if (!deletions) throw new Error("no store");
    expect(await deletions.savedPass("com.pass")).toBeUndefined();
    await deletions.savePass("com.pass", { serviceIds: ["s1", "s2"], position: "first" });
    await deletions.savePass("com.pass", { serviceIds: ["s1", "s2"], position: "second" });
    await deletions.savePass("com.pass.other", { serviceIds: ["s9"], position: "other" });
    expect(await deletions.savedPass("com.pass")).toEqual({
      serviceIds: ["s1", "s2"],
      position: "second",
    });
    await deletions.clearPass("com.pass");
    expect(await deletions.savedPass("com.pass")).toBeUndefined();
    expect(await deletions.savedPass("com.pass.other")).toEqual({
      serviceIds: ["s9"],
      position: "other",
    });
    // Clearing none is no error.
    await deletions.clearPass("com.pass");
  });

  it("never lists a pass as a request, nor finds it by id", async () => {
    for (const [n, deletions] of stores().entries()) {
      const appId = `com.listed${n}`;
      await deletions.create(request(`${appId}-r1`, appId, "s1"));
      await deletions.savePass(appId, { serviceIds: ["s1"], position: "p" });
      const ids = (requests: DeletionRequest[]) => requests.map((r) => r.requestId);
      expect(ids(await deletions.listByApp(appId))).toEqual([`${appId}-r1`]);
      expect(ids(await deletions.listOpen())).not.toContain(passKey(appId).requestId);
      expect(ids(await deletions.listOpen())).toContain(`${appId}-r1`);
      expect(await deletions.listByInstall(appId, "s1")).toHaveLength(1);
      expect(await deletions.get(passKey(appId).requestId)).toBeUndefined();
      expect((await deletions.tombstones(appId)).serviceIds).toEqual(["s1"]);
      await deletions.clearPass(appId);
    }
  });

  it("holds a pass of the most installs of the longest ids", async () => {
    const [deletions] = stores();
    if (!deletions) throw new Error("no store");
    const serviceIds = Array.from({ length: PASS_INSTALLS_AT_MOST }, (_, i) =>
      String(i).padStart(INGEST_LIMITS.maxIdLength, "x"),
    );
    const position = JSON.stringify({ "app/events": `events/app_id=com.big/${"k".repeat(900)}` });
    await deletions.savePass("com.big", { serviceIds, position });
    expect(await deletions.savedPass("com.big")).toEqual({ serviceIds, position });
  });
});

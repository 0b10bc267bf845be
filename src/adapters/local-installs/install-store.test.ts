/**
 * What the embedded install store keeps beside its installs: a deleted install leaves no entry
 * in its device's index (an iOS install's IDFV).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REQUEST_IDFV, storedInstall } from "../../../test/support/installs.ts";
import { keysIn } from "../local-disk/keys.test-support.ts";
import { openLocalInstallStore } from "./install-store.ts";

const APP = "com.example.game";

describe("the embedded install store's keys", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "install-store-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("forgets a deleted install's device entry with it, and keeps those of the rest", async () => {
    const store = await openLocalInstallStore(dir);
    await store.putIfAbsent(storedInstall(APP, "deleted", { os: "ios", idfv: REQUEST_IDFV }));
    await store.putIfAbsent(storedInstall(APP, "kept", { os: "ios", idfv: REQUEST_IDFV }));
    await store.delete(APP, "deleted");
    await store.close();
    expect(await keysIn(dir)).toEqual([
      `n\u0000${APP}\u0000kept`,
      `v\u0000${APP}\u0000${REQUEST_IDFV}\u0000kept`,
    ]);
  });
});

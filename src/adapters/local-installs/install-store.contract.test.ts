/**
 * The embedded install store against the contract DynamoDB's table is held to
 * (../contracts/installs.test-support.ts).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeInstallStoreContract } from "../contracts/installs.test-support.ts";
import { openLocalInstallStore } from "./install-store.ts";

describeInstallStoreContract("the embedded store (LevelDB)", async () => {
  const dir = await mkdtemp(join(tmpdir(), "install-store-contract-"));
  const store = await openLocalInstallStore(dir);
  return {
    store,
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

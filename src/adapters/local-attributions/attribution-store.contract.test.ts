/**
 * The embedded attribution store against the contract DynamoDB's table is held to
 * (../contracts/attributions.test-support.ts).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeAttributionStoreContract } from "../contracts/attributions.test-support.ts";
import { openLocalAttributionStore } from "./attribution-store.ts";

describeAttributionStoreContract("the embedded store (LevelDB)", async () => {
  const dir = await mkdtemp(join(tmpdir(), "attribution-store-contract-"));
  const store = await openLocalAttributionStore(dir);
  return {
    store,
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

/**
 * The embedded touch store against the contracts DynamoDB's table is held to: the touch store's
 * (../contracts/touch-store.test-support.ts) and which installs send from an address
 * (../contracts/address-crowds.test-support.ts).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeAddressCrowdsContract } from "../contracts/address-crowds.test-support.ts";
import { describeTouchStoreContract } from "../contracts/touch-store.test-support.ts";
import { openLocalTouchStore } from "./touch-store.ts";

const onDisk = async () => {
  const dir = await mkdtemp(join(tmpdir(), "touch-store-contract-"));
  const store = await openLocalTouchStore(dir);
  return {
    store,
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
};

describeTouchStoreContract("the embedded store (LevelDB)", onDisk);
describeAddressCrowdsContract("the embedded store (LevelDB)", onDisk);

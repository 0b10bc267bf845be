/** The embedded delivery log's own rules, beside the contract it shares with DynamoDB's. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLocalDeliveryLog } from "./delivery-log.ts";
import { describeReplacedAttempts } from "./replaced-attempts.test-support.ts";

describeReplacedAttempts("the embedded delivery log", async () => {
  const dir = await mkdtemp(join(tmpdir(), "delivery-log-"));
  const log = await openLocalDeliveryLog(join(dir, "log"));
  return {
    append: (entry) => log.append(entry),
    listByApp: (appId, page) => log.listByApp(appId, page),
    counts: (appId, since) => log.counts(appId, since),
    close: async () => {
      await log.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

/**
 * What the embedded attribution store keeps beside its records: an attribution deleted or
 * delivered leaves no entry in the sweeper's index of open ones.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resultOf } from "../../attribution/results.ts";
import { DEFAULT_ATTRIBUTION } from "../../attribution/settings.ts";
import { attributionFacts } from "../contracts/attributions.test-support.ts";
import { keysIn } from "../local-disk/keys.test-support.ts";
import { openLocalAttributionStore } from "./attribution-store.ts";

const APP = "com.example.game";
const pending = (serviceId: string) => ({
  appId: APP,
  serviceId,
  facts: attributionFacts(APP),
  requestedAt: "2026-11-01T10:00:02.000Z",
});

describe("the embedded attribution store's keys", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "attribution-store-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("keeps an open entry only while an attribution is open", async () => {
    const store = await openLocalAttributionStore(dir);
    await store.createPending(pending("deleted"));
    await store.createPending(pending("delivered"));
    await store.resolve(
      APP,
      "delivered",
      resultOf({ kind: "organic" }, null, new Date("2026-11-01T10:00:03Z"), DEFAULT_ATTRIBUTION),
      { ip: null, userAgent: null },
    );
    await store.markDelivered(APP, "delivered");
    await store.delete(APP, "deleted");
    await store.close();
    expect(await keysIn(dir)).toEqual([`r\u0000${APP}\u0000delivered`]);
  });
});

import { describe, expect, it } from "vitest";
import { everyInstallStored } from "../../test/support/installs.ts";
import type { Adapters, Runtime } from "../functions/adapters.ts";
import type { DeletionRequest, DeletionStore } from "../ports/deletions.ts";
import { purgeJob } from "./purge.ts";

const request = (appId: string, minute: number): DeletionRequest => ({
  requestId: `r-${appId}`,
  appId,
  serviceId: `s-${appId}`,
  status: "pending",
  requestedAt: new Date(Date.UTC(2026, 10, 1, 10, minute)).toISOString(),
  completedAt: null,
});

/** The purge job composed over stores that hold two old requests of two apps. */
const composed = (kind: Runtime["kind"]) => {
  const passes: string[] = [];
  let clockMs = 0;
  const open = [request("com.a", 1), request("com.b", 2)];
  const deletions = {
    listOpen: async () => open,
    setStatus: async () => {},
    tombstones: async () => ({ serviceIds: [], version: 1 }),
    markTombstone: async () => {},
    clearTombstone: async () => {},
    savedPass: async () => undefined,
    savePass: async () => {},
    clearPass: async () => {},
  } as unknown as DeletionStore;
  const nothing = async () => undefined;
  const adapters = {
    tables: {
      deletions,
      installs: { get: everyInstallStored.get, delete: nothing },
      customerUsers: { deleteInstall: nothing },
      attributions: { get: nothing, delete: nothing },
      outbox: { purgeInstall: async () => 0 },
      deliveryLog: { purgeInstall: async () => 0 },
    },
    lakePurger: {
      purgeInstalls: async (appId: string) => {
        passes.push(appId);
        // The first app's pass takes a minute and a half.
        clockMs += 90_000;
        return { filesRewritten: 0 };
      },
    },
    flushLake: nothing,
    settings: { minRequestAgeMs: 0 },
  } as unknown as Adapters<typeof purgeJob.row.uses>;
  const job = purgeJob.compose(adapters, { kind } as Runtime);
  return { job, passes, elapsed: () => clockMs };
};

describe("the purge job", () => {
  it("on AWS, takes up no further app within its margin of the function's timeout", async () => {
    const { job, passes, elapsed } = composed("aws");
    // Three minutes left at the start: after the first pass, a minute and a half.
    const remainingMs = () => 180_000 - elapsed();
    expect(await job.run({ remainingMs })).toEqual({ completed: 1, deferred: 1 });
    expect(passes).toEqual(["com.a"]);
  });

  it("takes up every app with time enough, and embedded, where runs have no timeout", async () => {
    const aws = composed("aws");
    expect(await aws.job.run({ remainingMs: () => 540_000 - aws.elapsed() })).toEqual({
      completed: 2,
      deferred: 0,
    });
    const embedded = composed("embedded");
    expect(await embedded.job.run()).toEqual({ completed: 2, deferred: 0 });
    expect(embedded.passes).toEqual(["com.a", "com.b"]);
  });
});

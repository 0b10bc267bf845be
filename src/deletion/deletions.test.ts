import { describe, expect, it } from "vitest";
import { everyInstallStored } from "../../test/support/installs.ts";
import {
  type DeletionRequest,
  type DeletionStore,
  PASS_INSTALLS_AT_MOST,
  type SavedPass,
} from "../ports/deletions.ts";
import type { LakePass } from "../ports/lake.ts";
import { deletionRequestId, purgeOpenRequests, requestDeletion } from "./deletions.ts";

/** A deletion request for an install the app stored. */
const requestOf = (deletions: DeletionStore, appId: string, serviceId: string, at?: Date) =>
  requestDeletion(appId, serviceId, { deletions, installs: everyInstallStored }, at);

// In-memory ports: the flow under test decides what is called, in which order, and when.
const memoryDeletions = () => {
  const requests = new Map<string, DeletionRequest>();
  /** Each tombstone marked: its request, and whether the version was to move. */
  const marked: string[] = [];
  const moves: boolean[] = [];
  const tombstones = new Set<string>();
  const passes = new Map<string, SavedPass>();
  const store: DeletionStore & { marked: string[]; moves: boolean[] } = {
    marked,
    moves,
    savedPass: async (appId) => passes.get(appId),
    savePass: async (appId, pass) => void passes.set(appId, pass),
    clearPass: async (appId) => void passes.delete(appId),
    markTombstone: async (r, options) => {
      if (r.status !== "pending") return;
      marked.push(r.requestId);
      moves.push(options?.moveVersion ?? true);
      tombstones.add(r.serviceId);
    },
    clearTombstone: async (r) => void tombstones.delete(r.serviceId),
    tombstones: async () => ({ serviceIds: [...tombstones], version: 0 }),
    create: async (r) => {
      if (requests.has(r.requestId)) return false;
      requests.set(r.requestId, r);
      tombstones.add(r.serviceId);
      return true;
    },
    get: async (id) => requests.get(id),
    listByApp: async (appId) => [...requests.values()].filter((r) => r.appId === appId),
    listByInstall: async (appId, serviceId) =>
      [...requests.values()].filter((r) => r.appId === appId && r.serviceId === serviceId),
    listOpen: async () => [...requests.values()].filter((r) => r.status !== "completed"),
    setStatus: async (id, status, at) => {
      const found = requests.get(id);
      if (found) {
        requests.set(id, { ...found, status, completedAt: status === "completed" ? at : null });
      }
    },
  };
  return store;
};

const noopStores = {
  attributions: { get: async () => undefined, delete: async () => undefined },
  claims: { releaseClaim: async () => undefined },
  outbox: { purgeInstall: async () => 0 },
  deliveryLog: { purgeInstall: async () => 0 },
  // Every request's install stored, so each has a lake pass to make.
  installs: {
    putIfAbsent: async () => ({ install: undefined as never, created: false }),
    get: everyInstallStored.get,
    update: async () => undefined,
    delete: async () => undefined,
  },
  customerUsers: {
    put: async (_appId: string, _customerUserId: string, serviceId: string, seenAt: string) => ({
      serviceId,
      seenAt,
    }),
    get: async () => undefined,
    otherInstalls: async () => [],
    deleteInstall: async () => undefined,
  },
  flush: async () => undefined,
};

const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 10, minute));

describe("deletion requests", () => {
  it("store one request of two calls at once, answered to both", async () => {
    const deletions = memoryDeletions();
    const [first, second] = await Promise.all([
      requestOf(deletions, "com.a", "s1"),
      requestOf(deletions, "com.a", "s1"),
    ]);
    expect(second.request_id).toBe(first.request_id);
    expect(await deletions.listByInstall("com.a", "s1")).toHaveLength(1);
    // The call that found its request made meanwhile adds the tombstone again, as a repeat does.
    expect(deletions.marked).toEqual([first.request_id]);
  });

  it("answer the open request when the install's list is behind, and make the next once it is completed", async () => {
    const deletions = memoryDeletions();
    // An index that has not seen the install's requests yet.
    const behind = { ...deletions, listByInstall: async () => [] };
    const first = await requestOf(behind, "com.a", "s1");
    expect((await requestOf(behind, "com.a", "s1")).request_id).toBe(first.request_id);
    await deletions.setStatus(first.request_id, "completed", at(5).toISOString());
    const next = await requestOf(behind, "com.a", "s1");
    expect(next.request_id).not.toBe(first.request_id);
    expect(next.status).toBe("pending");
    expect(await deletions.listByInstall("com.a", "s1")).toHaveLength(2);
    // An index that still lists a completed request as open: the request as stored decides,
    // and its tombstone, taken out when it was completed, is not marked again.
    await deletions.setStatus(next.request_id, "completed", at(6).toISOString());
    const stale = {
      ...deletions,
      listByInstall: async (appId: string, serviceId: string) =>
        (await deletions.listByInstall(appId, serviceId)).map((r) => ({
          ...r,
          status: "pending" as const,
          completedAt: null,
        })),
    };
    const marked = deletions.marked.length;
    const third = await requestOf(stale, "com.a", "s1");
    expect([first.request_id, next.request_id]).not.toContain(third.request_id);
    expect(deletions.marked).toHaveLength(marked);
  });

  it("name each request with a version 8 UUID of its app, install and number", () => {
    const id = deletionRequestId("com.a", "s1", 0);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(deletionRequestId("com.a", "s1", 0)).toBe(id);
    expect(
      new Set([
        id,
        deletionRequestId("com.a", "s1", 1),
        deletionRequestId("com.a", "s2", 0),
        deletionRequestId("com.b", "s1", 0),
      ]).size,
    ).toBe(4);
  });

  it("answer a repeat with the open request instead of making another", async () => {
    const deletions = memoryDeletions();
    const first = await requestOf(deletions, "com.a", "s1");
    const again = await requestOf(deletions, "com.a", "s1");
    const other = await requestOf(deletions, "com.a", "s2");
    expect(again.request_id).toBe(first.request_id);
    expect(other.request_id).not.toBe(first.request_id);
    expect(await deletions.listByApp("com.a")).toHaveLength(2);
    // The repeat adds the tombstone again, in case the first call failed before it had.
    expect(deletions.marked).toEqual([first.request_id]);
    expect(deletions.moves).toEqual([true]);
    // Taken up by the purge, which marked it then: the repeat answers it, and leaves its
    // tombstone to the purge, which may be taking it out.
    await deletions.setStatus(first.request_id, "in_progress", "2026-11-01T00:00:00.000Z");
    expect((await requestOf(deletions, "com.a", "s1")).status).toBe("in_progress");
    expect(deletions.marked).toEqual([first.request_id]);
    // A pending request of an install never stored moves nothing.
    const none = { get: async () => undefined };
    await requestDeletion("com.a", "s9", { deletions, installs: none });
    await requestDeletion("com.a", "s9", { deletions, installs: none });
    expect(deletions.moves.at(-1)).toBe(false);
  });

  it("answer a repeat with the install's open request, not with one completed before it", async () => {
    const deletions = memoryDeletions();
    const first = await requestOf(deletions, "com.a", "s1");
    await deletions.setStatus(first.request_id, "completed", "2026-11-01T00:00:00.000Z");
    const second = await requestOf(deletions, "com.a", "s1");
    expect(second.request_id).not.toBe(first.request_id);
    expect((await requestOf(deletions, "com.a", "s1")).request_id).toBe(second.request_id);
    expect(await deletions.listByInstall("com.a", "s1")).toHaveLength(2);
  });

  it("are purged one by one: a failing one stays open and holds back no other", async () => {
    const deletions = memoryDeletions();
    const failing = await requestOf(deletions, "com.a", "broken", at(1));
    const fine = await requestOf(deletions, "com.a", "fine", at(2));
    const purged: string[][] = [];
    const run = purgeOpenRequests({
      ...noopStores,
      deletions,
      installs: {
        ...noopStores.installs,
        delete: async (_appId, serviceId) => {
          if (serviceId === "broken") throw new Error("throttled");
        },
      },
      lake: {
        purgeInstalls: async (_appId, serviceIds) => {
          purged.push([...serviceIds]);
          return { filesRewritten: 1 };
        },
      },
    });
    // The message names the request and its cause: a log line of the error shows it alone.
    await expect(run).rejects.toThrow(`1 of 2 deletions failed (${failing.request_id}: throttled)`);
    expect(purged).toEqual([["fine"]]);
    // Alone, it makes no pass over the app's files: there is no install to take out of them.
    await expect(
      purgeOpenRequests({
        ...noopStores,
        deletions,
        installs: {
          ...noopStores.installs,
          delete: async () => {
            throw new Error("throttled");
          },
        },
        lake: {
          purgeInstalls: async (_appId, serviceIds) => {
            purged.push([...serviceIds]);
            return { filesRewritten: 1 };
          },
        },
      }),
    ).rejects.toThrow(`1 of 1 deletions failed (${failing.request_id}: throttled)`);
    expect(purged).toEqual([["fine"]]);
    // The tombstones keep the open requests only; a completed one is found by app.
    expect((await deletions.tombstones("com.a")).serviceIds).toEqual(["broken"]);
    expect((await deletions.get(fine.request_id))?.status).toBe("completed");
    expect((await deletions.get(failing.request_id))?.status).toBe("in_progress");
    expect((await deletions.listOpen()).map((r) => r.serviceId)).toEqual(["broken"]);
  });

  it("take out every trace of the install: itself, its user's mapping, its claim on its click, attribution, sends and their records", async () => {
    const deletions = memoryDeletions();
    await requestOf(deletions, "com.a", "won", at(1));
    await requestOf(deletions, "com.a", "waiting", at(2));
    const calls: string[] = [];
    const record = (what: string) => async (appId: string, serviceId: string) => {
      calls.push(`${what} ${appId}/${serviceId}`);
      return 0;
    };
    const resolved = { clickId: "c-1", touchTime: "2026-11-01T09:00:00.000Z" };
    await purgeOpenRequests({
      ...noopStores,
      deletions,
      installs: {
        ...noopStores.installs,
        delete: async (a, s) => void (await record("install")(a, s)),
      },
      customerUsers: {
        ...noopStores.customerUsers,
        deleteInstall: async (a, s) => void (await record("user")(a, s)),
      },
      attributions: {
        // One install credited to a click; one whose matching is still pending.
        get: async (appId, serviceId) =>
          (serviceId === "won"
            ? { state: "resolved", appId, serviceId, result: resolved }
            : { state: "pending", appId, serviceId }) as never,
        delete: async (appId, serviceId) => void (await record("attribution")(appId, serviceId)),
      },
      claims: {
        releaseClaim: async (claim) =>
          void calls.push(
            `claim ${claim.appId}/${claim.serviceId} ${claim.clickId} ${claim.touchTime}`,
          ),
      },
      outbox: { purgeInstall: record("sends") },
      deliveryLog: { purgeInstall: record("records") },
      lake: { purgeInstalls: async () => ({ filesRewritten: 1 }) },
    });
    expect(calls).toEqual([
      "install com.a/won",
      "user com.a/won",
      `claim com.a/won c-1 ${resolved.touchTime}`,
      "attribution com.a/won",
      "sends com.a/won",
      "records com.a/won",
      "install com.a/waiting",
      "user com.a/waiting",
      "attribution com.a/waiting",
      "sends com.a/waiting",
      "records com.a/waiting",
    ]);
  });

  it("leave a request younger than the runtime's minimum age for a later run, and take one that old", async () => {
    const deletions = memoryDeletions();
    const old = await requestOf(deletions, "com.a", "old", at(0));
    const young = await requestOf(deletions, "com.a", "young", at(1));
    let flushed = 0;
    const run = () =>
      purgeOpenRequests({
        ...noopStores,
        deletions,
        flush: async () => void flushed++,
        lake: { purgeInstalls: async () => ({ filesRewritten: 1 }) },
        minAgeMs: 5 * 60_000,
        now: () => at(5),
      });
    expect(await run()).toEqual({ completed: 1, deferred: 0 });
    expect((await deletions.get(old.request_id))?.status).toBe("completed");
    expect((await deletions.get(young.request_id))?.status).toBe("pending");
    expect(flushed).toBe(1);
    // Nothing old enough: not even the streams are flushed.
    await run();
    expect(flushed).toBe(1);
  });

  it("leave an app's requests open when its lake pass fails, and go on with other apps", async () => {
    const deletions = memoryDeletions();
    const broken = await requestOf(deletions, "com.broken", "s1", at(1));
    const fine = await requestOf(deletions, "com.fine", "s2", at(2));
    const run = purgeOpenRequests({
      ...noopStores,
      deletions,
      lake: {
        purgeInstalls: async (appId) => {
          if (appId === "com.broken") throw new Error("unreadable file");
          return { filesRewritten: 1 };
        },
      },
    });
    await expect(run).rejects.toThrow(
      `1 of 2 deletions failed (${broken.request_id}: unreadable file)`,
    );
    expect((await deletions.get(fine.request_id))?.status).toBe("completed");
    expect((await deletions.get(broken.request_id))?.status).toBe("in_progress");
    expect((await deletions.tombstones("com.broken")).serviceIds).toEqual(["s1"]);
  });

  it("make no lake pass for a request whose install was never stored, and complete it", async () => {
    const deletions = memoryDeletions();
    const stored = new Set(["real"]);
    const installs = {
      get: async (appId: string, serviceId: string) =>
        stored.has(serviceId) ? everyInstallStored.get(appId, serviceId) : undefined,
    };
    for (const [serviceId, n] of [
      ["never-1", 1],
      ["never-2", 2],
    ] as const) {
      await requestDeletion("com.a", serviceId, { deletions, installs }, at(n));
    }
    const passes: string[][] = [];
    const lake = {
      purgeInstalls: async (_appId: string, serviceIds: readonly string[]) => {
        passes.push([...serviceIds]);
        return { filesRewritten: 0 };
      },
    };
    expect(
      await purgeOpenRequests({
        ...noopStores,
        installs: { ...noopStores.installs, ...installs },
        deletions,
        lake,
      }),
    ).toEqual({
      completed: 2,
      deferred: 0,
    });
    expect(passes).toEqual([]);
    // Beside a stored install's request, the pass names that install alone.
    await requestDeletion("com.a", "real", { deletions, installs }, at(3));
    await requestDeletion("com.a", "never-3", { deletions, installs }, at(4));
    await purgeOpenRequests({
      ...noopStores,
      installs: { ...noopStores.installs, ...installs },
      deletions,
      lake,
    });
    expect(passes).toEqual([["real"]]);
    // A request a run took up before is passed whatever: that run may have deleted its install.
    const taken = await requestDeletion("com.a", "never-4", { deletions, installs }, at(5));
    await deletions.setStatus(taken.request_id, "in_progress", at(6).toISOString());
    await purgeOpenRequests({
      ...noopStores,
      installs: { ...noopStores.installs, ...installs },
      deletions,
      lake,
    });
    expect(passes).toEqual([["real"], ["never-4"]]);
  });

  it("mark a request's tombstone as they take it up, for a call that failed after storing it", async () => {
    const deletions = memoryDeletions();
    const stored = new Set(["real"]);
    const installs = {
      get: async (appId: string, serviceId: string) =>
        stored.has(serviceId) ? everyInstallStored.get(appId, serviceId) : undefined,
    };
    const made = [
      await requestDeletion("com.a", "real", { deletions, installs }, at(1)),
      await requestDeletion("com.a", "never", { deletions, installs }, at(2)),
    ];
    // Stored, their tombstones never marked.
    for (const { request_id } of made) {
      const request = await deletions.get(request_id);
      if (request) await deletions.clearTombstone(request);
    }
    const heldWhenTaken: string[][] = [];
    await purgeOpenRequests({
      ...noopStores,
      installs: { ...noopStores.installs, ...installs },
      deletions: {
        ...deletions,
        setStatus: async (id, status, when) => {
          if (status === "in_progress") {
            heldWhenTaken.push([...(await deletions.tombstones("com.a")).serviceIds]);
          }
          await deletions.setStatus(id, status, when);
        },
      },
      lake: { purgeInstalls: async () => ({ filesRewritten: 1 }) },
    });
    expect(heldWhenTaken).toEqual([["real"], ["real", "never"]]);
    // The version moves for the install with data alone.
    expect(deletions.marked).toEqual(made.map((m) => m.request_id));
    expect(deletions.moves).toEqual([true, false]);
    expect((await deletions.tombstones("com.a")).serviceIds).toEqual([]);
  });

  it("purge an app's requests in one lake pass, an app at a time, the app of the oldest first", async () => {
    const deletions = memoryDeletions();
    await requestOf(deletions, "com.a", "a1", at(2));
    await requestOf(deletions, "com.b", "b1", at(1));
    await requestOf(deletions, "com.a", "a2", at(3));
    await requestOf(deletions, "com.b", "b2", at(4));
    const passes: [string, string[]][] = [];
    const outcome = await purgeOpenRequests({
      ...noopStores,
      deletions,
      lake: {
        purgeInstalls: async (appId, serviceIds) => {
          passes.push([appId, [...serviceIds]]);
          return { filesRewritten: 0 };
        },
      },
    });
    expect(outcome).toEqual({ completed: 4, deferred: 0 });
    expect(passes).toEqual([
      ["com.b", ["b1", "b2"]],
      ["com.a", ["a1", "a2"]],
    ]);
    expect(await deletions.listOpen()).toEqual([]);
  });

  it("take up apps a run took up before after the others, so that one cannot hold them back", async () => {
    const deletions = memoryDeletions();
    const stuck = await requestOf(deletions, "com.stuck", "s1", at(1));
    await requestOf(deletions, "com.new", "n1", at(2));
    // One of its requests taken up is enough, beside another it has not.
    await requestOf(deletions, "com.stuck", "s2", at(4));
    // A run took it up and was stopped (its timeout) or failed before completing it.
    await deletions.setStatus(stuck.request_id, "in_progress", at(3).toISOString());
    const passes: string[] = [];
    await purgeOpenRequests({
      ...noopStores,
      deletions,
      lake: {
        purgeInstalls: async (appId) => {
          passes.push(appId);
          return { filesRewritten: 0 };
        },
      },
    });
    expect(passes).toEqual(["com.new", "com.stuck"]);
  });

  it("take up no further app once the run's time is out, leaving it open for a later run", async () => {
    const deletions = memoryDeletions();
    const first = await requestOf(deletions, "com.a", "a1", at(1));
    const second = await requestOf(deletions, "com.b", "b1", at(2));
    let clock = 1_000;
    const lake = {
      purgeInstalls: async () => {
        // The first app's pass takes the rest of the run's time.
        clock = 0;
        return { filesRewritten: 1 };
      },
    };
    const outcome = await purgeOpenRequests({
      ...noopStores,
      deletions,
      lake,
      remainingMs: () => clock,
    });
    expect(outcome).toEqual({ completed: 1, deferred: 1 });
    expect((await deletions.get(first.request_id))?.status).toBe("completed");
    // Not taken up: still pending, and still left out of exports.
    expect((await deletions.get(second.request_id))?.status).toBe("pending");
    expect((await deletions.tombstones("com.b")).serviceIds).toEqual(["b1"]);

    clock = 1_000;
    expect(
      await purgeOpenRequests({ ...noopStores, deletions, lake, remainingMs: () => clock }),
    ).toEqual({ completed: 1, deferred: 0 });
    expect((await deletions.get(second.request_id))?.status).toBe("completed");
    expect(await deletions.listOpen()).toEqual([]);
  });

  it("leave an app's requests open when its saved pass cannot be read, and say what is left for the next run", async () => {
    const deletions = memoryDeletions();
    const unread = await requestOf(deletions, "com.a", "a1", at(1));
    const done = await requestOf(deletions, "com.b", "b1", at(2));
    const left = await requestOf(deletions, "com.c", "c1", at(3));
    let clock = 1_000;
    const purged: string[] = [];
    const run = purgeOpenRequests({
      ...noopStores,
      deletions: {
        ...deletions,
        savedPass: async (appId) => {
          if (appId === "com.a") throw new Error("unreadable pass");
          return deletions.savedPass(appId);
        },
      },
      lake: {
        purgeInstalls: async (appId) => {
          purged.push(appId);
          // The second app's pass takes the rest of the run's time.
          clock = 0;
          return { filesRewritten: 1 };
        },
      },
      remainingMs: () => clock,
    });
    await expect(run).rejects.toThrow(
      `1 of 2 deletions failed (${unread.request_id}: unreadable pass); 1 left for the next run`,
    );
    expect(purged).toEqual(["com.b"]);
    expect((await deletions.get(unread.request_id))?.status).toBe("pending");
    expect((await deletions.get(done.request_id))?.status).toBe("completed");
    expect((await deletions.get(left.request_id))?.status).toBe("pending");
  });

  it("stay open while the install's tombstone could not be taken out, to be tried again", async () => {
    const deletions = memoryDeletions();
    const request = await requestOf(deletions, "com.a", "s1");
    const run = purgeOpenRequests({
      ...noopStores,
      deletions: {
        ...deletions,
        clearTombstone: async () => {
          throw new Error("throttled");
        },
      },
      lake: { purgeInstalls: async () => ({ filesRewritten: 1 }) },
    });
    await expect(run).rejects.toThrow(/1 of 1 deletions failed/);
    expect((await deletions.get(request.request_id))?.status).toBe("in_progress");
    expect((await deletions.tombstones("com.a")).serviceIds).toEqual(["s1"]);
  });

  describe("on a runtime whose runs stop at a timeout", () => {
    /**
     * A lake whose pass over an app takes `keys` keys, one at a time while `goOn` lets it: it
     * answers where it stopped, and goes on from there.
     */
    const slowLake = (keys: number) => {
      const passes: { appId: string; serviceIds: string[]; from: string | undefined }[] = [];
      const lake = {
        passes,
        purgeInstalls: async (
          appId: string,
          serviceIds: readonly string[],
          _cleanFrom: number,
          pass?: LakePass,
        ) => {
          passes.push({ appId, serviceIds: [...serviceIds], from: pass?.from });
          let at = pass?.from === undefined ? 0 : Number(pass.from);
          do at += 1;
          while (at < keys && (pass?.goOn() ?? true));
          return at < keys ? { filesRewritten: 1, stoppedAt: String(at) } : { filesRewritten: 1 };
        },
      };
      return lake;
    };

    it("save a pass out of time, and complete its requests, only them, when the next run ends it", async () => {
      const deletions = memoryDeletions();
      const a1 = await requestOf(deletions, "com.a", "a1", at(1));
      const a2 = await requestOf(deletions, "com.a", "a2", at(2));
      const lake = slowLake(5);
      let clock = 0;
      const run = () =>
        purgeOpenRequests({ ...noopStores, deletions, lake, remainingMs: () => clock });

      // Out of time from the start: the pass gets one key on, and is saved where it stopped.
      expect(await run()).toEqual({ completed: 0, deferred: 2 });
      expect(await deletions.savedPass("com.a")).toEqual({
        serviceIds: ["a1", "a2"],
        position: "1",
      });
      for (const request of [a1, a2]) {
        expect((await deletions.get(request.request_id))?.status).toBe("in_progress");
      }
      expect((await deletions.tombstones("com.a")).serviceIds).toEqual(["a1", "a2"]);

      // Made between the runs: it waits for the pass after this one.
      const a3 = await requestOf(deletions, "com.a", "a3", at(3));
      clock = 1_000;
      expect(await run()).toEqual({ completed: 2, deferred: 1 });
      expect(lake.passes.slice(1)).toEqual([
        { appId: "com.a", serviceIds: ["a1", "a2"], from: "1" },
      ]);
      expect(await deletions.savedPass("com.a")).toBeUndefined();
      for (const request of [a1, a2]) {
        expect((await deletions.get(request.request_id))?.status).toBe("completed");
      }
      expect((await deletions.get(a3.request_id))?.status).toBe("pending");
      expect((await deletions.tombstones("com.a")).serviceIds).toEqual(["a3"]);

      // The next run starts a pass of its own.
      expect(await run()).toEqual({ completed: 1, deferred: 0 });
      expect(lake.passes.slice(2)).toEqual([
        { appId: "com.a", serviceIds: ["a3"], from: undefined },
      ]);
      expect(await deletions.listOpen()).toEqual([]);
    });

    it("go on with a saved pass over several runs, each from where the one before stopped", async () => {
      const deletions = memoryDeletions();
      await requestOf(deletions, "com.a", "a1", at(1));
      const lake = slowLake(7);
      // Each run's time lets its pass take two keys.
      const outcomes = [];
      for (let run = 0; run < 4; run++) {
        let left = 2;
        outcomes.push(
          await purgeOpenRequests({
            ...noopStores,
            deletions,
            lake,
            remainingMs: () => {
              left -= 1;
              return left;
            },
          }),
        );
      }
      expect(lake.passes.map((pass) => pass.from)).toEqual([undefined, "2", "4", "6"]);
      expect(outcomes.map((outcome) => outcome.completed)).toEqual([0, 0, 0, 1]);
      expect(await deletions.savedPass("com.a")).toBeUndefined();
    });

    it("take at most a pass's bound of installs, the oldest requests' first", async () => {
      const deletions = memoryDeletions();
      const count = PASS_INSTALLS_AT_MOST + 2;
      for (let i = 0; i < count; i++) {
        await requestOf(deletions, "com.a", `s${i}`, new Date(at(0).getTime() + i));
      }
      const lake = slowLake(1);
      const run = () =>
        purgeOpenRequests({ ...noopStores, deletions, lake, remainingMs: () => 1_000 });
      expect(await run()).toEqual({ completed: PASS_INSTALLS_AT_MOST, deferred: 2 });
      expect(lake.passes[0]?.serviceIds).toHaveLength(PASS_INSTALLS_AT_MOST);
      expect(lake.passes[0]?.serviceIds.at(-1)).toBe(`s${PASS_INSTALLS_AT_MOST - 1}`);
      expect(await run()).toEqual({ completed: 2, deferred: 0 });
      expect(lake.passes[1]?.serviceIds).toEqual([
        `s${PASS_INSTALLS_AT_MOST}`,
        `s${PASS_INSTALLS_AT_MOST + 1}`,
      ]);
    });

    it("keep a saved pass and its requests open when the pass fails", async () => {
      const deletions = memoryDeletions();
      const a1 = await requestOf(deletions, "com.a", "a1", at(1));
      await deletions.savePass("com.a", { serviceIds: ["a1"], position: "3" });
      const run = purgeOpenRequests({
        ...noopStores,
        deletions,
        lake: {
          purgeInstalls: async () => {
            throw new Error("unreadable file");
          },
        },
        remainingMs: () => 1_000,
      });
      await expect(run).rejects.toThrow(
        `1 of 1 deletions failed (${a1.request_id}: unreadable file)`,
      );
      expect(await deletions.savedPass("com.a")).toEqual({ serviceIds: ["a1"], position: "3" });
      expect((await deletions.get(a1.request_id))?.status).toBe("in_progress");
    });

    it("drop a saved pass none of whose requests is open, and start one afresh", async () => {
      const deletions = memoryDeletions();
      await deletions.savePass("com.a", { serviceIds: ["gone-before"], position: "3" });
      const a1 = await requestOf(deletions, "com.a", "a1", at(1));
      const lake = slowLake(1);
      expect(
        await purgeOpenRequests({ ...noopStores, deletions, lake, remainingMs: () => 1_000 }),
      ).toEqual({ completed: 1, deferred: 0 });
      expect(lake.passes).toEqual([{ appId: "com.a", serviceIds: ["a1"], from: undefined }]);
      expect((await deletions.get(a1.request_id))?.status).toBe("completed");
      expect(await deletions.savedPass("com.a")).toBeUndefined();
    });
  });

  it("give the lake no pass to stop where runs have no timeout, and save none", async () => {
    const deletions = memoryDeletions();
    await requestOf(deletions, "com.a", "a1", at(1));
    const given: (LakePass | undefined)[] = [];
    const outcome = await purgeOpenRequests({
      ...noopStores,
      deletions: {
        ...deletions,
        savedPass: async () => {
          throw new Error("not on this runtime");
        },
      },
      lake: {
        purgeInstalls: async (_appId, _serviceIds, _cleanFrom, pass) => {
          given.push(pass);
          return { filesRewritten: 1 };
        },
      },
    });
    expect(outcome).toEqual({ completed: 1, deferred: 0 });
    expect(given).toEqual([undefined]);
  });
});

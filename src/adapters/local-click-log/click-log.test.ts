import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Touch } from "../../ports/touches.ts";
import {
  expectAnsweredAfterSync,
  holdSyncs,
  PATIENT,
} from "../local-disk/held-syncs.test-support.ts";
import { openLocalTouchStore } from "../local-touches/touch-store.ts";
import { createLocalClickLog, type LocalClickLog, touchReadsAfter } from "./click-log.ts";

const click = (clickId: string): Touch => ({
  clickId,
  appId: "com.example.app",
  touchType: "click",
  source: "link",
  touchTime: "2026-11-29T10:00:00.000Z",
  receivedAt: "2026-11-29T10:00:00.000Z",
  deeplinkId: "Kx3v9QpZ2aQ",
  mediaSource: "meta_ads",
  campaignId: null,
  campaignName: null,
  adsetId: null,
  adsetName: null,
  adId: null,
  adName: null,
  networkClickId: null,
  ip: "203.0.113.7",
  userAgent: null,
  platform: "android",
  osVersion: null,
  deviceModel: null,
  language: null,
  country: null,
  maid: null,
  params: {},
  urlParams: {},
  cost: null,
});

/**
 * The logs a test stops as `kill -9` would: never closed. They stay referenced for the worker's
 * life, so that no garbage collection closes their open file, which Node 25 makes a fatal error.
 */
const killed: LocalClickLog[] = [];

/** An `apply` that records what it got, and can be held or made to fail. */
const recorder = () => {
  const got: Touch[][] = [];
  let failures = 0;
  let hold: Promise<void> | undefined;
  return {
    got,
    ids: () => got.flat().map((c) => c.clickId),
    failNext(times: number) {
      failures = times;
    },
    holdUntil(released: Promise<void>) {
      hold = released;
    },
    apply: async (clicks: readonly Touch[]) => {
      if (hold) await hold;
      if (failures > 0) {
        failures -= 1;
        throw new Error("store down");
      }
      got.push([...clicks]);
    },
  };
};

describe("the embedded click log", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "click-log-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const logLines = async () => {
    const lines: string[] = [];
    for (const name of (await readdir(dir)).filter((n) => n.endsWith(".ndjson"))) {
      lines.push(...(await readFile(join(dir, name), "utf8")).split("\n").filter(Boolean));
    }
    return lines.map((line) => (JSON.parse(line) as Touch).clickId);
  };

  it("holds a click on disk before the append resolves, and applies it after", async () => {
    const store = recorder();
    let release: () => void = () => undefined;
    store.holdUntil(new Promise<void>((resolve) => (release = resolve)));
    const log = await createLocalClickLog({ dir, apply: store.apply });
    await log.append(click("c1"));
    expect(await logLines()).toEqual(["c1"]);
    expect(store.ids()).toEqual([]);
    release();
    await log.applied();
    expect(store.ids()).toEqual(["c1"]);
    await log.close();
    // Applied and closed: nothing is left to apply again.
    expect(await logLines()).toEqual([]);
  });

  it("answers `applied()` at once when every click is applied, as each lookup asks it", async () => {
    const store = recorder();
    const log = await createLocalClickLog({ dir, apply: store.apply });
    await log.applied();
    await log.append(click("c1"));
    await log.applied();
    // Nothing new since: no click to wait for, however often it is asked.
    for (let i = 0; i < 3; i++) await log.applied();
    expect(store.ids()).toEqual(["c1"]);
    await log.close();
  });

  it("starts a new file once one is full, and deletes each full one once applied", async () => {
    const store = recorder();
    // A click's line is a few hundred bytes: a file of one click each.
    const log = await createLocalClickLog({ dir, apply: store.apply, fileBytes: 100 });
    for (const id of ["c1", "c2", "c3"]) await log.append(click(id));
    await log.applied();
    expect(store.ids()).toEqual(["c1", "c2", "c3"]);
    // Not only at close: a log that runs for months keeps only what is not applied yet.
    await vi.waitFor(async () => expect(await logLines()).toEqual([]), PATIENT);
    await log.close();
  });

  it("answers an append only once its group's write is synced to the disk", async () => {
    const syncs = await holdSyncs("datasync", dir);
    try {
      const log = await createLocalClickLog({ dir, apply: recorder().apply });
      await expectAnsweredAfterSync(syncs, log.append(click("c1")));
      syncs.restore();
      await log.close();
    } finally {
      syncs.restore();
    }
  });

  it("applies what was appended before `applied()` while taps keep coming during every sync", async () => {
    const syncs = await holdSyncs("datasync", dir);
    try {
      const store = recorder();
      const log = await createLocalClickLog({ dir, apply: store.apply });
      void log.append(click("c0"));
      await vi.waitFor(() => expect(syncs.calls()).toBe(1), PATIENT);
      // During the first group's sync: a tap, and a lookup that must find it.
      void log.append(click("c1"));
      let found = false;
      void log.applied().then(() => {
        found = true;
      });
      // A tap during every later sync too: the log is never quiet.
      for (let group = 2; group <= 6; group++) {
        syncs.releaseOne();
        await vi.waitFor(() => expect(syncs.calls()).toBe(group), PATIENT);
        void log.append(click(`c${group}`));
      }
      await vi.waitFor(() => expect(found).toBe(true), PATIENT);
      expect(store.ids().slice(0, 2)).toEqual(["c0", "c1"]);
      syncs.restore();
      await log.close();
      expect(store.ids()).toEqual(["c0", "c1", "c2", "c3", "c4", "c5", "c6"]);
    } finally {
      syncs.restore();
    }
  });

  it("applies the clicks appended together in batches, each once, in order", async () => {
    const store = recorder();
    let release: () => void = () => undefined;
    store.holdUntil(new Promise<void>((resolve) => (release = resolve)));
    const log = await createLocalClickLog({ dir, apply: store.apply, applyBatch: 40 });
    const ids = Array.from({ length: 100 }, (_, n) => `c${n}`);
    await Promise.all(ids.map((id) => log.append(click(id))));
    release();
    await log.applied();
    expect(store.ids()).toEqual(ids);
    expect(store.got.length).toBeLessThan(ids.length);
    expect(Math.max(...store.got.map((batch) => batch.length))).toBeLessThanOrEqual(40);
    await log.close();
  });

  it("lets clicks synced during a batch's write wait for their own delay, not a batch of their own", async () => {
    const store = recorder();
    let release: () => void = () => undefined;
    store.holdUntil(new Promise<void>((resolve) => (release = resolve)));
    const log = await createLocalClickLog({
      dir,
      apply: store.apply,
      applyBatch: 3,
      applyDelayMs: 60_000,
    });
    // A full batch is applied at once; a tap comes while it is written.
    await Promise.all(["c1", "c2", "c3"].map((id) => log.append(click(id))));
    await log.append(click("c4"));
    release();
    await vi.waitFor(() => expect(store.got.length).toBe(1), PATIENT);
    // Were the log to apply whatever it holds after each batch, c4 would follow alone now.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(store.got).toHaveLength(1);
    // A lookup does not wait for the delay.
    await log.applied();
    expect(store.got.map((batch) => batch.map((c) => c.clickId))).toEqual([
      ["c1", "c2", "c3"],
      ["c4"],
    ]);
    await log.close();
  });

  it("tries a failed apply again until it succeeds, losing nothing", async () => {
    const store = recorder();
    store.failNext(2);
    const log = await createLocalClickLog({ dir, apply: store.apply, retryDelayMs: 1 });
    await log.append(click("c1"));
    await log.append(click("c2"));
    await log.applied();
    expect(store.ids().sort()).toEqual(["c1", "c2"]);
    await log.close();
  });

  it("applies on open what a stopped process left, whole lines that parse only", async () => {
    const stuck = recorder();
    stuck.holdUntil(new Promise<void>(() => undefined));
    const first = await createLocalClickLog({ dir, apply: stuck.apply });
    killed.push(first);
    await first.append(click("c1"));
    await first.append(click("c2"));
    // As a crash leaves a file: a line half written, never acknowledged.
    await writeFile(
      join(dir, "1-1-0.ndjson"),
      `${JSON.stringify(click("c3"))}\n{"clickId":"c4","ap`,
    );
    // As a power cut may leave one: a whole line of zeros inside the file, never acknowledged.
    await writeFile(
      join(dir, "1-1-1.ndjson"),
      `${JSON.stringify(click("c6"))}\n${"\0".repeat(40)}\n${JSON.stringify(click("c7"))}\n`,
    );
    // And a count whose file is gone: a stop between the two removals.
    await writeFile(join(dir, "1-1-2.ndjson.applied"), "3");

    const store = recorder();
    const second = await createLocalClickLog({ dir, apply: store.apply });
    await second.applied();
    expect(store.ids().sort()).toEqual(["c1", "c2", "c3", "c6", "c7"]);
    expect((await readdir(dir)).filter((name) => name.startsWith("1-1-2"))).toEqual([]);
    await second.append(click("c5"));
    await second.applied();
    expect(store.ids()).toContain("c5");
    await second.close();
    expect(await logLines()).toEqual([]);
  });

  it("applies on open the files a stop left in the order they were made", async () => {
    const line = (id: string) => `${JSON.stringify(click(id))}\n`;
    // Process 10 made its file after process 9's, and file 10 after file 9 of one millisecond.
    await writeFile(join(dir, "10-100-0.ndjson"), line("c3"));
    await writeFile(join(dir, "9-20-0.ndjson"), line("c1"));
    await writeFile(join(dir, "10-100-10.ndjson"), line("c5"));
    await writeFile(join(dir, "10-100-9.ndjson"), line("c4"));
    await writeFile(join(dir, "9-21-0.ndjson"), line("c2"));
    const store = recorder();
    const log = await createLocalClickLog({ dir, apply: store.apply });
    await log.applied();
    expect(store.ids()).toEqual(["c1", "c2", "c3", "c4", "c5"]);
    await log.close();
  });

  it("counts a line that does not parse among the applied, so that a restart applies nothing twice", async () => {
    const line = (id: string) => `${JSON.stringify(click(id))}\n`;
    const file = join(dir, "1-1-0.ndjson");
    await writeFile(
      file,
      `${line("c1")}{"clickId":"torn in a power cut\n${line("c2")}${line("c3")}`,
    );
    const first: string[] = [];
    await createLocalClickLog({
      dir,
      applyBatch: 2,
      apply: async (clicks) => {
        // The first batch is applied; the process stops during the second.
        if (first.length > 0) await new Promise<void>(() => undefined);
        first.push(...clicks.map((c) => c.clickId));
      },
    });
    await vi.waitFor(
      async () => expect(await readFile(`${file}.applied`, "utf8")).toBe("3"),
      PATIENT,
    );
    expect(first).toEqual(["c1", "c2"]);

    const store = recorder();
    const second = await createLocalClickLog({ dir, apply: store.apply });
    await second.applied();
    expect(store.ids()).toEqual(["c3"]);
    await second.close();
  });

  it("closes while the stores are down, leaving their clicks to the next start, and takes no tap after", async () => {
    const down = recorder();
    down.failNext(Number.POSITIVE_INFINITY);
    const log = await createLocalClickLog({ dir, apply: down.apply, retryDelayMs: 1 });
    await log.append(click("c1"));
    const closed = log.close();
    await expect(log.append(click("c2"))).rejects.toThrow("closed");
    await closed;
    expect(await logLines()).toEqual(["c1"]);

    const store = recorder();
    const next = await createLocalClickLog({ dir, apply: store.apply });
    await next.applied();
    expect(store.ids()).toEqual(["c1"]);
    await next.close();
  });

  it("closes without waiting out a failed apply's pause", async () => {
    let tries = 0;
    const log = await createLocalClickLog({
      dir,
      retryDelayMs: 10 * 60_000,
      apply: async () => {
        tries += 1;
        throw new Error("store down");
      },
    });
    await log.append(click("c1"));
    void log.applied();
    await vi.waitFor(() => expect(tries).toBe(1), PATIENT);
    // Ten minutes' pause under way: the stop wakes it, tries again, and leaves c1.
    await log.close();
    expect(tries).toBeGreaterThan(1);
    expect(await logLines()).toEqual(["c1"]);
  });

  it("skips on open the clicks a stopped process had applied", async () => {
    const first = recorder();
    const log = await createLocalClickLog({ dir, apply: first.apply });
    killed.push(log);
    await log.append(click("c1"));
    await log.append(click("c2"));
    await log.applied();
    first.holdUntil(new Promise<void>(() => undefined));
    await log.append(click("c3"));

    const store = recorder();
    const second = await createLocalClickLog({ dir, apply: store.apply });
    await second.applied();
    expect(store.ids()).toEqual(["c3"]);
    await second.close();
  });

  it("lets matching find a click answered but not yet applied: each lookup waits for the log", async () => {
    const touches = await openLocalTouchStore(join(dir, "touches"));
    // Clicks wait a minute to be applied: only a lookup makes them due now.
    const log = await createLocalClickLog({
      dir: join(dir, "log"),
      apply: (clicks) => touches.put(clicks),
      applyDelayMs: 60_000,
    });
    try {
      const matching = touchReadsAfter(touches, log);
      const window = {
        appId: "com.example.app",
        from: new Date("2026-11-29T09:00:00.000Z"),
        to: new Date("2026-11-29T11:00:00.000Z"),
      };
      await log.append(click("c1"));
      // Answered, not in the store yet: a plain read misses it.
      expect(await touches.get("c1")).toBeUndefined();
      expect((await matching.get("c1"))?.clickId).toBe("c1");

      await log.append({ ...click("c2"), ip: "198.51.100.9" });
      expect(await touches.byIp("198.51.100.9", window)).toEqual([]);
      expect((await matching.byIp("198.51.100.9", window)).map((t) => t.clickId)).toEqual(["c2"]);

      await log.append({ ...click("c3"), maid: "3f1b2c4d-0000-4000-8000-00000000000a" });
      expect(
        (await matching.byMaid("3f1b2c4d-0000-4000-8000-00000000000a", window))[0]?.clickId,
      ).toBe("c3");
    } finally {
      await log.close();
      await touches.close();
    }
  });
});

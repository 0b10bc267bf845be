import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../domain/errors.ts";
import type { DeletionRequest } from "../ports/deletions.ts";
import type { LakeQueryEngine, SnapshotRef } from "../ports/lake.ts";
import type { ExportRecord } from "../record/columns.ts";
import { createExportPages, type ExportPageDeps } from "./export-page.ts";
import { collect, recordAt } from "./formats/fixtures.test-support.ts";
import { FORMATS } from "./formats/index.ts";
import { memoryCatalog } from "./memory-catalog.test-support.ts";

// A counting engine: the snapshot logic under test decides when it is asked to materialise.
const countingEngine = () => {
  const calls = { materialize: 0, pages: [] as [string, number, number][] };
  const engine: LakeQueryEngine = {
    async materialize({ snapshotId }) {
      calls.materialize += 1;
      await new Promise((r) => setTimeout(r, 5));
      return { location: snapshotId, rowCount: 25 };
    },
    async *readPage(snapshot, offset, limit) {
      calls.pages.push([snapshot.location, offset, limit]);
      yield* [] as ExportRecord[];
    },
  };
  return { engine, calls };
};

const noDeletions = {
  tombstones: async () => ({ serviceIds: [], version: 0 }),
  listByApp: async () => [],
};

describe("export pages", () => {
  it("takes a new snapshot for each first page; later pages slice the window's newest, and are refused once it expires", async () => {
    let now = 1_000_000;
    const { engine, calls } = countingEngine();
    const pages = createExportPages({
      engine,
      catalog: memoryCatalog(),
      deletions: noDeletions,
      snapshotTtlSeconds: 60,
      now: () => now,
    });
    const first = await pages.open({ appId: "a", since: 10, offset: 0, limit: 10 });
    const second = await pages.open({ appId: "a", since: 10, offset: 10, limit: 10 });
    expect(calls.materialize).toBe(1);
    expect(second.snapshot.snapshotId).toBe(first.snapshot.snapshotId);
    expect(first.snapshot.expiresAt).toBe(now + 60_000);

    await pages.open({ appId: "a", since: 11, offset: 0, limit: 10 });
    await pages.open({ appId: "b", since: 10, offset: 0, limit: 10 });
    expect(calls.materialize).toBe(3);

    // A new export of the same window sees the present: a snapshot of its own.
    const again = await pages.open({ appId: "a", since: 10, offset: 0, limit: 10 });
    expect(calls.materialize).toBe(4);
    expect(again.snapshot.snapshotId).not.toBe(first.snapshot.snapshotId);
    const next = await pages.open({ appId: "a", since: 10, offset: 10, limit: 10 });
    expect(next.snapshot.snapshotId).toBe(again.snapshot.snapshotId);

    // A later page with no snapshot of its window yet starts one.
    const unseen = await pages.open({ appId: "c", since: 10, offset: 10, limit: 10 });
    expect(calls.materialize).toBe(5);
    expect((await pages.open({ appId: "c", since: 10, offset: 20, limit: 10 })).snapshot).toEqual(
      unseen.snapshot,
    );

    // Past its time, a later page is refused rather than sliced from a new snapshot, whose
    // earlier events may have moved; a first page starts again.
    now += 60_000;
    await expect(pages.open({ appId: "a", since: 10, offset: 10, limit: 10 })).rejects.toThrow(
      /^offset: the snapshot .* has expired; start the export again at offset 0$/,
    );
    expect(calls.materialize).toBe(5);
    const restarted = await pages.open({ appId: "a", since: 10, offset: 0, limit: 10 });
    expect(calls.materialize).toBe(6);
    expect(restarted.snapshot.snapshotId).not.toBe(again.snapshot.snapshotId);
  });

  it("slices the snapshot a page names, whatever first pages came after it", async () => {
    const { engine } = countingEngine();
    const pages = createExportPages({
      engine,
      catalog: memoryCatalog(),
      deletions: noDeletions,
      snapshotTtlSeconds: 60,
    });
    const mine = (await pages.open({ appId: "a", since: 10, offset: 0, limit: 10 })).snapshot;
    const theirs = (await pages.open({ appId: "a", since: 10, offset: 0, limit: 10 })).snapshot;
    const pinned = { appId: "a", since: 10, offset: 10, limit: 10 };
    expect((await pages.open({ ...pinned, snapshotId: mine.snapshotId })).snapshot.snapshotId).toBe(
      mine.snapshotId,
    );
    expect((await pages.open(pinned)).snapshot.snapshotId).toBe(theirs.snapshotId);
  });

  it("refuses a named snapshot that is unknown, of another window or app, or expired", async () => {
    let now = 1_000_000;
    const pages = createExportPages({
      engine: countingEngine().engine,
      catalog: memoryCatalog(),
      deletions: noDeletions,
      snapshotTtlSeconds: 60,
      now: () => now,
    });
    const { snapshotId } = (await pages.open({ appId: "a", since: 10, offset: 0, limit: 10 }))
      .snapshot;
    const named = (appId: string, since: number, id = snapshotId) =>
      pages.open({ appId, since, offset: 10, limit: 10, snapshotId: id });
    await expect(named("a", 10, "00000000-0000-4000-8000-000000000000")).rejects.toThrow(
      ValidationError,
    );
    await expect(named("a", 11)).rejects.toThrow(/^snapshot: no snapshot/);
    await expect(named("b", 10)).rejects.toThrow(/^snapshot: no snapshot/);
    now += 60_000;
    await expect(named("a", 10)).rejects.toThrow(/^snapshot: .* has expired/);
  });

  it("shares one materialisation between concurrent first requests", async () => {
    const { engine, calls } = countingEngine();
    const pages = createExportPages({
      engine,
      catalog: memoryCatalog(),
      deletions: noDeletions,
      snapshotTtlSeconds: 60,
    });
    const opened = await Promise.all(
      [0, 10, 20].map((offset) => pages.open({ appId: "a", since: 1, offset, limit: 10 })),
    );
    expect(calls.materialize).toBe(1);
    expect(new Set(opened.map((p) => p.snapshot.snapshotId)).size).toBe(1);
  });

  it("shares none between first requests of other windows or apps, each snapshot its window's to the moment it was asked", async () => {
    const asked: { appId: string; since: number; until: number | undefined }[] = [];
    const { engine } = countingEngine();
    const pages = createExportPages({
      engine: {
        ...engine,
        materialize: (request) => {
          asked.push({
            appId: request.appId,
            since: request.since.getTime(),
            until: request.until?.getTime(),
          });
          return engine.materialize(request);
        },
      },
      catalog: memoryCatalog(),
      deletions: noDeletions,
      snapshotTtlSeconds: 60,
      now: () => 5_000_000,
    });
    const opened = await Promise.all(
      (
        [
          ["a", 1],
          ["a", 2],
          ["b", 1],
        ] as const
      ).map(([appId, since]) => pages.open({ appId, since, offset: 0, limit: 10 })),
    );
    expect(opened.map(({ snapshot }) => [snapshot.appId, snapshot.since])).toEqual([
      ["a", 1],
      ["a", 2],
      ["b", 1],
    ]);
    expect(asked).toEqual([
      { appId: "a", since: 1_000, until: 5_000_000 },
      { appId: "a", since: 2_000, until: 5_000_000 },
      { appId: "b", since: 1_000, until: 5_000_000 },
    ]);
  });

  it("slices the snapshot by offset and limit, and reads nothing past its end", async () => {
    const { engine, calls } = countingEngine();
    const pages = createExportPages({
      engine,
      catalog: memoryCatalog(),
      deletions: noDeletions,
      snapshotTtlSeconds: 60,
    });
    for (const offset of [20, 25]) {
      const page = await pages.open({ appId: "a", since: 1, offset, limit: 10 });
      await collect((await page.encode(FORMATS.ndjson)).body);
    }
    expect(calls.pages.map(([, offset, limit]) => [offset, limit])).toEqual([[20, 10]]);
  });
});

describe("encoding a page", () => {
  /** An engine whose pages say whether their query was closed, and which writes tsv itself. */
  const trackingEngine = () => {
    const queries: { closed: boolean }[] = [];
    const engine: LakeQueryEngine = {
      materialize: async ({ snapshotId }) => ({ location: snapshotId, rowCount: 100 }),
      async *readPage(_snapshot, offset, limit) {
        const query = { closed: false };
        queries.push(query);
        try {
          for (let i = offset; i < offset + limit; i++) yield recordAt(i);
        } finally {
          query.closed = true;
        }
      },
      encodePage: async (_snapshot, _offset, limit, encoding) =>
        encoding === "tsv"
          ? { body: Readable.from([Buffer.from(`${encoding} by the engine`)]), rowCount: limit }
          : undefined,
    };
    return { engine, queries };
  };
  const pagesOf = (engine: LakeQueryEngine) =>
    createExportPages({
      engine,
      catalog: memoryCatalog(),
      deletions: noDeletions,
      snapshotTtlSeconds: 60,
    });

  it("takes the engine's own bytes for a format it writes, and the writer's otherwise", async () => {
    const { engine, queries } = trackingEngine();
    const page = await pagesOf(engine).open({ appId: "a", since: 1, offset: 0, limit: 5 });
    const tsv = await page.encode(FORMATS.tsv);
    expect((await collect(tsv.body)).toString()).toBe("tsv by the engine");
    // The engine wrote the page, so its events are counted before its bytes are sent.
    expect(tsv.rowCount).toBe(5);
    expect(queries).toEqual([]);
    const xlsx = await page.encode(FORMATS.xlsx);
    expect((await collect(xlsx.body)).subarray(0, 2).toString()).toBe("PK");
    expect(xlsx.rowCount).toBeUndefined();
    expect(queries).toEqual([{ closed: true }]);
    // Through the writer, every row of the slice in order, the first one fetched to start too.
    const later = await pagesOf(engine).open({ appId: "a", since: 1, offset: 7, limit: 3 });
    const ndjson = await later.encode(FORMATS.ndjson);
    const lines = (await collect(ndjson.body)).toString().trim().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { event_id: string }).event_id)).toEqual([
      "evt-7",
      "evt-8",
      "evt-9",
    ]);
  });

  it("counts a page past the snapshot's end as empty before its bytes, asking the engine nothing", async () => {
    const { engine, queries } = trackingEngine();
    let encoded = 0;
    const counting: LakeQueryEngine = {
      ...engine,
      encodePage: async (...args) => {
        encoded += 1;
        return engine.encodePage?.(...args);
      },
    };
    const pages = pagesOf(counting);
    await pages.open({ appId: "a", since: 1, offset: 0, limit: 5 });
    const past = await pages.open({ appId: "a", since: 1, offset: 100, limit: 5 });
    const tsv = await past.encode(FORMATS.tsv);
    expect(tsv.rowCount).toBe(0);
    const xlsx = await past.encode(FORMATS.xlsx);
    expect(xlsx.rowCount).toBe(0);
    await collect(xlsx.body);
    expect(encoded).toBe(0);
    expect(queries).toEqual([]);
  });

  it("closes the query of a page whose body is dropped before it is read", async () => {
    const { engine, queries } = trackingEngine();
    const { encode } = await pagesOf(engine).open({ appId: "a", since: 1, offset: 0, limit: 50 });
    const { body } = await encode(FORMATS.xlsx);
    // Started before the status line, so a failing query could still answer 500.
    expect(queries).toEqual([{ closed: false }]);
    body.destroy();
    await expect.poll(() => queries[0]?.closed).toBe(true);
  });
});

/**
 * App "a"'s deletion requests as a store keeps them: the installs of the open ones and a
 * version that each new one moves on, and the list by app, which lags by `lag` requests.
 */
const deletionStore = () => {
  const open = new Set<string>();
  const requests: DeletionRequest[] = [];
  let version = 0;
  let reads = 0;
  let lag = 0;
  return {
    deletions: {
      tombstones: async () => {
        reads += 1;
        return { serviceIds: [...open], version };
      },
      listByApp: async () => requests.slice(0, requests.length - lag),
    },
    request(serviceId: string) {
      requests.push({
        requestId: `r-${serviceId}`,
        appId: "a",
        serviceId,
        status: "pending",
        requestedAt: "2026-11-01T10:00:00.000Z",
        completedAt: null,
      });
      open.add(serviceId);
      version += 1;
    },
    complete(serviceId: string) {
      open.delete(serviceId);
    },
    lagBy(requestsNotListed: number) {
      lag = requestsNotListed;
    },
    reads: () => reads,
  };
};

/** Export pages over a counting engine that records the installs each snapshot leaves out. */
const recordingPages = (
  deletions: ExportPageDeps["deletions"],
  now: () => number,
  duringMaterialize?: () => void,
) => {
  const excluded: (readonly string[] | undefined)[] = [];
  const { engine, calls } = countingEngine();
  const pages = createExportPages({
    engine: {
      ...engine,
      materialize: (request) => {
        excluded.push(request.excludeServiceIds);
        duringMaterialize?.();
        return engine.materialize(request);
      },
    },
    catalog: memoryCatalog(),
    deletions,
    snapshotTtlSeconds: 600,
    now,
  });
  return { pages, excluded, calls };
};

const page = (offset: number) => ({ appId: "a", since: 1, offset, limit: 10 });

/** A snapshot of app "a" from 1 that another instance made, good for ten minutes. */
const standing = (snapshotId: string, overrides: Partial<SnapshotRef>): SnapshotRef => ({
  appId: "a",
  since: 1,
  snapshotId,
  location: snapshotId,
  createdAt: Date.now(),
  expiresAt: Date.now() + 600_000,
  tombstoneVersion: 0,
  ...overrides,
});

describe("export pages after a deletion request", () => {
  it("make older snapshots stale at once and leave the deleted install out", async () => {
    const store = deletionStore();
    const { pages, excluded, calls } = recordingPages(store.deletions, () => 1_000_000);
    await pages.open(page(0));
    // The same instant on the clock: only the tombstones tell the snapshot is older. Its later
    // pages are refused (their offsets count rows the new snapshot no longer has).
    store.request("s-9");
    await expect(pages.open(page(10))).rejects.toThrow(
      /^offset: the snapshot .* was withdrawn by a deletion request made after it; start the export again at offset 0$/,
    );
    await pages.open(page(0));
    await pages.open(page(10));
    expect(calls.materialize).toBe(2);
    expect(excluded).toEqual([[], ["s-9"]]);
    expect(store.reads()).toBe(4);
  });

  it("make a snapshot again when a request comes while it is made", async () => {
    const store = deletionStore();
    let arriving: (() => void) | undefined = () => store.request("s-9");
    const { pages, excluded } = recordingPages(
      store.deletions,
      () => 1_000_000,
      () => {
        // Stored and acknowledged after this snapshot's tombstones were read.
        arriving?.();
        arriving = undefined;
      },
    );
    await pages.open(page(0));
    await expect(pages.open(page(10))).rejects.toThrow(/^offset: .* withdrawn by a deletion/);
    await pages.open(page(0));
    await pages.open(page(10));
    expect(excluded).toEqual([[], ["s-9"]]);
  });

  it("share no snapshot under way with a first page that read a newer request's tombstone", async () => {
    const store = deletionStore();
    let started: (() => void) | undefined;
    const begun = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { pages, excluded, calls } = recordingPages(
      store.deletions,
      () => 1_000_000,
      () => started?.(),
    );
    const before = pages.open(page(0));
    // The first page's snapshot is being made when a request is stored and another first page
    // of the same window comes: that one leaves the install out, in a snapshot of its own.
    await begun;
    store.request("s-9");
    const after = await pages.open(page(0));
    const first = await before;
    expect(calls.materialize).toBe(2);
    expect(after.snapshot.snapshotId).not.toBe(first.snapshot.snapshotId);
    expect(excluded).toEqual([[], ["s-9"]]);
  });

  it("leave out the installs of the newest requests, which the lagging list does not show yet", async () => {
    const store = deletionStore();
    store.request("s-1");
    store.request("s-2");
    store.lagBy(1);
    const { pages, excluded } = recordingPages(store.deletions, () => 1_000_000);
    await pages.open(page(0));
    expect(excluded).toEqual([["s-1", "s-2"]]);
  });

  it("keep leaving out a purged install, listed by app, whose late rows may have come", async () => {
    const store = deletionStore();
    store.request("s-1");
    const { pages, excluded } = recordingPages(store.deletions, () => 1_000_000);
    await pages.open(page(0));
    store.complete("s-1");
    store.request("s-2");
    await pages.open(page(0));
    expect(excluded).toEqual([["s-1"], ["s-2", "s-1"]]);
  });

  it("keep a snapshot made from newer tombstones than a page read", async () => {
    const catalog = memoryCatalog();
    const { engine, calls } = countingEngine();
    const pages = createExportPages({
      engine,
      catalog,
      deletions: noDeletions,
      snapshotTtlSeconds: 600,
    });
    // Another instance made this one after the request; this page read the store before it.
    await catalog.put(standing("newer", { tombstoneVersion: 1 }));
    expect((await pages.open(page(10))).snapshot.snapshotId).toBe("newer");
    expect(calls.materialize).toBe(0);
  });
});

describe("a named snapshot", () => {
  it("is refused once a deletion request made after it is stored", async () => {
    const store = deletionStore();
    const { pages } = recordingPages(store.deletions, () => 1_000_000);
    const { snapshotId } = (await pages.open(page(0))).snapshot;
    expect((await pages.open({ ...page(10), snapshotId })).snapshot.snapshotId).toBe(snapshotId);
    store.request("s-9");
    await expect(pages.open({ ...page(10), snapshotId })).rejects.toThrow(
      /^snapshot: .* withdrawn by a deletion request/,
    );
    // Without a name too; a first page comes from a new snapshot without the install.
    await expect(pages.open(page(10))).rejects.toThrow(/^offset: .* withdrawn by a deletion/);
    expect((await pages.open(page(0))).snapshot.snapshotId).not.toBe(snapshotId);
  });
});

import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { LakeQueryEngine, SnapshotCatalog, SnapshotRef } from "../ports/lake.ts";
import type { ExportRecord } from "../record/columns.ts";
import { createExportPages, type ExportPageDeps } from "./export-page.ts";
import { collect, recordAt } from "./formats/fixtures.test-support.ts";
import { FORMATS } from "./formats/index.ts";

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

const memoryCatalog = (): SnapshotCatalog => {
  const refs = new Map<string, SnapshotRef>();
  return {
    get: async (appId, since) => refs.get(`${appId}#${since}`),
    put: async (ref) => void refs.set(`${ref.appId}#${ref.since}`, ref),
    claim: async (ref, staleBefore) => {
      const key = `${ref.appId}#${ref.since}`;
      const standing = refs.get(key);
      if (standing && standing.expiresAt > ref.createdAt && standing.createdAt > staleBefore) {
        return standing;
      }
      refs.set(key, ref);
      return ref;
    },
  };
};

const noDeletions = { listByApp: async () => [], newestRequestAt: async () => undefined };

describe("export pages", () => {
  it("materialises once per app and timestamp while the snapshot is fresh", async () => {
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

    now += 60_000;
    const renewed = await pages.open({ appId: "a", since: 10, offset: 0, limit: 10 });
    expect(calls.materialize).toBe(4);
    expect(renewed.snapshot.snapshotId).not.toBe(first.snapshot.snapshotId);
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
      await collect(await page.encode(FORMATS.ndjson));
    }
    expect(calls.pages.map(([, offset, limit]) => [offset, limit])).toEqual([[20, 10]]);
  });
});

describe("encoding a page", () => {
  /** An engine whose pages say whether their query was closed, and which writes csv itself. */
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
      encodePage: async (_snapshot, _offset, limit, encoding) => ({
        body: Readable.from([Buffer.from(`${encoding} by the engine`)]),
        rowCount: limit,
      }),
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
    expect((await collect(await page.encode(FORMATS.csv))).toString()).toBe("csv by the engine");
    expect(queries).toEqual([]);
    const xml = (await collect(await page.encode(FORMATS.xml))).toString();
    expect(xml.match(/<event>/g)).toHaveLength(5);
    expect(queries).toEqual([{ closed: true }]);
  });

  it("closes the query of a page whose body is dropped before it is read", async () => {
    const { engine, queries } = trackingEngine();
    const { encode } = await pagesOf(engine).open({ appId: "a", since: 1, offset: 0, limit: 50 });
    const body = await encode(FORMATS.xlsx);
    // Started before the status line, so a failing query could still answer 500.
    expect(queries).toEqual([{ closed: false }]);
    body.destroy();
    await expect.poll(() => queries[0]?.closed).toBe(true);
  });
});

type Tombstone = { serviceId: string; requestedAt: string };

/** Deletion requests of app "a" for these installs, at these times. */
const asRequests = (tombstones: readonly Tombstone[]) =>
  tombstones.map((r, i) => ({
    ...r,
    requestId: `r${i}`,
    appId: "a",
    status: "pending" as const,
    completedAt: null,
  }));

const newestOf = (tombstones: readonly Tombstone[]) =>
  tombstones
    .map((r) => r.requestedAt)
    .sort()
    .at(-1);

/** Export pages over a counting engine that records the installs each snapshot leaves out. */
const recordingPages = (deletions: ExportPageDeps["deletions"], now: () => number) => {
  const excluded: (readonly string[] | undefined)[] = [];
  const { engine, calls } = countingEngine();
  const pages = createExportPages({
    engine: {
      ...engine,
      materialize: (request) => {
        excluded.push(request.excludeServiceIds);
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

describe("export pages after a deletion request", () => {
  it("make older snapshots stale at once and leave the deleted install out", async () => {
    let now = 1_000_000;
    const requests: Tombstone[] = [];
    let lists = 0;
    const { pages, excluded, calls } = recordingPages(
      {
        listByApp: async () => {
          lists += 1;
          return asRequests(requests);
        },
        newestRequestAt: async () => newestOf(requests),
      },
      () => now,
    );
    await pages.open({ appId: "a", since: 1, offset: 0, limit: 10 });
    now += 1_000;
    requests.push({ serviceId: "s-9", requestedAt: new Date(now).toISOString() });
    // Past the margin a snapshot must be made after a request to count as newer.
    now += 2_000;
    await pages.open({ appId: "a", since: 1, offset: 10, limit: 10 });
    await pages.open({ appId: "a", since: 1, offset: 20, limit: 10 });
    expect(calls.materialize).toBe(2);
    expect(excluded).toEqual([[], ["s-9"]]);
    // Every tombstone is read only to make a snapshot; a page of a good one reads the newest time.
    expect(lists).toBe(2);
  });

  it("wait for the list of tombstones to reach the newest request before making a snapshot", async () => {
    const listed: Tombstone[] = [
      { serviceId: "s-1", requestedAt: "2026-11-01T10:00:00.000Z" },
      { serviceId: "s-9", requestedAt: "2026-11-01T10:00:05.000Z" },
    ];
    // The index shows the newest request only after `lagReads` reads.
    let reads = 0;
    const lagging = (lagReads: number) =>
      recordingPages(
        {
          listByApp: async () => asRequests(listed.slice(0, ++reads > lagReads ? 2 : 1)),
          newestRequestAt: async () => newestOf(listed),
        },
        () => Date.parse("2026-11-01T10:01:00.000Z"),
      );
    const caughtUp = lagging(2);
    await caughtUp.pages.open({ appId: "a", since: 1, offset: 0, limit: 10 });
    expect(reads).toBe(3);
    expect(caughtUp.excluded).toEqual([["s-1", "s-9"]]);
    // An index that never catches up fails the page rather than leave the install in.
    reads = 0;
    const never = lagging(100);
    await expect(never.pages.open({ appId: "a", since: 1, offset: 0, limit: 10 })).rejects.toThrow(
      /not all listed yet/,
    );
    expect(never.excluded).toEqual([]);
  });

  it("count a snapshot as made when its page was asked, so a request made meanwhile stales it", async () => {
    let now = Date.parse("2026-11-01T10:00:00.000Z");
    const requests: Tombstone[] = [];
    let arriving: (() => void) | undefined = () => {
      now += 5_000;
      requests.push({ serviceId: "s-9", requestedAt: new Date(now).toISOString() });
    };
    const { pages, excluded } = recordingPages(
      {
        listByApp: async () => {
          const listed = asRequests(requests);
          // A request is made and acknowledged while this list is read: it is not in it.
          arriving?.();
          arriving = undefined;
          return listed;
        },
        newestRequestAt: async () => newestOf(requests),
      },
      () => now,
    );
    await pages.open({ appId: "a", since: 1, offset: 0, limit: 10 });
    now += 5_000;
    await pages.open({ appId: "a", since: 1, offset: 10, limit: 10 });
    expect(excluded).toEqual([[], ["s-9"]]);
  });

  it("count a snapshot made just after a request's time as older than it", async () => {
    // A request's time is taken before it is stored: here a snapshot is made in between.
    const requestedAt = Date.parse("2026-11-01T10:00:00.000Z");
    let now = requestedAt + 500;
    const stored: Tombstone[] = [];
    const { pages, excluded } = recordingPages(
      {
        listByApp: async () => asRequests(stored),
        newestRequestAt: async () => newestOf(stored),
      },
      () => now,
    );
    await pages.open({ appId: "a", since: 1, offset: 0, limit: 10 });
    stored.push({ serviceId: "s-9", requestedAt: new Date(requestedAt).toISOString() });
    now += 2_000;
    await pages.open({ appId: "a", since: 1, offset: 10, limit: 10 });
    expect(excluded).toEqual([[], ["s-9"]]);
  });
});

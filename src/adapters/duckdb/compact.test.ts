import { cp, mkdir, mkdtemp, readdir, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { lakeEvent } from "../../../test/support/records.ts";
import { EVENTS_TABLE } from "../../lake/lake-tables.ts";
import { createLocalDeliveryStream } from "../local-stream/delivery-stream.ts";
import { createDuckDbCompactor, mergeGroups } from "./compact.ts";
import { appDir, type Listed } from "./lake-sql.ts";
import { createDuckDbPurger } from "./purge.ts";
import { createReadWriteLock, type ReadWriteLock } from "./read-write-lock.ts";

const APP = "com.example.compact";
const DAY = "2026-11-01";
const OTHER_DAY = "2026-11-02";
const BATCHES = 5;
const PER_BATCH = 4;

describe("DuckDB compaction of the lake", () => {
  let duckdb: DuckDBInstance;
  let dir: string;
  const lakeDir = () => join(dir, "lake");
  const partition = (day: string) => join(appDir(lakeDir(), EVENTS_TABLE, APP), `dt=${day}`);
  const filesIn = async (day: string) =>
    (await readdir(partition(day))).filter((name) => name.endsWith(".parquet")).sort();
  const workFiles = () => readdir(join(lakeDir(), ".compaction")).catch(() => []);

  /** Every event row of the app, as DuckDB reads the lake (app_id and dt from the paths). */
  const rows = async (): Promise<string[]> => {
    const connection = await duckdb.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT dt, event_id, service_id, strftime(event_time, '%H:%M:%S') AS at
         FROM read_parquet('${appDir(lakeDir(), EVENTS_TABLE, APP)}/*/*.parquet', hive_partitioning = true)
         WHERE app_id = '${APP}'`,
      );
      return reader
        .getRowObjectsJS()
        .map((row) => `${row.dt} ${row.event_id} ${row.service_id} ${row.at}`)
        .sort();
    } finally {
      connection.closeSync();
    }
  };

  const columnsOf = async (file: string): Promise<string[]> => {
    const connection = await duckdb.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT name FROM parquet_schema('${file}') WHERE name <> 'duckdb_schema'`,
      );
      return reader.getRowsJS().map((row) => String(row[0]));
    } finally {
      connection.closeSync();
    }
  };

  const compactor = (lakeFiles: ReadWriteLock = createReadWriteLock(), maxFilesPerMerge = 100) =>
    createDuckDbCompactor({
      duckdb,
      lakeDir: lakeDir(),
      lakeFiles,
      targetBytes: 1 << 20,
      maxFilesPerMerge,
    });

  beforeAll(async () => {
    duckdb = await DuckDBInstance.create(":memory:", { threads: "1" });
  });

  afterAll(() => {
    duckdb.closeSync();
  });

  // A day delivered in BATCHES flushes (a file each), and another day in one.
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "compact-"));
    const events = await createLocalDeliveryStream({
      table: EVENTS_TABLE,
      duckdb,
      lakeDir: lakeDir(),
      walDir: join(dir, "wal"),
    });
    for (let batch = 0; batch < BATCHES; batch++) {
      await events.put(
        Array.from({ length: PER_BATCH }, (_, i) =>
          lakeEvent({
            app_id: APP,
            event_id: `e${batch}-${i}`,
            service_id: `install-${i % 2}`,
            event_time: `${DAY}T1${batch}:00:0${i}.000Z`,
          }),
        ),
      );
      await events.flush();
    }
    await events.put([
      lakeEvent({ app_id: APP, event_id: "other", event_time: `${OTHER_DAY}T08:00:00.000Z` }),
    ]);
    await events.close();
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("merges a partition's small files into one, and every row stays once", async () => {
    const before = await rows();
    const otherDay = await filesIn(OTHER_DAY);
    expect(await filesIn(DAY)).toHaveLength(BATCHES);

    const result = await compactor().compact();

    expect(result).toEqual({ partitions: 1, filesBefore: BATCHES, filesAfter: 1 });
    const [merged, ...more] = await filesIn(DAY);
    expect(more).toEqual([]);
    expect(await rows()).toEqual(before);
    expect(before).toHaveLength(BATCHES * PER_BATCH + 1);
    // The partition keys stay in the path, as delivery lays files out.
    const columns = await columnsOf(join(partition(DAY), String(merged)));
    expect(columns).toEqual(EVENTS_TABLE.columns.map((column) => column.name));
    // A partition of one file is left as it was.
    expect(await filesIn(OTHER_DAY)).toEqual(otherDay);
    expect(await workFiles()).toEqual([]);
    // Nothing left to merge on the next run.
    expect(await compactor().compact()).toEqual({ partitions: 0, filesBefore: 0, filesAfter: 0 });
  });

  it("merges in rounds a partition of more files than a merge reads", async () => {
    const before = await rows();

    const result = await compactor(createReadWriteLock(), 2).compact();

    expect(result).toEqual({ partitions: 1, filesBefore: BATCHES, filesAfter: 1 });
    expect(await rows()).toEqual(before);
  });

  it("merges the other partitions when one holds a file DuckDB cannot read", async () => {
    await writeFile(join(partition(OTHER_DAY), "part-bad.parquet"), "not parquet");
    const otherDay = await filesIn(OTHER_DAY);

    await expect(compactor().compact()).rejects.toThrow(/Compaction failed in 1 partitions/);

    expect(await filesIn(DAY)).toHaveLength(1);
    expect(await filesIn(OTHER_DAY)).toEqual(otherDay);
    expect(await workFiles()).toEqual([]);
  });

  it("ends a run under way when stopped, the lake as it was and the next run whole", async () => {
    const before = await rows();
    const stopped = compactor(createReadWriteLock(), 2);

    const run = stopped.compact();
    stopped.stop();
    await run;

    expect((await filesIn(DAY)).length).toBeGreaterThan(1);
    expect(await rows()).toEqual(before);
    expect(await workFiles()).toEqual([]);
    await compactor().compact();
    expect(await filesIn(DAY)).toHaveLength(1);
    expect(await rows()).toEqual(before);
  });

  it("merges nothing while the lake is read, and waits for no reader: the next run merges", async () => {
    const lock = createReadWriteLock();
    let release: () => void = () => undefined;
    // A snapshot being made from the lake.
    const making = lock.read(() => new Promise<void>((resolve) => (release = resolve)));

    expect(await compactor(lock).compact()).toEqual({
      partitions: 0,
      filesBefore: 0,
      filesAfter: 0,
    });
    expect(await filesIn(DAY)).toHaveLength(BATCHES);
    expect(await workFiles()).toEqual([]);
    release();
    await making;

    expect((await compactor(lock).compact()).partitions).toBe(1);
    expect(await filesIn(DAY)).toHaveLength(1);
  });

  it("leaves the merge undone when a purge put another file at a source's path meanwhile", async () => {
    const [first] = await filesIn(DAY);
    const source = join(partition(DAY), String(first));
    const lock = createReadWriteLock();
    let purged = false;
    // As a purge would, once the files are listed and before the merge takes the lake: the
    // file rewritten beside and renamed over the one listed.
    const racing: ReadWriteLock = {
      read: (work) => lock.read(work),
      write: (work) => lock.write(work),
      writeIfFree: async (work) => {
        if (!purged) {
          purged = true;
          await cp(source, `${source}.purge`);
          await rename(`${source}.purge`, source);
        }
        return lock.writeIfFree(work);
      },
    };
    const before = await rows();

    const result = await compactor(racing).compact();

    expect(purged).toBe(true);
    expect(result.partitions).toBe(0);
    expect(await filesIn(DAY)).toHaveLength(BATCHES);
    expect(await rows()).toEqual(before);
    expect(await workFiles()).toEqual([]);
  });

  it("finishes a merge its journal names, in a moved data folder too, and drops one it never journaled", async () => {
    const before = await rows();
    const sources = (await filesIn(DAY)).map((name) => join(partition(DAY), name));
    const work = join(lakeDir(), ".compaction");
    await mkdir(work, { recursive: true });
    // A stop after the journal and the first source's removal: the merged file still staged.
    const staged = join(work, "stopped.parquet");
    const connection = await duckdb.connect();
    await connection.run(
      `COPY (SELECT * FROM read_parquet([${sources.map((s) => `'${s}'`).join(", ")}], hive_partitioning = false))
       TO '${staged}' (FORMAT parquet)`,
    );
    connection.closeSync();
    const target = join(partition(DAY), "part-stopped.parquet");
    // Its paths from the lake's folder, as the compaction writes them.
    const fromLake = (path: string) => relative(lakeDir(), path);
    await writeFile(
      join(work, "stopped.json"),
      JSON.stringify({
        staged: fromLake(staged),
        target: fromLake(target),
        sources: sources.map(fromLake),
      }),
    );
    await rm(String(sources[0]));
    // And a merge stopped before its journal: never in place.
    await cp(String(sources[1]), join(work, "unjournaled.parquet"));
    await writeFile(join(work, "unjournaled.json.part"), "{");
    // And the data folder moved before the next start.
    const moved = `${dir}-moved`;
    await rename(dir, moved);
    dir = moved;

    await compactor().recover();

    expect(await filesIn(DAY)).toEqual(["part-stopped.parquet"]);
    expect(await rows()).toEqual(before);
    expect(await workFiles()).toEqual([]);
  });

  it("finishes nothing again of a merge put in place whose journal a stop left", async () => {
    const sources = (await filesIn(DAY)).map((name) => join(partition(DAY), name));
    await compactor().compact();
    const before = await rows();
    const [merged = ""] = await filesIn(DAY);
    const id = merged.replace(/^part-|\.parquet$/g, "");
    const fromLake = (path: string) => relative(lakeDir(), path);
    // The journal of that merge, as a stop just before its removal leaves it.
    await writeFile(
      join(lakeDir(), ".compaction", `${id}.json`),
      JSON.stringify({
        staged: fromLake(join(lakeDir(), ".compaction", `${id}.parquet`)),
        target: fromLake(join(partition(DAY), merged)),
        sources: sources.map(fromLake),
      }),
    );

    await compactor().recover();

    expect(await filesIn(DAY)).toEqual([merged]);
    expect(await rows()).toEqual(before);
    expect(await workFiles()).toEqual([]);
  });

  it("lets a purge that meets a file merged meanwhile purge the merged file", async () => {
    const lock = createReadWriteLock();
    const compaction = compactor(lock);
    let compacted = false;
    // The compaction runs just as the purge is about to put its first rewrite in place.
    const racing: ReadWriteLock = {
      read: (work) => lock.read(work),
      write: async (work) => {
        if (!compacted) {
          compacted = true;
          await compaction.compact();
        }
        return lock.write(work);
      },
      writeIfFree: (work) => lock.writeIfFree(work),
    };
    const before = await rows();
    const purger = createDuckDbPurger({
      duckdb,
      lakeDir: lakeDir(),
      snapshotDir: join(dir, "snapshots"),
      lakeFiles: racing,
    });

    await purger.purgeInstalls(APP, ["install-1"], 1);

    expect(compacted).toBe(true);
    expect(await filesIn(DAY)).toHaveLength(1);
    // The rewrite of the file merged away is not left beside the merged one.
    expect((await readdir(partition(DAY))).filter((name) => !name.endsWith(".parquet"))).toEqual(
      [],
    );
    expect(await rows()).toEqual(before.filter((row) => !row.includes(" install-1 ")));
  });
});

describe("Groups of files to merge", () => {
  const file = (name: string, size: number, mtimeMs: number): Listed => ({
    path: name,
    size,
    ino: mtimeMs,
    mtimeMs,
  });

  it("takes the small files, oldest first, in groups of at most the target and the count", () => {
    const groups = mergeGroups(
      [
        file("c", 30, 3),
        file("a", 40, 1),
        file("large", 50, 0),
        file("b", 40, 2),
        file("d", 10, 4),
      ],
      100,
    );
    expect(groups.map((group) => group.map((f) => f.path))).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
  });

  it("orders by age, not by name, and files of the same age by name", () => {
    const groups = mergeGroups(
      [file("z", 30, 1), file("b", 30, 3), file("y", 30, 2), file("a", 30, 3)],
      200,
    );
    expect(groups.map((group) => group.map((f) => f.path))).toEqual([["z", "y", "a", "b"]]);
  });

  it("fills a group up to the target itself, and to the count", () => {
    const sizes = mergeGroups([file("a", 40, 1), file("b", 40, 2), file("c", 20, 3)], 100);
    expect(sizes.map((group) => group.map((f) => f.path))).toEqual([["a", "b", "c"]]);
    const counted = mergeGroups(
      ["a", "b", "c", "d", "e"].map((name, i) => file(name, 1, i)),
      100,
      2,
    );
    expect(counted.map((group) => group.map((f) => f.path))).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
  });

  it("merges no file alone", () => {
    expect(mergeGroups([file("a", 40, 1), file("large", 60, 2)], 100)).toEqual([]);
    expect(mergeGroups([file("a", 45, 1), file("b", 45, 2), file("c", 45, 3)], 100)).toEqual([
      [file("a", 45, 1), file("b", 45, 2)],
    ]);
  });
});

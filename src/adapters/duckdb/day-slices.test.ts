import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventDays,
  type FileTimes,
  fileTimes,
  groupsOfDay,
  planSlices,
  type RowGroupTimes,
  rowGroupTimes,
  withDaysHeld,
} from "./day-slices.ts";

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const DAY = Date.parse("2026-11-02T00:00:00.000Z");

/** `count` groups of `rows` rows, one after the other, each `hours` long. */
const inOrder = (count: number, rows: number, hours = 1): RowGroupTimes[] =>
  Array.from({ length: count }, (_, index) => ({
    rows,
    min: DAY + index * hours * HOUR,
    max: DAY + (index + 1) * hours * HOUR - 1000,
  }));

const bounds = (groups: RowGroupTimes[], rows: number) =>
  planSlices(groups, rows).map((slice) => [slice.from?.getTime(), slice.to?.getTime()]);

describe("a day's slices", () => {
  it("cut a day in time order where row groups start, each of the rows asked at least", () => {
    expect(bounds(inOrder(6, 100), 200)).toEqual([
      [undefined, DAY + 2 * HOUR],
      [DAY + 2 * HOUR, DAY + 4 * HOUR],
      [DAY + 4 * HOUR, undefined],
    ]);
  });

  it("make the first slice as small as asked, for the pages that wait for it", () => {
    expect(
      planSlices(inOrder(6, 100), 200, { firstRows: 1 }).map((slice) => slice.to?.getTime()),
    ).toEqual([DAY + HOUR, DAY + 3 * HOUR, DAY + 5 * HOUR, undefined]);
  });

  it("leave the first and last open, so no row falls outside them", () => {
    const slices = planSlices(inOrder(4, 100), 100);
    expect(slices[0]?.from).toBeUndefined();
    expect(slices.at(-1)?.to).toBeUndefined();
    expect(slices).toHaveLength(4);
  });

  it("join a last slice of less than half the rows asked to the one before", () => {
    const groups = [...inOrder(4, 100), { rows: 20, min: DAY + 4 * HOUR, max: DAY + 5 * HOUR }];
    expect(bounds(groups, 200)).toEqual([
      [undefined, DAY + 2 * HOUR],
      [DAY + 2 * HOUR, undefined],
    ]);
  });

  it("keep a last slice of half the rows asked, and join one of less", () => {
    const last = (rows: number) => [
      ...inOrder(4, 100),
      { rows, min: DAY + 4 * HOUR, max: DAY + 5 * HOUR },
    ];
    expect(bounds(last(99), 200)).toHaveLength(2);
    expect(bounds(last(100), 200)).toHaveLength(3);
  });

  it("count what each slice reads from the groups that reach into it, their edges included", () => {
    // Each slice reads its own group alone: as much as the day, which one reading allows.
    expect(planSlices(inOrder(4, 100), 100, { mostRead: 1 })).toHaveLength(4);
    // A group that ends where the next starts is read by that one's slice too.
    const touching = inOrder(4, 100).map((group) => ({ ...group, max: group.max + 1000 }));
    expect(planSlices(touching, 100, { mostRead: 1 })).toEqual([{}]);
  });

  it("are one when the day holds fewer than two slices' rows", () => {
    expect(planSlices(inOrder(3, 100), 200)).toEqual([{}]);
    expect(planSlices([], 200)).toEqual([{}]);
  });

  it("follow the groups' times, not the order of their files", () => {
    const groups = inOrder(4, 100);
    expect(bounds([...groups].reverse(), 200)).toEqual(bounds(groups, 200));
  });

  it("never start two slices at one time", () => {
    // Three groups starting at one time: a slice cannot end between them.
    const groups = [
      { rows: 100, min: DAY, max: DAY + HOUR },
      { rows: 100, min: DAY, max: DAY + HOUR },
      { rows: 100, min: DAY, max: DAY + HOUR },
      ...inOrder(3, 100).map((group) => ({
        ...group,
        min: group.min + 2 * HOUR,
        max: group.max + 2 * HOUR,
      })),
    ];
    expect(bounds(groups, 100)).toEqual([
      [undefined, DAY + 2 * HOUR],
      [DAY + 2 * HOUR, DAY + 3 * HOUR],
      [DAY + 3 * HOUR, DAY + 4 * HOUR],
      [DAY + 4 * HOUR, undefined],
    ]);
  });

  it("are one when the groups overlap so that the slices would read the day over and over", () => {
    // Rows out of time order: every group spans the day, and every slice would read them all.
    const shuffled = Array.from({ length: 8 }, () => ({
      rows: 100,
      min: DAY,
      max: DAY + 23 * HOUR,
    }));
    shuffled.forEach((group, index) => {
      group.min += index * 1000;
    });
    expect(planSlices(shuffled, 200)).toEqual([{}]);
    // One group of stragglers across the day is read by every slice, and allowed while the
    // slices read at most twice the day together.
    const straggling = [...inOrder(8, 100), { rows: 50, min: DAY + HOUR, max: DAY + 7 * HOUR }];
    expect(planSlices(straggling, 200).length).toBeGreaterThan(1);
    expect(planSlices(straggling, 200, { mostRead: 1 })).toEqual([{}]);
  });
});

describe("a day's row groups, from the files' footers", () => {
  let dir: string;
  let duckdb: DuckDBInstance;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "day-slices-"));
    duckdb = await DuckDBInstance.create(":memory:");
  });
  afterAll(async () => {
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  it("gives each group's rows and its event_time's range, in milliseconds", async () => {
    const connection = await duckdb.connect();
    try {
      const file = join(dir, "day.parquet");
      await connection.run(
        `COPY (SELECT TIMESTAMP '2026-11-02 00:00:00' + to_seconds(i) AS event_time, i AS n
               FROM range(5000) AS r(i))
         TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`,
      );
      const groups = await rowGroupTimes(connection, [file]);
      expect(groups.map((group) => group.rows)).toEqual([2048, 2048, 904]);
      expect(groups[0]).toEqual({ rows: 2048, min: DAY, max: DAY + 2047_000 });
      expect(groups[2]?.max).toBe(DAY + 4999_000);
      // Too many files to read all their footers: none, and the day is one slice.
      expect(await rowGroupTimes(connection, Array(65).fill(file))).toEqual([]);
      // A group without statistics (its times all null): none, and the file has no range.
      const bare = join(dir, "bare.parquet");
      await connection.run(
        `COPY (SELECT CASE WHEN i < 2048 OR i >= 4096
                      THEN TIMESTAMP '2026-11-02 00:00:00' + to_seconds(i) END AS event_time
               FROM range(5000) AS r(i))
         TO '${bare}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`,
      );
      expect(await rowGroupTimes(connection, [bare])).toEqual([]);
      const times = await fileTimes(connection, [file, bare]);
      expect([...times.keys()]).toEqual([file]);
      expect(times.get(file)).toEqual({ min: DAY, max: DAY + 4999_000 });
    } finally {
      connection.closeSync();
    }
  });
});

describe("the days a file holds, from its rows", () => {
  let dir: string;
  let duckdb: DuckDBInstance;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "days-held-"));
    duckdb = await DuckDBInstance.create(":memory:");
  });
  afterAll(async () => {
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  it("are read for the files whose times reach back before their partition's late days", async () => {
    const connection = await duckdb.connect();
    try {
      const file = (name: string, times: string[]) => {
        const path = join(dir, `${name}.parquet`);
        const rows = times.map((time) => `(TIMESTAMP '${time}')`).join(", ");
        return {
          path,
          written: connection.run(
            `COPY (SELECT * FROM (VALUES ${rows}) AS t(event_time)) TO '${path}' (FORMAT parquet)`,
          ),
        };
      };
      const merged = file("merged", [
        "2026-11-19 10:00:00",
        "2019-03-01 10:00:00",
        "2026-11-19 11:00:00",
        "2024-07-04 23:59:59.999",
        "2018-01-01 00:00:00",
      ]);
      const late = file("late", ["2026-11-10 10:00:00", "2026-11-12 10:00:00"]);
      await merged.written;
      await late.written;
      const times = (path: string, dt: string, min: string, max: string) => ({
        file: path,
        dt,
        min: at(min),
        max: at(max),
      });
      const files = [
        times(merged.path, "2026-11-19", "2018-01-01T00:00:00Z", "2026-11-19T11:00:00Z"),
        times(late.path, "2026-11-19", "2026-11-10T10:00:00Z", "2026-11-12T10:00:00Z"),
      ];
      const held = await withDaysHeld(connection, files, "2019-01-01", 31);
      // Its days from the window's start; the late file, within its bound, is left as it was.
      expect(held).toEqual([
        { ...files[0], days: ["2019-03-01", "2024-07-04", "2026-11-19"] },
        files[1],
      ]);
      expect(eventDays(held, "2019-01-01", 31).map((d) => d.day)).toEqual([
        "2019-03-01",
        "2024-07-04",
        "2026-11-10",
        "2026-11-11",
        "2026-11-12",
        "2026-11-19",
      ]);
      // Nothing reaches back: no query.
      expect(await withDaysHeld(connection, [files[1] as FileTimes], "2019-01-01", 31)).toEqual([
        files[1],
      ]);
      // A file that reaches back but ends before the window is not read either.
      const before = times(
        merged.path,
        "2026-11-19",
        "2018-01-01T00:00:00Z",
        "2018-12-31T00:00:00Z",
      );
      expect(await withDaysHeld(connection, [before], "2019-01-01", 31)).toEqual([before]);
    } finally {
      connection.closeSync();
    }
  });
});

describe("the days of a window's files", () => {
  it("reads each day from its own partition's files and the late files after it that span it", () => {
    const days = eventDays(
      [
        {
          file: "d1",
          dt: "2026-11-01",
          min: at("2026-11-01T01:00:00Z"),
          max: at("2026-11-01T23:00:00Z"),
        },
        {
          file: "d2",
          dt: "2026-11-02",
          min: at("2026-11-02T01:00:00Z"),
          max: at("2026-11-02T23:00:00Z"),
        },
        // Taken on the 4th: rows of the 1st and the 2nd, in the 3rd's partition.
        {
          file: "late",
          dt: "2026-11-03",
          min: at("2026-11-01T05:00:00Z"),
          max: at("2026-11-02T05:00:00Z"),
        },
      ],
      "2026-11-01",
      31,
    );
    expect(days).toEqual([
      { day: "2026-11-01", files: ["d1", "late"] },
      { day: "2026-11-02", files: ["d2", "late"] },
    ]);
  });

  it("leaves out the days before the window's, and reads a file without statistics for every day its partition may hold", () => {
    const days = eventDays([{ file: "bare", dt: "2026-11-03" }], "2026-11-01", 31);
    expect(days.map((d) => d.day)).toEqual(["2026-11-01", "2026-11-02", "2026-11-03"]);
    expect(
      eventDays([{ file: "bare", dt: "2026-11-03" }], "2026-10-01", 2).map((d) => d.day),
    ).toEqual(["2026-11-01", "2026-11-02", "2026-11-03"]);
  });

  it("reads a file whose days are known for those days only, in the window and its partition", () => {
    const days = eventDays(
      [
        // An install first opened years before, among the partition's own rows.
        {
          file: "merged",
          dt: "2026-11-19",
          min: at("2019-03-01T10:00:00Z"),
          max: at("2026-11-19T23:00:00Z"),
          days: ["2019-03-01", "2026-10-30", "2026-11-19", "2026-11-20"],
        },
        {
          file: "d20",
          dt: "2026-11-20",
          min: at("2026-11-20T01:00:00Z"),
          max: at("2026-11-20T02:00:00Z"),
        },
      ],
      "2019-01-01",
      31,
    );
    expect(days).toEqual([
      { day: "2019-03-01", files: ["merged"] },
      { day: "2026-10-30", files: ["merged"] },
      { day: "2026-11-19", files: ["merged"] },
      { day: "2026-11-20", files: ["d20"] },
    ]);
    // Its days before the window are not read.
    const fromNovember = eventDays(
      [{ file: "merged", dt: "2026-11-19", days: ["2019-03-01", "2026-11-19"] }],
      "2026-11-01",
      31,
    );
    expect(fromNovember).toEqual([{ day: "2026-11-19", files: ["merged"] }]);
  });

  it("reads a file for no day after its partition's, whatever its footer says", () => {
    const days = eventDays(
      [
        {
          file: "odd",
          dt: "2026-11-02",
          min: at("2026-11-02T01:00:00Z"),
          max: at("2026-11-04T01:00:00Z"),
        },
      ],
      "2026-11-01",
      31,
    );
    expect(days).toEqual([{ day: "2026-11-02", files: ["odd"] }]);
  });

  it("plans a day's slices from its own row groups only", () => {
    const groups = [
      { rows: 10, min: at("2026-11-01T01:00:00Z"), max: at("2026-11-01T02:00:00Z") },
      { rows: 10, min: at("2026-10-30T01:00:00Z"), max: at("2026-11-01T00:30:00Z") },
      { rows: 10, min: at("2026-11-02T00:00:00Z"), max: at("2026-11-02T01:00:00Z") },
    ];
    expect(groupsOfDay(groups, "2026-11-01")).toEqual(groups.slice(0, 2));
    // A group that ends as the day starts holds a row of it.
    const edge = { rows: 10, min: at("2026-10-31T20:00:00Z"), max: at("2026-11-01T00:00:00Z") };
    expect(groupsOfDay([edge], "2026-11-01")).toEqual([edge]);
  });
});

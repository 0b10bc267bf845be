import { describe, expect, it } from "vitest";
import { MAX_CHECKPOINTS, PageCheckpoints } from "./page-checkpoints.ts";

const sidecar = (rows: [number, number][], size = 1_000) =>
  JSON.stringify({ version: 1, etag: '"abc"', size, rows });

describe("page checkpoints", () => {
  it("finds the nearest known row at or before an offset", () => {
    const checkpoints = new PageCheckpoints('"abc"', 1_000, [
      [10, 100],
      [30, 300],
    ]);
    expect(checkpoints.nearest(5)).toBeUndefined();
    expect(checkpoints.nearest(10)).toEqual({ row: 10, byte: 100 });
    expect(checkpoints.nearest(29)).toEqual({ row: 10, byte: 100 });
    expect(checkpoints.nearest(1_000)).toEqual({ row: 30, byte: 300 });
    // Learnt in any order, the nearest is still the closest.
    const learnt = new PageCheckpoints('"abc"', 1_000, [
      [30, 300],
      [10, 100],
    ]);
    expect(learnt.nearest(1_000)).toEqual({ row: 30, byte: 300 });
    expect(learnt.toJSON().rows).toEqual([
      [10, 100],
      [30, 300],
    ]);
  });

  it("records only new rows that start inside the object, up to a bound", () => {
    const checkpoints = new PageCheckpoints('"abc"', 1_000);
    expect(checkpoints.add(0, 10)).toBe(false); // row 0 follows the header
    expect(checkpoints.add(5, 1_000)).toBe(false); // at the end: nothing starts there
    expect(checkpoints.add(5, 50)).toBe(true);
    expect(checkpoints.add(5, 50)).toBe(false);
    const full = new PageCheckpoints(
      '"abc"',
      10 * MAX_CHECKPOINTS,
      Array.from({ length: MAX_CHECKPOINTS }, (_, i): [number, number] => [i + 1, i + 1]),
    );
    expect(full.add(MAX_CHECKPOINTS + 1, MAX_CHECKPOINTS + 1)).toBe(false);
  });

  it("round-trips through its sidecar JSON", () => {
    const checkpoints = new PageCheckpoints('"abc"', 1_000, [
      [30, 300],
      [10, 100],
    ]);
    const parsed = PageCheckpoints.parse(JSON.stringify(checkpoints));
    expect(parsed?.toJSON()).toEqual({
      version: 1,
      etag: '"abc"',
      size: 1_000,
      rows: [
        [10, 100],
        [30, 300],
      ],
    });
  });

  it("reads a sidecar whose rows are listed in any order", () => {
    const parsed = PageCheckpoints.parse(
      sidecar([
        [30, 300],
        [10, 100],
      ]),
    );
    expect(parsed?.nearest(20)).toEqual({ row: 10, byte: 100 });
  });

  it.each([
    ["not JSON", "{"],
    [
      "one row twice",
      sidecar([
        [10, 100],
        [10, 200],
      ]),
    ],
    ["row 0", sidecar([[0, 10]])],
    ["a byte before the start", sidecar([[10, -5]])],
    [
      "more rows than it keeps",
      sidecar(
        Array.from({ length: MAX_CHECKPOINTS + 1 }, (_, i): [number, number] => [i + 1, i + 1]),
        10 * MAX_CHECKPOINTS,
      ),
    ],
    ["another version", JSON.stringify({ version: 2, etag: "x", size: 10, rows: [] })],
    ["a byte past the end", sidecar([[10, 1_000]])],
    [
      "a later row starting earlier",
      sidecar([
        [10, 500],
        [20, 400],
      ]),
    ],
    ["a fractional row", sidecar([[1.5, 10]])],
  ])("rejects a sidecar with %s", (_, text) => {
    expect(PageCheckpoints.parse(text)).toBeUndefined();
  });
});

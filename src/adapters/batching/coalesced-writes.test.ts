import { describe, expect, it } from "vitest";
import { coalescedWrites } from "./coalesced-writes.ts";

/** A write that records each batch and settles when the test says. */
const controlledWrite = () => {
  const batches: number[][] = [];
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const write = (items: readonly number[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push([...items]);
      pending.push({ resolve, reject });
    });
  return { write, batches, pending };
};

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("coalescedWrites", () => {
  it("writes at once when a slot is free, and batches what arrives while none is", async () => {
    const { write, batches, pending } = controlledWrite();
    const put = coalescedWrites(write, { maxBatch: 3, maxInFlight: 1 });
    const settled: number[] = [];
    const first = put([1]).then(() => settled.push(1));
    const rest = [2, 3, 4, 5, 6].map((n) => put([n]).then(() => settled.push(n)));
    expect(batches).toEqual([[1]]);

    pending[0]?.resolve();
    await first;
    await tick();
    // Nothing acknowledged before its own batch is written.
    expect(settled).toEqual([1]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
    pending[1]?.resolve();
    await tick();
    expect(batches).toEqual([[1], [2, 3, 4], [5, 6]]);
    pending[2]?.resolve();
    await Promise.all(rest);
    expect(settled).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("fails every caller of a failed batch, and only them", async () => {
    const { write, batches, pending } = controlledWrite();
    const put = coalescedWrites(write, { maxBatch: 10, maxInFlight: 1 });
    const first = put([1]);
    const second = put([2]);
    const third = put([3]);
    pending[0]?.resolve();
    await first;
    await tick();
    expect(batches).toEqual([[1], [2, 3]]);
    pending[1]?.reject(new Error("store down"));
    await expect(second).rejects.toThrow("store down");
    await expect(third).rejects.toThrow("store down");
    const fourth = put([4]);
    expect(batches.at(-1)).toEqual([4]);
    pending[2]?.resolve();
    await expect(fourth).resolves.toBeUndefined();
  });

  it("keeps a caller's items together and runs up to maxInFlight writes at once", async () => {
    const { write, batches } = controlledWrite();
    const put = coalescedWrites(write, { maxBatch: 2, maxInFlight: 2 });
    void put([1, 2, 3]);
    void put([4]);
    void put([5]);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });
});

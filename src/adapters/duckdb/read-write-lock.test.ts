import { describe, expect, it } from "vitest";
import { createReadWriteLock } from "./read-write-lock.ts";

/** A piece of work that records when it starts and ends, and ends when released. */
const held = (log: string[], name: string) => {
  let release = () => {};
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  const work = async () => {
    log.push(`${name} starts`);
    await done;
    log.push(`${name} ends`);
    return name;
  };
  return { work, release };
};

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("read-write lock", () => {
  it("lets readers share it and a writer have it alone, in the order they asked", async () => {
    const lock = createReadWriteLock();
    const log: string[] = [];
    const [r1, r2, w, r3] = ["r1", "r2", "w", "r3"].map((name) => held(log, name));
    if (!r1 || !r2 || !w || !r3) throw new Error("four pieces of work");
    const results = [
      lock.read(r1.work),
      lock.read(r2.work),
      lock.write(w.work),
      lock.read(r3.work),
    ];
    await turn();
    // The readers before the writer share the lock; the reader after it waits for it.
    expect(log).toEqual(["r1 starts", "r2 starts"]);
    r1.release();
    await turn();
    expect(log).toEqual(["r1 starts", "r2 starts", "r1 ends"]);
    r2.release();
    await turn();
    expect(log.slice(3)).toEqual(["r2 ends", "w starts"]);
    w.release();
    await turn();
    expect(log.slice(5)).toEqual(["w ends", "r3 starts"]);
    r3.release();
    expect(await Promise.all(results)).toEqual(["r1", "r2", "w", "r3"]);
  });

  it("is given back when the work fails", async () => {
    const lock = createReadWriteLock();
    await expect(
      lock.write(async () => {
        throw new Error("disk full");
      }),
    ).rejects.toThrow("disk full");
    expect(await lock.read(async () => "read")).toBe("read");
    expect(await lock.write(async () => "written")).toBe("written");
  });

  it("gives the write side at once only when no one holds the lock or waits for it", async () => {
    const lock = createReadWriteLock();
    const log: string[] = [];
    const [r, w] = ["r", "w"].map((name) => held(log, name));
    if (!r || !w) throw new Error("two pieces of work");
    const reading = lock.read(r.work);
    await turn();

    expect(await lock.writeIfFree(async () => "written beside a reader")).toBeUndefined();
    r.release();
    await reading;
    const writing = lock.writeIfFree(w.work);
    await turn();
    expect(log).toEqual(["r starts", "r ends", "w starts"]);
    expect(await lock.writeIfFree(async () => "written beside a writer")).toBeUndefined();
    w.release();
    expect(await writing).toBe("w");
    expect(await lock.writeIfFree(async () => "alone")).toBe("alone");
  });
});

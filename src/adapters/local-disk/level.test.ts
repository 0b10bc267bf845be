import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keyPart, openLevelStore, SEPARATOR } from "./level.ts";

/** A promise and the call that settles it. */
const gate = () => {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
};

/** Lets every callback already due run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("the embedded stores' LevelDB", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "level-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("runs the writes of one key one after another, however they arrive", async () => {
    const store = await openLevelStore(dir);
    const ran: string[] = [];
    const write = (name: string, held: Promise<void>) =>
      store.inTurn("install", async () => {
        ran.push(`${name} began`);
        await held;
        ran.push(`${name} ended`);
      });
    const first = gate();
    const second = gate();
    const writes = [write("first", first.opened), write("second", second.opened)];
    first.open();
    await writes[0];
    await settle();
    // The first is done and the second under way: a third waits for the second, not the first.
    writes.push(write("third", Promise.resolve()));
    await settle();
    expect(ran).toEqual(["first began", "first ended", "second began"]);
    second.open();
    await Promise.all(writes);
    expect(ran).toEqual([
      "first began",
      "first ended",
      "second began",
      "second ended",
      "third began",
      "third ended",
    ]);
    // A write that fails does not fail the one after it.
    const failing = store.inTurn("install", async () => {
      throw new Error("condition failed");
    });
    const after = store.inTurn("install", async () => "ran");
    await expect(failing).rejects.toThrow("condition failed");
    expect(await after).toBe("ran");
    // Another key's writes never wait for these.
    const held = gate();
    const slow = store.inTurn("install", () => held.opened);
    await store.inTurn("other", async () => undefined);
    held.open();
    await slow;
    await store.close();
  });

  it("closes once the writes under way are done, which land", async () => {
    const store = await openLevelStore(dir);
    const held = gate();
    const writing = store.inTurn("k", async () => {
      await held.opened;
      await store.db.put("k", "written");
    });
    const closing = store.close();
    held.open();
    await writing;
    await closing;
    const again = await openLevelStore(dir);
    expect(again.db.getSync("k")).toBe("written");
    await again.close();
  });

  it("writes a key part's own separators so that no part ends inside it", () => {
    expect(keyPart("plain")).toBe("plain");
    expect(keyPart(`a${SEPARATOR}b${SEPARATOR}`)).toBe(`a${SEPARATOR}\u0001b${SEPARATOR}\u0001`);
  });
});

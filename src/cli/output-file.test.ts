import { createWriteStream } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { abandon, onInterrupt, withScratchFolder, writeOutputFile } from "./output-file.ts";

describe("a command's output file", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "output-file-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("holds what was written once the writing is done, and nothing else is left beside it", async () => {
    const output = join(dir, "events.csv");
    const result = await writeOutputFile(output, async (path) => {
      // Written beside the output, hidden, until it is whole.
      expect(path.startsWith(join(dir, ".events.csv."))).toBe(true);
      await writeFile(path, "a,b\n");
      return 7;
    });
    expect(result).toBe(7);
    expect(await readFile(output, "utf8")).toBe("a,b\n");
    expect(await readdir(dir)).toEqual(["events.csv"]);
  });

  it("leaves a file already at the path as it was when the writing fails, and no part of it", async () => {
    const output = join(dir, "events.csv");
    await writeFile(output, "before\n");
    await expect(
      writeOutputFile(output, async (path) => {
        await writeFile(path, "half");
        throw new Error("the service went away");
      }),
    ).rejects.toThrow("the service went away");
    expect(await readFile(output, "utf8")).toBe("before\n");
    expect(await readdir(dir)).toEqual(["events.csv"]);
  });

  it("names the output, not its temporary file, when its folder is not there", async () => {
    const output = join(dir, "missing", "events.csv");
    let called = false;
    await expect(
      writeOutputFile(output, async () => {
        called = true;
      }),
    ).rejects.toThrow(`Cannot write ${output} (ENOENT): is its folder there, and writable?`);
    expect(called).toBe(false);
  });

  it("refuses an output that names a folder before anything is written, and writes nothing beside it", async () => {
    const folder = join(dir, "exports");
    await mkdir(folder);
    for (const output of [folder, `${folder}/`, `${join(dir, "new-folder")}/`]) {
      let called = false;
      const refused = `Cannot write ${output}: it is a folder; name a file in it with -o.`;
      await expect(
        writeOutputFile(output, async () => {
          called = true;
        }),
      ).rejects.toThrow(refused);
      await expect(
        withScratchFolder(output, async () => {
          called = true;
        }),
      ).rejects.toThrow(refused);
      expect(called, output).toBe(false);
    }
    expect(await readdir(dir)).toEqual(["exports"]);
    expect(await readdir(folder)).toEqual([]);
  });

  it("gives a scratch folder beside the output, removed however its use ends", async () => {
    const output = join(dir, "events.parquet");
    const kept = await withScratchFolder(output, async (folder) => {
      await writeFile(join(folder, "page-1.parquet"), "x");
      return folder;
    });
    expect(kept.startsWith(join(dir, ".events.parquet."))).toBe(true);
    await expect(
      withScratchFolder(output, async (folder) => {
        await writeFile(join(folder, "page-1.parquet"), "x");
        throw new Error("stopped");
      }),
    ).rejects.toThrow("stopped");
    expect(await readdir(dir)).toEqual([]);
    const nowhere = join(dir, "missing", "events.parquet");
    await expect(withScratchFolder(nowhere, async () => undefined)).rejects.toThrow(
      `Cannot write ${nowhere} (ENOENT)`,
    );
  });

  it("listens for Ctrl-C and SIGTERM only while something is left to clean up", () => {
    const before = [process.listenerCount("SIGINT"), process.listenerCount("SIGTERM")];
    const first = onInterrupt(() => undefined);
    const second = onInterrupt(() => undefined);
    expect([process.listenerCount("SIGINT"), process.listenerCount("SIGTERM")]).toEqual(
      before.map((count) => count + 1),
    );
    first();
    expect(process.listenerCount("SIGINT")).toBe((before[0] ?? 0) + 1);
    // Forgetting one twice takes away no other's.
    first();
    expect(process.listenerCount("SIGINT")).toBe((before[0] ?? 0) + 1);
    second();
    expect([process.listenerCount("SIGINT"), process.listenerCount("SIGTERM")]).toEqual(before);
  });

  it("closes a file stream it abandons, a write under way included, without an error event", async () => {
    const out = createWriteStream(join(dir, "abandoned.csv"));
    out.write("x".repeat(1 << 20));
    await abandon(out);
    // Its file is closed by the time the promise settles.
    expect(out.closed).toBe(true);
  });
});

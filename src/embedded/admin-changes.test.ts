import { mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRevision, markAdminChange } from "./admin-changes.ts";
import { dataPaths } from "./data-dir.ts";

describe("admin changes", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "admin-changes-"));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it("moves the revision on with every mark once checked, however quickly marks follow", async () => {
    const revision = adminRevision(dataDir);
    const seen = [revision.current()];
    for (let i = 0; i < 5; i++) {
      await markAdminChange(dataDir);
      // Not before the next check: a request reads the marker once, as it arrives.
      expect(revision.current()).toBe(seen.at(-1));
      revision.check();
      seen.push(revision.current());
    }
    expect(new Set(seen).size).toBe(seen.length);
    revision.check();
    expect(revision.current()).toBe(seen.at(-1));
  });

  it("moves on when the marker is made again, though it is as long as before", async () => {
    const marker = dataPaths(dataDir).adminChanges;
    const revision = adminRevision(dataDir);
    const before = revision.current();
    // Another file of the same length put in its place (while the old one exists: another inode).
    const text = await readFile(marker, "utf8");
    await writeFile(`${marker}.new`, "x".repeat(Buffer.byteLength(text)));
    await rename(`${marker}.new`, marker);
    revision.check();
    expect(revision.current()).not.toBe(before);
  });
});

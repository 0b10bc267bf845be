import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRevision, markAdminChange } from "./admin-changes.ts";

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
});

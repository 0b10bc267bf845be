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

  it("moves the revision on with every mark, however quickly they follow", async () => {
    const revision = adminRevision(dataDir);
    const seen = [revision()];
    for (let i = 0; i < 5; i++) {
      await markAdminChange(dataDir);
      seen.push(revision());
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(revision()).toBe(seen.at(-1));
  });
});

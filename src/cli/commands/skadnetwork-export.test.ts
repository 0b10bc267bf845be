/**
 * `skadnetwork export -o`: a listing that fails part of the way leaves the file that was at the
 * path as it was, and nothing beside it.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { StoredApplePostback } from "../../ports/apple-postbacks.ts";
import { storedPostback } from "../../skadnetwork/apple-samples.test-support.ts";

/** Whether the store fails when asked for the listing's second page. */
const store = { failsOnSecondPage: true };

const POSTBACK: StoredApplePostback = storedPostback({ appId: "com.example.ios" });

// The stores the command reads: an app, and a listing of two pages.
vi.mock("../admin-stores.ts", () => ({
  withAdminStores: async (_dataDir: string, work: (stores: unknown) => Promise<unknown>) =>
    work({
      apps: { get: async (appId: string) => ({ appId }), save: async () => {} },
      applePostbacks: () => ({
        listByApp: async (_appId: string, _range: unknown, page: { after?: string }) => {
          if (page.after && store.failsOnSecondPage) throw new Error("the store went away");
          return page.after
            ? { postbacks: [{ ...POSTBACK, transactionId: "t-2" }], next: null }
            : { postbacks: [POSTBACK], next: "page-2" };
        },
      }),
    }),
}));

const { exportPostbacksCommand } = await import("./skadnetwork.ts");

afterEach(() => {
  vi.restoreAllMocks();
});

describe("skadnetwork export to a file", () => {
  it("leaves the earlier file as it was, and nothing beside it, when the listing fails part of the way", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbacks-export-"));
    const output = join(dir, "postbacks.csv");
    const options = {
      appId: "com.example.ios",
      from: "2026-11-01",
      to: "2026-11-01",
      output,
      dataDir: dir,
    };
    try {
      await writeFile(output, "the postbacks of last week\n");
      store.failsOnSecondPage = true;
      await expect(exportPostbacksCommand(options)).rejects.toThrow("the store went away");
      expect(await readFile(output, "utf8")).toBe("the postbacks of last week\n");
      expect(await readdir(dir)).toEqual(["postbacks.csv"]);
      // Whole, it takes the earlier file's place.
      store.failsOnSecondPage = false;
      vi.spyOn(console, "log").mockImplementation(() => {});
      await exportPostbacksCommand(options);
      const lines = (await readFile(output, "utf8")).trim().split("\n");
      expect(lines).toHaveLength(3);
      expect(lines[2]).toContain(",t-2,");
      // A false is written false, not left empty as unknown.
      const header = (lines[0] ?? "").split(",");
      const cells = (lines[1] ?? "").split(",");
      expect(cells[header.indexOf("redownload")]).toBe("false");
      expect(cells[header.indexOf("did_win")]).toBe("true");
      expect(await readdir(dir)).toEqual(["postbacks.csv"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

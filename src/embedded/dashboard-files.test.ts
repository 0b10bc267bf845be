import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY } from "../http/dashboard-headers.ts";
import { loadDashboardFiles } from "./dashboard-files.ts";

describe("the dashboard's files on the embedded runtime", () => {
  it("has the page asked for again each visit, and the files it names by hash kept a year", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dashboard-files-"));
    writeFileSync(join(dir, "index.html"), '<script src="/app.js?v=1"></script>');
    writeFileSync(join(dir, "app.js"), "export {};");
    writeFileSync(join(dir, "notes.txt"), "not served");
    const files = await loadDashboardFiles(dir);

    for (const path of ["/", "/index.html"]) {
      const page = files({ method: "GET", path });
      expect(page?.headers?.["cache-control"], path).toBe("no-cache");
      expect(page?.headers?.["content-security-policy"]).toBe(CONTENT_SECURITY_POLICY);
    }
    const script = files({ method: "GET", path: "/app.js" });
    expect(script?.headers?.["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(script?.headers?.["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(files({ method: "GET", path: "/notes.txt" })).toBeUndefined();
    expect(files({ method: "POST", path: "/" })).toBeUndefined();
    expect(files({ method: "HEAD", path: "/" })).toBe(files({ method: "GET", path: "/" }));
  });

  it("answers nothing when the dashboard was not built", async () => {
    const files = await loadDashboardFiles(join(tmpdir(), "dashboard-files-none", "dist"));
    expect(files({ method: "GET", path: "/" })).toBeUndefined();
  });
});

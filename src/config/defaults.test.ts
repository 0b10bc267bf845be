import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_APP_CACHE_MS } from "./defaults.ts";

describe("DEFAULT_APP_CACHE_MS", () => {
  it("is the time the README promises for a changed link to reach every tap on AWS", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    expect(readme.replace(/\s+/g, " ")).toContain(
      `every tap within ${DEFAULT_APP_CACHE_MS / 1000} seconds on AWS`,
    );
  });
});

/**
 * The CLI's bundle (bin/build-cli.ts, bin/cli-bundle.js): built as `npm install` builds it, it
 * runs the commands as the sources do, and is left aside once a source is newer than it.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { transform } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "../bin/build-cli.ts";
import { BUNDLE_INPUTS, freshBundle } from "../bin/cli-bundle.js";
import { spawnListening, stopService } from "./support/service.ts";

const run = promisify(execFile);

describe("the CLI's bundle", () => {
  // Two folders below the project, as the bundle's own place is; one of its own, so that the
  // commands other tests run meanwhile never meet a bundle being written.
  const dir = new URL(`../bin/.cli-test-${process.pid}/`, import.meta.url);
  let dataDir: string;

  beforeAll(async () => {
    await buildCli(dir);
    dataDir = await mkdtemp(join(tmpdir(), "cli-bundle-"));
  }, 60_000);

  afterAll(async () => {
    await rm(fileURLToPath(dir), { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  const bundled = async (...args: string[]) => {
    const entry = freshBundle(dir);
    if (!entry) throw new Error("the bundle just built is not fresh");
    return (await run(process.execPath, [fileURLToPath(entry), ...args])).stdout;
  };

  it("names the package's version and runs a command on the local data, as the sources do", async () => {
    const sources = new URL("../src/cli/main.ts", import.meta.url);
    const fromSources = await run(process.execPath, [
      "--import",
      "tsx",
      fileURLToPath(sources),
      "--version",
    ]);
    expect(await bundled("--version")).toBe(fromSources.stdout);
    const created = await bundled(
      "apps",
      "create",
      "--app-id",
      "com.example.bundled",
      "--name",
      "Bundled",
      "--platform",
      "android",
      "--data-dir",
      dataDir,
    );
    expect(created).toContain("com.example.bundled");
    expect(await bundled("apps", "list", "--data-dir", dataDir)).toContain("com.example.bundled");
  }, 60_000);

  it("starts the service, whose handlers it loads by their rows' paths, and finds the files beside its sources", async () => {
    const entry = freshBundle(dir);
    if (!entry) throw new Error("the bundle just built is not fresh");
    const serviceDir = await mkdtemp(join(tmpdir(), "cli-bundle-service-"));
    // Listening means every route's, worker's and job's composition loaded, and the local
    // store's thread, started from its own file beside the sources, answered.
    const service = await spawnListening(
      [fileURLToPath(entry), "start", "--port", "0", "--link-port", "0", "--data-dir", serviceDir],
      { ATTRIBUTION_FX_FEED_URL: "off" },
    );
    try {
      const dashboard = await fetch(`${service.url}/`);
      expect(dashboard.status).toBe(200);
      expect(await dashboard.text()).toMatch(/<html/i);
      const contract = await fetch(`${service.url}/v1/openapi.json`);
      expect(contract.status).toBe(200);
      expect(((await contract.json()) as { openapi?: string }).openapi).toMatch(/^3\./);
    } finally {
      expect(await stopService(service.child)).toBe(0);
      await rm(serviceDir, { recursive: true, force: true });
    }
    // Each row's module is one of the bundle's chunks, not a file it reads by path.
    const inputs = JSON.parse(await readFile(new URL(BUNDLE_INPUTS, dir), "utf8")) as {
      inputs: string[];
    };
    expect(inputs.inputs).toContain("src/http/handlers/link-host.ts");
    expect(inputs.inputs).toContain("src/workers/attribution-worker.ts");
  }, 60_000);

  it("loads in every chunk: no name declared twice where the bundle's banner defines require", async () => {
    const chunks = (await readdir(dir)).filter((name) => name.endsWith(".js"));
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) {
      const code = await readFile(new URL(chunk, dir), "utf8");
      // esbuild's parse refuses what Node's would: a second declaration of a top-level name.
      await expect(transform(code, { format: "esm", loader: "js" }), chunk).resolves.toBeDefined();
    }
    // What the check catches: the banner's require beside a module's own.
    const banner = (await readFile(new URL("main.js", dir), "utf8")).split("\n")[0] ?? "";
    await expect(transform(`${banner}\nconst require = 1;\n`, { format: "esm" })).rejects.toThrow(
      /"require" has already been declared/,
    );
  });

  it("is left aside when a source it was built from is newer, or when it lists none", async () => {
    expect(freshBundle(dir)?.href).toBe(new URL("main.js", dir).href);
    const inputs = new URL(BUNDLE_INPUTS, dir);
    await writeFile(inputs, JSON.stringify({ builtAt: 0, inputs: ["src/cli/main.ts"] }));
    expect(freshBundle(dir)).toBeUndefined();
    await writeFile(inputs, "not json");
    expect(freshBundle(dir)).toBeUndefined();
    expect(freshBundle(new URL("../bin/.cli-missing/", import.meta.url))).toBeUndefined();
  });
});

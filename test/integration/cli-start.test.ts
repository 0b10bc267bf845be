/**
 * `attribution start` when it cannot listen: it ends with code 1, naming the setting to change,
 * rather than stay up on the stores it opened before its listeners.
 */
import { execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { dataPaths } from "../../src/embedded/data-dir.ts";
import { startLocalDynamoDb } from "../../src/embedded/local-dynamodb.ts";
import { cli, START_FLAGS, startService, stopService } from "../support/service.ts";

const CLI = new URL("../../bin/attribution.js", import.meta.url).pathname;
const run = promisify(execFile);

describe("attribution start on a port in use", () => {
  let dataDir: string;
  let occupier: Server;
  let port: number;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "attribution-start-"));
    occupier = createServer();
    await new Promise<void>((resolve) => occupier.listen(0, "127.0.0.1", resolve));
    port = (occupier.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => occupier.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  });

  /** `start` with these ports; killed if it is still up after 30 s, which fails the test. */
  const startOn = (...ports: string[]) =>
    run(process.execPath, [...START_FLAGS, CLI, "start", ...ports, "--data-dir", dataDir], {
      timeout: 30_000,
      killSignal: "SIGKILL",
    });

  it("ends with code 1 and names --port when the API's port is taken", async () => {
    await expect(startOn("--port", String(port), "--link-port", "0")).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        `another program listens on port ${port}; give another port with --port (ATTRIBUTION_PORT).`,
      ),
    });
  });

  it("names --link-port when the link host's port is taken", async () => {
    await expect(startOn("--port", "0", "--link-port", String(port))).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        "give another port with --link-port (ATTRIBUTION_LINK_PORT).",
      ),
    });
  });
});

describe("attribution start straight after a command", () => {
  it("waits for the tables a command opened before the service marked its folder, then listens", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "attribution-start-held-"));
    // A command that found no service holds the folder's tables for its length.
    const held = await startLocalDynamoDb(dataPaths(dataDir).dynamodb);
    let released = false;
    const release = setTimeout(() => {
      released = true;
      void held.close();
    }, 6_000);
    try {
      // A phone's way to this machine, as docs/cli.md has a device reach the local service.
      const service = await startService(dataDir, {
        // With the slash a URL is often written with: the banner names no double one.
        ATTRIBUTION_LINK_BASE_URL: "http://192.0.2.2:8788/",
      });
      expect(released).toBe(true);
      expect((await fetch(`${service.url}/v1/openapi.json`)).status).toBe(200);
      // The banner names the link host as new links name it, not the port it listens on.
      await expect.poll(service.output).toMatch(/Rates: /);
      expect(service.output()).toContain("Link host:   http://192.0.2.2:8788/<deeplink_id>");
      expect(await stopService(service.child)).toBe(0);
    } finally {
      clearTimeout(release);
      if (!released) await held.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe("attribution start on a folder another service is opening", () => {
  it("ends with code 1 and names the process, rather than meet the stores it opens half way", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "attribution-start-marked-"));
    // Another service's start, between marking the folder and listening.
    const other = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"]);
    try {
      await mkdir(dataDir, { recursive: true });
      await writeFile(dataPaths(dataDir).startingFile, `${other.pid}\n`);
      await expect(
        run(
          process.execPath,
          [...START_FLAGS, CLI, "start", "--port", "0", "--link-port", "0", "--data-dir", dataDir],
          { timeout: 30_000, killSignal: "SIGKILL" },
        ),
      ).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(
          `A service is starting on ${dataDir} (process ${other.pid}): stop it first, or give this one another --data-dir.`,
        ),
      });
      // Its mark stays: the other start goes on.
      expect(await readFile(dataPaths(dataDir).startingFile, "utf8")).toBe(`${other.pid}\n`);
    } finally {
      other.kill();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe("attribution demo on a new data folder", () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "attribution-demo-first-"));
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("shows the owner account its own start made, which no later start shows; taps links named on a domain at the link host", async () => {
    const { stdout } = await run(
      process.execPath,
      [...START_FLAGS, CLI, "demo", "--days", "1", "--installs", "3", "--data-dir", dataDir],
      {
        timeout: 180_000,
        killSignal: "SIGKILL",
        env: {
          ...process.env,
          ATTRIBUTION_FX_FEED_URL: "off",
          // Behind a proxy: the links name a domain that does not resolve here.
          ATTRIBUTION_LINK_BASE_URL: "https://go.example.invalid",
        },
      },
    );
    expect(stdout).toContain("The first start made the owner account.");
    expect(stdout).toMatch(/email: {4}owner@localhost\n {4}password: \S{12,}/);
    // Every tap counted by the link host; the crawlers' fetches not among them.
    const [, taps, previews] =
      /com\.example\.game: .* (\d+) taps on its links \(and (\d+) fetches by chats' preview crawlers/.exec(
        stdout,
      ) ?? [];
    expect(Number(previews)).toBe(2);
    const listed = z
      .array(z.object({ url: z.string(), clicks: z.number().nullable() }))
      .parse(
        JSON.parse(await cli(dataDir, "links", "list", "--app-id", "com.example.game", "--json")),
      );
    expect(listed.every((link) => link.url.startsWith("https://go.example.invalid/"))).toBe(true);
    expect(listed.reduce((sum, link) => sum + (link.clicks ?? 0), 0)).toBe(Number(taps));
  }, 240_000);
});

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  clearStarting,
  dataPaths,
  makePrivateDataDir,
  markStarting,
  type RuntimeInfo,
  readRuntimeInfo,
  runningService,
  startingService,
  writeRuntimeInfo,
} from "./data-dir.ts";

const info = (pid: number): RuntimeInfo => ({
  pid,
  url: "http://127.0.0.1:1",
  linkUrl: "http://127.0.0.1:2",
  linkBaseUrl: "https://go.example.com",
  dynamodbEndpoint: "http://127.0.0.1:3",
  dynamodbToken: "d",
  heldStores: { url: "http://127.0.0.1:4", token: "t" },
  trustProxy: false,
  postbacksAllowLoopback: false,
});

describe("the data folder's running and starting service", () => {
  let dataDir: string;
  /** Another live process, standing for a service that is starting. */
  let other: ChildProcess;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "attribution-data-dir-"));
    other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    await once(other, "spawn");
  });
  afterEach(async () => {
    other.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  const markedBy = (pid: number) => writeFile(dataPaths(dataDir).startingFile, `${pid}\n`);

  it("waits for a starting service to write its runtime file, and answers with it", async () => {
    const pid = other.pid ?? 0;
    await markedBy(pid);
    const found = runningService(dataDir, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await writeRuntimeInfo(dataDir, info(pid));
    await clearStarting(dataDir);
    expect(await found).toEqual(info(pid));
  });

  it("finds the runtime file a service wrote just before it cleared its mark", async () => {
    await writeRuntimeInfo(dataDir, info(other.pid ?? 0));
    expect((await runningService(dataDir, 0))?.pid).toBe(other.pid);
  });

  it("says so when a service is still starting after the wait", async () => {
    await markedBy(other.pid ?? 0);
    await expect(runningService(dataDir, 200)).rejects.toThrow(
      `The service on ${dataDir} (process ${other.pid}) is still starting: try again once it listens.`,
    );
  });

  it("takes no running service at once when the mark's process is gone, or is this one", async () => {
    const gone = other.pid ?? 0;
    other.kill();
    await once(other, "exit");
    await markedBy(gone);
    expect(await startingService(dataDir)).toBeUndefined();
    // At once: the test's own limit is shorter than the wait.
    expect(await runningService(dataDir, 10_000)).toBeUndefined();

    await markStarting(dataDir);
    expect(await startingService(dataDir)).toBeUndefined();
    expect(await runningService(dataDir, 10_000)).toBeUndefined();
  });

  it("makes the data folder, and the folders to it, for this user alone, and says when one kept is open to others", async () => {
    const made = join(dataDir, "new", "data");
    expect(await makePrivateDataDir(made)).toEqual({ openToOthers: false });
    expect((await stat(made)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dataDir, "new"))).mode & 0o777).toBe(0o700);
    const kept = join(dataDir, "kept");
    await mkdir(kept);
    await chmod(kept, 0o755);
    expect(await makePrivateDataDir(kept)).toEqual({ openToOthers: true });
    // The owner's choice stands: it is said, not changed.
    expect((await stat(kept)).mode & 0o777).toBe(0o755);
    await chmod(kept, 0o700);
    expect(await makePrivateDataDir(kept)).toEqual({ openToOthers: false });
  });

  it("writes the runtime file, which holds the stores' tokens, for this user alone", async () => {
    await writeRuntimeInfo(dataDir, info(other.pid ?? 0));
    expect((await stat(dataPaths(dataDir).runtimeFile)).mode & 0o777).toBe(0o600);
  });

  it("reads no service from the runtime file of a process gone, or from a mark of no process", async () => {
    const gone = other.pid ?? 0;
    other.kill();
    await once(other, "exit");
    await writeRuntimeInfo(dataDir, info(gone));
    expect(await readRuntimeInfo(dataDir)).toBeUndefined();
    // Signal 0 to process 0 reaches this process's group, which is alive.
    await markedBy(0);
    expect(await startingService(dataDir)).toBeUndefined();
  });

  it("reads no service from a runtime file being written", async () => {
    await writeFile(dataPaths(dataDir).runtimeFile, '{"pid": ');
    expect(await readRuntimeInfo(dataDir)).toBeUndefined();
  });
});

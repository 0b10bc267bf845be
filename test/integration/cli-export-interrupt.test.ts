/**
 * `attribution export` stopped part of the way (Ctrl-C, or a supervisor's SIGTERM) as its own
 * process, against the embedded service: the file at -o is the one that was there before,
 * nothing it wrote is left beside it, and it ends with the signal's conventional code.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lakeEvent } from "../support/records.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const CLI = new URL("../../bin/attribution.js", import.meta.url).pathname;
const APP = "com.example.interrupted";
const T0 = Date.parse("2026-11-05T00:00:00Z");
/** Events enough that one a page takes the export many seconds. */
const EVENTS = 4_000;
const EARLIER = "the export of last week, complete\n";

describe("an export interrupted by a signal", { timeout: 120_000 }, () => {
  let rt: TestRuntime;
  let serverKey: string;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "export-interrupted-"));
    rt = await startTestRuntime();
    ({ serverKey } = await rt.createApp(APP));
    await rt.streams.events.put(
      Array.from({ length: EVENTS }, (_, i) =>
        lakeEvent({
          app_id: APP,
          event_id: `evt-${String(i).padStart(6, "0")}`,
          event_time: new Date(T0 + i * 1_000).toISOString(),
        }),
      ),
    );
    await rt.flush();
  });

  afterAll(async () => {
    await rt.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const exportProcess = (format: string, output: string): ChildProcess =>
    spawn(
      process.execPath,
      [
        CLI,
        "export",
        "--since",
        "2026-11-05",
        "--format",
        format,
        "-o",
        output,
        "--key",
        serverKey,
        // The service's URL as AWS's ApiUrl gives one: with a slash at the end.
        "--url",
        `${rt.url}/`,
        "--page-size",
        "1",
        "--no-progress",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );

  for (const [format, signal, code] of [
    ["csv", "SIGINT", 130],
    ["parquet", "SIGTERM", 143],
  ] as const) {
    it(`${signal} during a ${format} export keeps the earlier file and leaves nothing beside it`, async () => {
      const output = join(dir, `events.${format}`);
      await writeFile(output, EARLIER);
      const child = exportProcess(format, output);
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const exited = once(child, "exit");
      try {
        // Under way: something of it is on disk (the output itself, or a file beside it).
        await expect
          .poll(
            async () =>
              (await readdir(dir)).length > 1 || (await readFile(output, "utf8")) !== EARLIER,
            { timeout: 60_000, interval: 20 },
          )
          .toBe(true);
        expect(child.exitCode, stderr).toBeNull();
        child.kill(signal);
        const [exitCode] = await exited;
        expect(exitCode, stderr).toBe(code);
        expect(await readFile(output, "utf8")).toBe(EARLIER);
        expect(await readdir(dir)).toEqual([`events.${format}`]);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
        await rm(output, { force: true });
      }
    });
  }
});

/**
 * `attribution export` against the embedded service: what it says when the service refuses a
 * page (in the service's words, the CLI's flags for the API's parameters, when to retry), and
 * the format it writes when `-o` names one.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportCommand, parseSince } from "../../src/cli/commands/export.ts";
import { MAX_TIMESTAMP } from "../../src/export/paging.ts";
import { lakeEvent } from "../support/records.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.cli-export";
const CLI = new URL("../../bin/attribution.js", import.meta.url).pathname;
const run = promisify(execFile);

/** The command line in its own process: its exit code and what it printed. */
const attribution = async (...args: string[]) =>
  run(process.execPath, [CLI, ...args]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );

describe("attribution export against the embedded service", () => {
  let rt: TestRuntime;
  let serverKey: string;
  let dir: string;

  beforeAll(async () => {
    rt = await startTestRuntime();
    ({ serverKey } = await rt.createApp(APP));
    await rt.streams.events.put(
      Array.from({ length: 3 }, (_, i) =>
        lakeEvent({ app_id: APP, event_id: `evt-${i}`, event_time: `2026-11-05T00:00:0${i}.000Z` }),
      ),
    );
    await rt.flush();
    dir = await mkdtemp(join(tmpdir(), "cli-export-service-"));
  });

  afterAll(async () => {
    await rt.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const exporting = (options: { since?: number; pageSize?: number }) =>
    exportCommand({
      url: rt.url,
      key: serverKey,
      since: options.since ?? 0,
      format: "csv",
      output: join(dir, "refused.csv"),
      pageSize: options.pageSize ?? 100,
      progress: false,
    });

  it("names the flag of a parameter the service refuses, in the service's words", async () => {
    const refused = await exporting({ pageSize: 10_001 }).catch((error: Error) => error.message);
    expect(refused).toBe("Export failed with 422: --page-size: must be an integer from 1 to 10000");
    expect(await exporting({ since: MAX_TIMESTAMP + 1 }).catch((e: Error) => e.message)).toBe(
      `Export failed with 422: --since: must be at most ${MAX_TIMESTAMP} (year 9999)`,
    );
    expect(existsSync(join(dir, "refused.csv"))).toBe(false);
  });

  it("refuses a --since after the service's last second itself, as the service would", () => {
    expect(parseSince(String(MAX_TIMESTAMP))).toBe(MAX_TIMESTAMP);
    expect(parseSince("9999-12-31T23:59:59Z")).toBe(MAX_TIMESTAMP);
    for (const value of [
      String(MAX_TIMESTAMP + 1),
      "99999999999999999999",
      "9999-12-31T23:59:59-00:01",
    ]) {
      expect(() => parseSince(value), value).toThrow(
        `--since must be at most ${MAX_TIMESTAMP} (9999-12-31T23:59:59Z)`,
      );
    }
  });

  it("writes the format -o names when --format is not given, and refuses one that differs", async () => {
    const common = ["--since", "2026-11-01", "--key", serverKey, "--url", rt.url, "--no-progress"];
    const csv = join(dir, "events.CSV");
    const written = await attribution("export", "-o", csv, ...common);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toContain(`Wrote 3 events to ${csv}.`);
    const lines = (await readFile(csv, "utf8")).trim().split("\n");
    expect(lines[0]).toMatch(/^event_id,/);
    expect(lines).toHaveLength(4);

    const jsonl = join(dir, "events.jsonl");
    expect((await attribution("export", "-o", jsonl, ...common)).code).toBe(0);
    const records = (await readFile(jsonl, "utf8")).trim().split("\n");
    expect(records.map((line) => JSON.parse(line).event_id)).toEqual(["evt-0", "evt-1", "evt-2"]);

    const mismatched = join(dir, "events.json");
    const refused = await attribution("export", "--format", "csv", "-o", mismatched, ...common);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `-o ${mismatched} is named for json, but --format is csv: name the file for csv (.csv), or leave --format out to write json.`,
    );
    expect(existsSync(mismatched)).toBe(false);
    expect((await readdir(dir)).sort()).toEqual(["events.CSV", "events.jsonl"]);
  });
});

describe("attribution export from a service out of disk", () => {
  let rt: TestRuntime;
  let serverKey: string;

  beforeAll(async () => {
    // Less than one snapshot part of a few events takes: every first page is a 503.
    rt = await startTestRuntime({ snapshotDisk: "1KB" });
    ({ serverKey } = await rt.createApp(APP));
    await rt.streams.events.put([
      lakeEvent({ app_id: APP, event_time: "2026-11-05T00:00:00.000Z" }),
    ]);
    await rt.flush();
  });

  afterAll(async () => {
    await rt.dispose();
  });

  it("says why in the service's words, and when to retry, not the answer's JSON", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cli-export-disk-"));
    try {
      const refused = await exportCommand({
        url: rt.url,
        key: serverKey,
        since: 0,
        format: "parquet",
        output: join(dir, "events.parquet"),
        progress: false,
      }).catch((error: Error) => error.message);
      expect(refused).toMatch(
        /^Export failed with 503: There is no disk space for this export's snapshot now; .*\. Retry in \d+ s\.$/,
      );
      expect(refused).not.toContain('"error"');
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

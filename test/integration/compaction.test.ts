/**
 * The lake's compaction on the running service: events delivered in several flushes (a file
 * each) are merged into one file by the `compact-lake` job, and the export still holds each
 * of them once.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAppWithCli, type Service, startService, stopService } from "../support/service.ts";

const APP = "com.example.compaction";
/**
 * The events' times: an hour ago, so that none is later than the export's end whatever the time
 * of day the test runs at, moved back clear of midnight so that all fall on one day.
 */
const BASE = (() => {
  const base = new Date(Date.now() - 3_600_000);
  if (base.getUTCHours() === 23 && base.getUTCMinutes() >= 45) base.setUTCMinutes(30);
  base.setUTCSeconds(0, 0);
  return base.getTime();
})();
/** Their day, whose partition they are delivered to (`lakeDay`: today's, or yesterday's). */
const DAY = new Date(BASE).toISOString().slice(0, 10);
const at = (offsetMs: number) => new Date(BASE + offsetMs).toISOString();
const BATCHES = 4;
const EVENTS_PER_BATCH = 5;
/** Long enough for any machine; the test ends as soon as the files are there. */
const WAIT_MS = 60_000;

const until = async <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean) => {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe("compaction of the lake on the service", () => {
  let dataDir: string;
  let service: Service | undefined;
  let keys: { sdk: string; server: string };
  const partition = () => join(dataDir, "lake", "events", `app_id=${APP}`, `dt=${DAY}`);
  const files = () =>
    readdir(partition())
      .then((names) => names.filter((name) => name.endsWith(".parquet")))
      .catch(() => []);

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "attribution-compaction-"));
    keys = await createAppWithCli(dataDir, APP, "Compaction");
  });

  afterAll(async () => {
    if (service) await stopService(service.child);
    await rm(dataDir, { recursive: true, force: true });
  });

  it("merges the files of each delivery into one, and the export holds every event once", async () => {
    // Compaction held off while the files are delivered, one per batch.
    service = await startService(dataDir, {
      ATTRIBUTION_FLUSH_INTERVAL_MS: "100",
      ATTRIBUTION_COMPACT_INTERVAL_MS: "86400000",
    });
    const post = (path: string, body: unknown) =>
      fetch(`${service?.url}${path}`, {
        method: "POST",
        headers: { authorization: keys.sdk, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    for (const device of ["device-0", "device-1"]) {
      const installed = await post("/v1/installs", {
        service_id: device,
        os: "android",
        sdk_platform: "kotlin",
        sdk_version: "1.11.0",
        first_open_time: at(-600_000),
      });
      expect(installed.status).toBe(202);
    }
    const sent: string[] = [];
    for (let batch = 0; batch < BATCHES; batch++) {
      const events = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => ({
        event_id: `b${batch}-e${i}`,
        service_id: `device-${i % 2}`,
        event_type: "LEVEL_COMPLETE",
        event_time: at(batch * 60_000 + i * 1000),
        parameters: { level: i },
      }));
      const before = (await files()).length;
      const response = await post("/v1/events", { events });
      expect(response.status).toBe(202);
      expect(await response.json()).toMatchObject({ accepted: EVENTS_PER_BATCH });
      sent.push(...events.map((event) => event.event_id));
      await until(`batch ${batch}'s file`, files, (names) => names.length > before);
    }
    expect((await files()).length).toBeGreaterThanOrEqual(BATCHES);
    await stopService(service.child);

    service = await startService(dataDir, { ATTRIBUTION_COMPACT_INTERVAL_MS: "200" });
    const [merged, ...more] = await until("the merge", files, (names) => names.length === 1);
    expect(merged).toMatch(/^part-.+\.parquet$/);
    expect(more).toEqual([]);
    // Other partitions (the installs' attributions) may still be merging: the work folder
    // empties once every merge is put in place.
    const work = () => readdir(join(dataDir, "lake", ".compaction"));
    expect(
      await until("the merges' work folder to empty", work, (names) => names.length === 0),
    ).toEqual([]);

    const response = await fetch(`${service.url}/api/v1/export?timestamp=0&format=ndjson`, {
      headers: { authorization: keys.server },
    });
    expect(response.status).toBe(200);
    const exported = (await response.text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { event_id: string; event_name: string });
    // The installs are exported too, as their own rows.
    const installs = exported.filter((row) => row.event_name === "service_install");
    expect(installs).toHaveLength(2);
    const events = exported.filter((row) => row.event_name !== "service_install");
    expect(events.map((row) => row.event_id).sort()).toEqual(sent.sort());
  });
});

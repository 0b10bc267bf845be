/**
 * The export's disk budget over HTTP: a first page whose snapshot would take the snapshots past
 * their budget is a 503 with Retry-After and the error body, nothing is left half-written, and
 * ingestion answers as usual meanwhile.
 */
import { randomUUID } from "node:crypto";
import { readdir } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataPaths } from "../../src/embedded/data-dir.ts";
import { installRequest } from "../support/installs.ts";
import { lakeEvent } from "../support/records.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.disk";

describe("the export's disk budget", () => {
  let rt: TestRuntime;
  let serverKey: string;
  let sdkKey: string;

  beforeAll(async () => {
    // Less than one snapshot part of a few events takes.
    rt = await startTestRuntime({ snapshotDisk: "1KB" });
    ({ serverKey, sdkKey } = await rt.createApp(APP));
    await rt.streams.events.put(
      Array.from({ length: 20 }, (_, i) =>
        lakeEvent({
          app_id: APP,
          event_id: `evt-${i}`,
          event_time: new Date(Date.parse("2026-11-05T00:00:00Z") + i * 1000).toISOString(),
        }),
      ),
    );
    await rt.flush();
  });

  afterAll(async () => {
    await rt.dispose();
  });

  it("answers 503 with Retry-After, the error body, and no snapshot on disk", async () => {
    const response = await rt.get("/api/v1/export?timestamp=0&format=csv", serverKey);
    expect(response.status).toBe(503);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await response.json()).toEqual({
      error: "Service Unavailable",
      detail: expect.stringMatching(/no disk space for this export's snapshot/),
    });
    expect(await readdir(dataPaths(rt.config.dataDir).snapshots)).toEqual([]);
  });

  it("takes installs and events meanwhile", async () => {
    const serviceId = randomUUID();
    const installed = await rt.post("/v1/installs", installRequest(serviceId), sdkKey);
    expect(installed.status).toBe(202);
    const response = await rt.post(
      "/v1/events",
      {
        events: [
          {
            event_id: randomUUID(),
            service_id: serviceId,
            event_type: "LEVEL_COMPLETE",
            event_time: new Date().toISOString(),
          },
        ],
      },
      sdkKey,
    );
    expect(response.status).toBe(202);
    expect(((await response.json()) as { accepted: number }).accepted).toBe(1);
  });
});

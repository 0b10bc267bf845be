/**
 * An event answered with 202 is durable before the answer: `kill -9` of the service in the
 * middle of a burst of ingestion, then a restart, loses no acknowledged event. The same holds
 * for a tap answered with its redirect or its landing page: its click is in the touch store and
 * the lake after the restart, counted once.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalTouchStore } from "../../src/adapters/local-touches/touch-store.ts";
import { dataPaths, readRuntimeInfo } from "../../src/embedded/data-dir.ts";
import type { ExportRecord } from "../../src/record/columns.ts";
import { clickIdOfReferrer } from "../../src/touches/destination.ts";
import { PIXEL as ANDROID } from "../support/agents.ts";
import { storeButtons } from "../support/landing-page.ts";
import {
  cli,
  createAppWithCli,
  type Service,
  startService,
  stopService,
} from "../support/service.ts";

const APP = "com.example.durable";
const BATCHES = 400;
const EVENTS_PER_BATCH = 25;
const CONCURRENCY = 8;

describe("durability of acknowledged events", () => {
  let dataDir: string;
  let service: Service;
  let keys: { sdk: string; server: string };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "attribution-durable-"));
    service = await startService(dataDir);
    keys = await createAppWithCli(dataDir, APP, "Durable");
  });

  afterAll(async () => {
    await stopService(service.child);
    await rm(dataDir, { recursive: true, force: true });
  });

  it("keeps every event acknowledged before a kill -9", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${service.url}${path}`, {
        method: "POST",
        headers: { authorization: keys.sdk, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const firstOpen = new Date(Date.now() - 3_600_000).toISOString();
    const installed = await post("/v1/installs", {
      service_id: "device-1",
      os: "android",
      sdk_platform: "kotlin",
      sdk_version: "1.11.0",
      first_open_time: firstOpen,
    });
    expect(installed.status).toBe(202);

    const acknowledged = new Set<string>();
    let sent = 0;
    let killed = false;
    const sendBatch = async (batch: number) => {
      const events = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => ({
        event_id: `b${batch}-e${i}`,
        service_id: "device-1",
        event_type: "LEVEL_COMPLETE",
        event_time: new Date(Date.now() - 60_000).toISOString(),
        parameters: { level: i },
      }));
      let answer: { accepted: number } | undefined;
      try {
        const response = await post("/v1/events", { events });
        if (response.status === 202) answer = (await response.json()) as { accepted: number };
      } catch {
        // The connection died with the process: this batch was never acknowledged.
      }
      if (!answer) return;
      expect(answer.accepted).toBe(EVENTS_PER_BATCH);
      for (const e of events) acknowledged.add(e.event_id);
    };
    const worker = async () => {
      while (!killed && sent < BATCHES) {
        const batch = sent++;
        await sendBatch(batch);
        // Mid-burst: enough acknowledged to matter, with requests still in flight.
        if (!killed && acknowledged.size >= (BATCHES * EVENTS_PER_BATCH) / 4) {
          killed = true;
          service.child.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(killed).toBe(true);
    expect(acknowledged.size).toBeGreaterThan(0);

    service = await startService(dataDir);
    const seen = new Set<string>();
    const since = Math.floor(Date.now() / 1000) - 86_400;
    for (let offset = 0; ; offset += 10_000) {
      const response = await fetch(
        `${service.url}/api/v1/export?timestamp=${since}&limit=10000&offset=${offset}`,
        { headers: { authorization: keys.server } },
      );
      const { data } = (await response.json()) as { data: ExportRecord[] };
      for (const row of data) seen.add(String(row.event_id));
      if (data.length < 10_000) break;
    }
    const lost = [...acknowledged].filter((id) => !seen.has(id));
    expect(lost).toEqual([]);
  });

  it("attributes every install acknowledged before a kill -9, each once", async () => {
    const acknowledged: string[] = [];
    let killed = false;
    let next = 0;
    const install = async (serviceId: string) => {
      try {
        const response = await fetch(`${service.url}/v1/installs`, {
          method: "POST",
          headers: { authorization: keys.sdk, "content-type": "application/json" },
          body: JSON.stringify({
            service_id: serviceId,
            os: "android",
            sdk_platform: "kotlin",
            sdk_version: "1.11.0",
            first_open_time: new Date(Date.now() - 60_000).toISOString(),
          }),
        });
        if (response.status === 202) acknowledged.push(serviceId);
      } catch {
        // The connection died with the process: never acknowledged.
      }
    };
    const sender = async () => {
      while (!killed && next < 400) {
        await install(`burst-${next++}`);
        if (!killed && acknowledged.length >= 100) {
          killed = true;
          service.child.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, sender));
    expect(killed).toBe(true);

    service = await startService(dataDir);
    // The restarted service replays its backlog first: a long poll may end, unresolved, while
    // that goes on, so each install is asked again, within a deadline a loaded machine meets.
    const deadline = Date.now() + 120_000;
    const statuses = await Promise.all(
      acknowledged.map(async (serviceId) => {
        for (;;) {
          const response = await fetch(
            `${service.url}/v1/installs/${serviceId}/attribution?wait_seconds=20`,
            { headers: { authorization: keys.sdk } },
          );
          // An install the kill lost answers 404: that, as it is, rather than asked again.
          if (response.status !== 200) return `${response.status} ${await response.text()}`;
          const { service_match_status: status } = (await response.json()) as {
            service_match_status?: string;
          };
          if (status !== undefined || Date.now() > deadline) return status;
        }
      }),
    );
    expect(statuses.filter((status) => status !== "organic")).toEqual([]);

    // One attribution each in the lake, whatever job ran twice: a clean stop delivers it all.
    await stopService(service.child);
    const duckdb = await DuckDBInstance.create(":memory:");
    const connection = await duckdb.connect();
    const reader = await connection.runAndReadAll(
      `SELECT service_id, count(DISTINCT attributed_at)::INTEGER AS results
         FROM read_parquet('${join(dataDir, "lake", "attributions")}/*/*/*.parquet')
        WHERE service_id LIKE 'burst-%' GROUP BY service_id`,
    );
    const rows = reader.getRowObjectsJS();
    connection.closeSync();
    duckdb.closeSync();
    expect(rows.filter((row) => row.results !== 1)).toEqual([]);
    const attributed = new Set(rows.map((row) => String(row.service_id)));
    expect(acknowledged.filter((serviceId) => !attributed.has(serviceId))).toEqual([]);
    service = await startService(dataDir);
  }, 240_000);

  it("keeps the click of every tap redirected or shown the landing page before a kill -9, counted once", async () => {
    const made = await fetch(`${service.url}/v1/links`, {
      method: "POST",
      headers: { authorization: keys.server, "content-type": "application/json" },
      body: JSON.stringify({ media_source: "durable_ads", campaign_name: "burst" }),
    });
    expect(made.status).toBe(201);
    const { deeplink_id: deeplinkId } = (await made.json()) as { deeplink_id: string };
    const linkUrl = (await readRuntimeInfo(dataDir))?.linkUrl;
    if (!linkUrl) throw new Error("no link host");

    const acknowledged = new Set<string>();
    /** Taps answered without a click id: a click the log did not take (none may be). */
    let unrecorded = 0;
    let sent = 0;
    let killed = false;
    // Android phones are sent to the Play Store; iPhones, on this Android-only app without a
    // web site, get the landing page, whose Play button carries the click id.
    const IPHONE =
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
    let pages = 0;
    const storeUrlOf = async (response: Response) => {
      if (response.status === 302) return response.headers.get("location");
      if (response.status !== 200) return null;
      const play = storeButtons(await response.text()).find((b) => b.store === "google-play");
      if (play) pages += 1;
      return play?.url ?? null;
    };
    const tap = async () => {
      try {
        const response = await fetch(`${linkUrl}/${deeplinkId}`, {
          redirect: "manual",
          headers: { "user-agent": sent % 2 === 0 ? ANDROID : IPHONE },
        });
        const store = await storeUrlOf(response);
        if (!store) return;
        const clickId = clickIdOfReferrer(new URL(store).searchParams.get("referrer"));
        if (clickId) acknowledged.add(clickId);
        else unrecorded += 1;
      } catch {
        // The connection died with the process: this tap was never answered.
      }
    };
    const tapper = async () => {
      while (!killed && sent < 2_000) {
        sent += 1;
        await tap();
        if (!killed && acknowledged.size >= 300) {
          killed = true;
          service.child.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, tapper));
    expect(killed).toBe(true);
    expect(pages).toBeGreaterThan(100);
    expect(unrecorded).toBe(0);

    // The restarted service applies what its log holds, and a clean stop finishes it; the touch
    // store and the lake are then read from the data folder.
    service = await startService(dataDir);
    await stopService(service.child);
    const touches = await openLocalTouchStore(dataPaths(dataDir).touches);
    const absent: string[] = [];
    for (const clickId of acknowledged) {
      if (!(await touches.get(clickId))) absent.push(clickId);
    }
    await touches.close();
    expect(absent).toEqual([]);

    // The lake: every click there, and the link's count (by click id) within the taps sent.
    const duckdb = await DuckDBInstance.create(":memory:");
    const connection = await duckdb.connect();
    const reader = await connection.runAndReadAll(
      `SELECT DISTINCT click_id FROM read_parquet('${join(dataDir, "lake", "touches")}/*/*/*.parquet')
        WHERE deeplink_id = '${deeplinkId}'`,
    );
    const inLake = new Set(reader.getRowObjectsJS().map((row) => String(row.click_id)));
    connection.closeSync();
    duckdb.closeSync();
    expect([...acknowledged].filter((clickId) => !inLake.has(clickId))).toEqual([]);
    expect(inLake.size).toBeLessThanOrEqual(sent);
    const listed = await cli(dataDir, "links", "list", "--app-id", APP, "--json");
    const counted = (JSON.parse(listed) as { deeplink_id: string; clicks: number }[]).find(
      (link) => link.deeplink_id === deeplinkId,
    );
    expect(counted?.clicks).toBe(inLake.size);
    service = await startService(dataDir);
  }, 120_000);
});

/**
 * The embedded lake as the runtime opens it (openLake): a write-ahead file whose events fall
 * on many days is delivered whole, one partition a day, with the attributions delivered beside
 * it. (Delivery's instance held to 128 MB failed a larger such file only some of the time, so
 * this is no guard for the instance's bound; it checks the delivery itself.)
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lakeAttribution, lakeEvent } from "../../test/support/records.ts";
import { embeddedConfig } from "../config/embedded.ts";
import { openLake } from "./runtime.ts";

const APP = "com.example.delivery";
const DAYS = 90;
const EVENTS = 100_000;
const BATCH = 20_000;
const FIRST_DAY = Date.parse("2026-08-01T00:00:00Z");

describe("the runtime's lake delivery", () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "lake-delivery-"));
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("delivers a write-ahead file of many days' events whole, a partition a day", async () => {
    const lake = await openLake(embeddedConfig({}, { dataDir, fxFeedUrl: null }));
    try {
      // Spread evenly over the days, as a backfill or an SDK's long offline queue sends them.
      const spacing = (DAYS * 86_400_000) / EVENTS;
      for (let first = 0; first < EVENTS; first += BATCH) {
        await lake.streams.events.put(
          Array.from({ length: BATCH }, (_, i) =>
            lakeEvent({
              app_id: APP,
              event_id: randomUUID(),
              event_time: new Date(FIRST_DAY + (first + i) * spacing).toISOString(),
              service_id: `install-${(first + i) % 2_000}`,
              country: "DE",
              revenue: 4.99,
              currency: "EUR",
              revenue_usd: 5.41,
              maid: randomUUID(),
              customer_user_id: `user-${(first + i) % 2_000}`,
            }),
          ),
        );
      }
      // Delivered as the runtime stops: every stream at once, on the one instance.
      await lake.streams.attributions.put(
        Array.from({ length: 4_000 }, (_, i) =>
          lakeAttribution({ app_id: APP, service_id: `install-${i}` }),
        ),
      );
    } finally {
      await lake.close();
    }

    const app = join(dataDir, "lake", "events", `app_id=${APP}`);
    expect((await readdir(app)).filter((name) => name.startsWith("dt="))).toHaveLength(DAYS);
    const duckdb = await DuckDBInstance.create(":memory:");
    try {
      const connection = await duckdb.connect();
      const reader = await connection.runAndReadAll(
        `SELECT count(*) AS n, count(DISTINCT event_id) AS ids FROM read_parquet('${app}/*/*.parquet')`,
      );
      expect(reader.getRowObjectsJS()[0]).toEqual({ n: BigInt(EVENTS), ids: BigInt(EVENTS) });
      connection.closeSync();
    } finally {
      duckdb.closeSync();
    }
  });
});

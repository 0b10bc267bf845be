/**
 * The export endpoint over HTTP against the embedded runtime, on lake rows it writes itself:
 * ordering, ties, the record's columns and joins, formats' details and paging. Its keys, 401s,
 * 422s and HEAD are the black-box suite's (black-box/keys.test.ts, black-box/export.test.ts).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unescapeTsvField } from "../../src/export/formats/tsv.ts";
import { COLUMN_NAMES, type ExportRecord } from "../../src/record/columns.ts";
import { androidInstallRequest } from "../support/installs.ts";
import { lakeAttribution, lakeEvent } from "../support/records.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.game";
const OTHER = "com.example.other";
const T0 = Date.parse("2026-11-01T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;
const unix = (ms: number) => Math.floor(ms / 1000);

type Page = { data: ExportRecord[]; total_count: number };

const firstEvent = () =>
  lakeEvent({
    app_id: APP,
    event_id: "first",
    service_id: "s1",
    event_time: iso(T0 + 1_000),
    revenue: 9.99,
    currency: "EUR",
    revenue_usd: 11.5,
    customer_user_id: "u-1",
    maid: "38400000-8cf0-11bd-b23e-10b96e40000d",
    country: "DE",
  });

describe("GET /api/v1/export", () => {
  let rt: TestRuntime;
  let keys: { sdkKey: string; serverKey: string };
  let otherKeys: { sdkKey: string; serverKey: string };

  const page = async (query: string, key = keys.serverKey): Promise<Page> => {
    const response = await rt.get(`/api/v1/export?${query}`, key);
    expect(response.status).toBe(200);
    return (await response.json()) as Page;
  };

  beforeAll(async () => {
    rt = await startTestRuntime();
    keys = await rt.createApp(APP);
    otherKeys = await rt.createApp(OTHER, "ios");
    await rt.streams.events.put([
      // Two events at the same instant: ties are ordered by event_id.
      lakeEvent({ app_id: APP, event_id: "b-tie", service_id: "s1", event_time: iso(T0 + 3_000) }),
      lakeEvent({ app_id: APP, event_id: "a-tie", service_id: "s1", event_time: iso(T0 + 3_000) }),
      firstEvent(),
      lakeEvent({
        app_id: APP,
        event_id: "no-attribution",
        service_id: "s9",
        event_time: iso(T0 + 5_000),
      }),
      lakeEvent({
        app_id: APP,
        event_id: "before-window",
        service_id: "s1",
        event_time: iso(T0 - 1_000),
      }),
      lakeEvent({
        app_id: OTHER,
        event_id: "other-app",
        service_id: "o1",
        event_time: iso(T0 + 2_000),
      }),
    ]);
    await rt.streams.events.flush();
    // The lake holds "first" twice, as after an SDK retry.
    await rt.streams.events.put([firstEvent()]);
    await rt.streams.attributions.put([
      lakeAttribution({
        app_id: APP,
        service_id: "s1",
        attributed_at: iso(T0 - 60_000),
        media_source: "organic",
      }),
      lakeAttribution({
        app_id: APP,
        service_id: "s1",
        attributed_at: iso(T0 - 30_000),
        media_source: "meta_ads",
        campaign_id: "c1",
        campaign_name: "Launch",
        adset_id: "as1",
        adset_name: "Broad",
        ad_id: "ad1",
        ad_name: "Video",
        matching_type: "network",
        click_to_first_open_hours: 2,
        confidence_score: "high",
      }),
    ]);
    await rt.flush();
  });

  afterAll(async () => {
    await rt.dispose();
  });

  it("returns the app's events since the timestamp, once each, ordered by time then id", async () => {
    const { data, total_count } = await page(`timestamp=${unix(T0)}`);
    expect(data.map((e) => e.event_id)).toEqual(["first", "a-tie", "b-tie", "no-attribution"]);
    expect(total_count).toBe(4);
  });

  it("defaults to json without Content-Disposition", async () => {
    const response = await rt.get(`/api/v1/export?timestamp=${unix(T0)}`, keys.serverKey);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("content-disposition")).toBeNull();
  });

  it("gives every field of the record in the spec's order, with types and nulls", async () => {
    const { data } = await page(`timestamp=${unix(T0)}`);
    const [first] = data;
    expect(Object.keys(first ?? {})).toEqual(COLUMN_NAMES);
    expect(first).toMatchObject({
      event_id: "first",
      event_time: "2026-11-01T00:00:01.000Z",
      app_id: APP,
      revenue: 9.99,
      currency: "EUR",
      revenue_usd: 11.5,
      customer_user_id: "u-1",
      country: "DE",
      idfv: null,
    });
  });

  it("joins each event with its install's latest attribution, or nulls when there is none", async () => {
    const { data } = await page(`timestamp=${unix(T0)}`);
    expect(data[0]).toMatchObject({
      media_source: "meta_ads",
      campaign_id: "c1",
      campaign_name: "Launch",
      adset_id: "as1",
      adset_name: "Broad",
      ad_id: "ad1",
      ad_name: "Video",
      matching_type: "network",
      click_to_first_open_hours: 2,
      confidence_score: "high",
    });
    const unattributed = data.find((e) => e.event_id === "no-attribution");
    for (const column of [
      "media_source",
      "campaign_id",
      "matching_type",
      "click_to_first_open_hours",
      "confidence_score",
      "install_type",
    ] as const) {
      expect(unattributed?.[column]).toBeNull();
    }
  });

  it("returns only the events of the key's app", async () => {
    const mine = await page(`timestamp=${unix(T0)}`);
    const theirs = await page(`timestamp=${unix(T0)}`, otherKeys.serverKey);
    expect(mine.data.every((e) => e.app_id === APP)).toBe(true);
    expect(theirs.data.map((e) => e.event_id)).toEqual(["other-app"]);
  });

  it("streams ndjson one record a line, without Content-Disposition", async () => {
    const response = await rt.get(
      `/api/v1/export?timestamp=${unix(T0)}&format=ndjson`,
      keys.serverKey,
    );
    expect(response.headers.get("content-type")).toMatch(/ndjson/);
    expect(response.headers.get("content-disposition")).toBeNull();
    const lines = (await response.text()).trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l).event_id)).toEqual([
      "first",
      "a-tie",
      "b-tie",
      "no-attribution",
    ]);
  });

  it.each([
    ["csv", "text/csv"],
    ["tsv", "text/tab-separated-values"],
    ["xml", "application/xml"],
    ["xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
    ["parquet", "application/vnd.apache.parquet"],
  ])("sends %s as a download named for app, window and page", async (format, type) => {
    const response = await rt.get(
      `/api/v1/export?timestamp=${unix(T0)}&format=${format}&limit=2&offset=1`,
      keys.serverKey,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain(type);
    const disposition = response.headers.get("content-disposition") ?? "";
    expect(disposition).toMatch(
      new RegExp(
        `^attachment; filename="${APP.replaceAll(".", "\\.")}_events_20261101T000000Z-\\d{8}T\\d{6}Z_rows-2-3\\.${format}"$`,
      ),
    );
    await response.arrayBuffer();
  });

  it("writes tsv that a reader which does not unquote reads back cell for cell", async () => {
    const app = "com.example.tabs";
    const tabsKeys = await rt.createApp(app);
    const values = ["tab\there", "line\nbreak", "cr\rhere", "back\\slash", 'say "hi"', "plain"];
    await rt.streams.events.put(
      values.map((value, i) =>
        lakeEvent({
          app_id: app,
          event_id: `tabs-${i}`,
          event_time: iso(T0 + i * 1_000),
          customer_user_id: value,
        }),
      ),
    );
    await rt.flush();
    const response = await rt.get(
      `/api/v1/export?timestamp=${unix(T0)}&format=tsv`,
      tabsKeys.serverKey,
    );
    const text = await response.text();
    // DuckDB told that nothing is quoted: every line, split on tabs, is one event's fields.
    const dir = await mkdtemp(join(tmpdir(), "tsv-"));
    const file = join(dir, "page.tsv");
    await writeFile(file, text);
    const instance = await DuckDBInstance.create(":memory:");
    try {
      const connection = await instance.connect();
      const read = await connection.runAndReadAll(
        `SELECT event_id, customer_user_id FROM read_csv('${file}', delim = '\t', quote = '',
           escape = '', header = true, all_varchar = true, columns = {${COLUMN_NAMES.map((name) => `'${name}': 'VARCHAR'`).join(", ")}})
         ORDER BY event_id`,
      );
      const rows = read.getRowObjectsJS() as { event_id: string; customer_user_id: string }[];
      expect(rows.map((row) => row.event_id)).toEqual(values.map((_, i) => `tabs-${i}`));
      expect(rows.map((row) => unescapeTsvField(row.customer_user_id))).toEqual(values);
      connection.closeSync();
    } finally {
      instance.closeSync();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("ends the window at the present: an event dated ahead is exported once its time has come", async () => {
    // One an hour ahead, which no export of this test reaches; one a few seconds ahead.
    const soon = Date.now() + 3_000;
    await rt.streams.events.put([
      lakeEvent({
        app_id: OTHER,
        event_id: "later",
        service_id: "o2",
        event_time: iso(soon + 3_600_000),
      }),
      lakeEvent({ app_id: OTHER, event_id: "soon", service_id: "o2", event_time: iso(soon) }),
    ]);
    await rt.streams.events.flush();
    const ids = async () =>
      (await page(`timestamp=${unix(soon) - 60}`, otherKeys.serverKey)).data.map(
        (row) => row.event_id,
      );
    expect(await ids()).not.toContain("later");
    // A new export once its time has passed: the window's present is its first page's.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, soon + 1_000 - Date.now())));
    const now = await ids();
    expect(now).toContain("soon");
    expect(now).not.toContain("later");
  });

  it("exports an event sent again once, at its first copy's time, though the phone's clock dated its copies apart", async () => {
    const retried = await rt.createApp("com.example.game.retried");
    const install = androidInstallRequest("retried-1");
    expect((await rt.post("/v1/installs", install, retried.sdkKey)).status).toBe(202);
    const now = Date.now();
    const purchase = {
      event_id: "purchase-1",
      service_id: "retried-1",
      event_type: "PURCHASE",
      event_time: iso(now - 10 * MINUTE),
      parameters: { revenue: 10, currency: "USD" },
    };
    // Sent by a phone 5 minutes fast, and kept (at now-15min), its answer lost on the way...
    const sent = (sentAt: number) =>
      rt.post("/v1/events", { sent_at: iso(sentAt), events: [purchase] }, retried.sdkKey);
    expect((await sent(now + 5 * MINUTE)).status).toBe(202);
    // ...then sent again once its clock was set right: this copy is kept at now-10min.
    expect((await sent(Date.now())).status).toBe(202);
    await rt.flush();
    const purchases = async (since: number) =>
      (await page(`timestamp=${unix(since)}`, retried.serverKey)).data.filter(
        (row) => row.event_id === "purchase-1",
      );
    // A job pulling from 20 minutes ago, then from 12 minutes ago, counts it once.
    const first = await purchases(now - 20 * MINUTE);
    expect(first).toHaveLength(1);
    // Where the request's time on the way puts it: a few milliseconds later.
    const kept = Date.parse(first[0]?.event_time ?? "") - (now - 15 * MINUTE);
    expect(kept).toBeGreaterThanOrEqual(0);
    expect(kept).toBeLessThan(MINUTE);
    expect(await purchases(now - 12 * MINUTE)).toEqual([]);
  });

  it("pages with limit and offset; a short page is the last", async () => {
    const first = await page(`timestamp=${unix(T0)}&limit=3&offset=0`);
    const last = await page(`timestamp=${unix(T0)}&limit=3&offset=3`);
    const beyond = await page(`timestamp=${unix(T0)}&limit=3&offset=6`);
    expect(first.data.map((e) => e.event_id)).toEqual(["first", "a-tie", "b-tie"]);
    expect(first.total_count).toBe(3);
    expect(last.data.map((e) => e.event_id)).toEqual(["no-attribution"]);
    expect(last.total_count).toBe(1);
    expect(beyond).toEqual({ data: [], total_count: 0 });
  });

  it("answers an unexpected failure with 500 and no internals", async () => {
    const broken = "com.example.broken";
    const brokenKeys = await rt.createApp(broken);
    const { mkdir, writeFile } = await import("node:fs/promises");
    const dir = `${rt.config.dataDir}/lake/events/app_id=${broken}/dt=2026-11-01`;
    await mkdir(dir, { recursive: true });
    await writeFile(`${dir}/part-corrupt.parquet`, "this is not parquet");
    const response = await rt.get(`/api/v1/export?timestamp=${unix(T0)}`, brokenKeys.serverKey);
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: string; detail: string };
    expect(body).toEqual({ error: "Internal Server Error", detail: expect.any(String) });
    expect(body.detail).not.toMatch(/parquet|duckdb|\/|Error:/i);
  });

  it("answers an unknown route with 404 in the same body shape", async () => {
    const response = await rt.get("/api/v2/export", keys.serverKey);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "Not Found", detail: expect.any(String) });
  });
});

/**
 * The export on any target where it runs: every format, page by page through one snapshot, the
 * same rows in each, and only the key's app's rows. The events are sent as an SDK sends them
 * and waited for as a server would, by asking again until they are there.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import ExcelJS from "exceljs";
import { XMLParser } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { EXPORT_FORMATS, type ExportFormat } from "../../../src/export/formats/names.ts";
import { SNAPSHOT_HEADER } from "../../../src/export/paging.ts";
import type { ExportRecord } from "../../../src/record/columns.ts";
import { installRequest } from "../../support/installs.ts";
import { itNeeds, type Keys, openTarget, type Target } from "../../support/target.ts";

const EVENTS = 5;
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

/** The event ids of one page in `format`, in the order the page gives them. */
const idsOf = async (
  format: ExportFormat,
  body: Buffer,
  dir: string,
): Promise<(string | null)[]> => {
  if (format === "json") {
    return (JSON.parse(body.toString()) as { data: ExportRecord[] }).data.map((r) => r.event_id);
  }
  if (format === "ndjson") {
    const text = body.toString().trimEnd();
    return text ? text.split("\n").map((line) => (JSON.parse(line) as ExportRecord).event_id) : [];
  }
  if (format === "xml") {
    const doc = new XMLParser({ isArray: (name) => name === "event", parseTagValue: false }).parse(
      body.toString(),
    ) as { events: { event?: { event_id: string }[] } | "" };
    return doc.events === "" ? [] : (doc.events.event ?? []).map((e) => e.event_id);
  }
  if (format === "xlsx") {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(body as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    const header = sheet?.getRow(1).values as unknown[];
    const column = header.indexOf("event_id");
    const ids: string[] = [];
    for (let row = 2; row <= (sheet?.rowCount ?? 0); row++) {
      ids.push(String(sheet?.getRow(row).getCell(column).value));
    }
    return ids;
  }
  const file = join(dir, `${randomUUID()}.${format}`);
  await writeFile(file, body);
  const read =
    format === "parquet"
      ? `read_parquet('${file}')`
      : `read_csv('${file}', header = true, all_varchar = true, delim = '${format === "tsv" ? "\t" : ","}', quote = '${format === "tsv" ? "" : '"'}')`;
  const duckdb = await DuckDBInstance.create(":memory:");
  try {
    const connection = await duckdb.connect();
    const reader = await connection.runAndReadAll(`SELECT event_id FROM ${read}`);
    connection.closeSync();
    return reader.getRowObjectsJS().map((row) => String(row.event_id));
  } finally {
    duckdb.closeSync();
  }
};

describe("the export", () => {
  let target: Target;
  let dir: string;
  let app: string;
  let keys: Keys;
  let otherKeys: Keys;
  const since = Math.floor(Date.now() / 1000) - 86_400;
  const serviceId = randomUUID();
  const otherServiceId = randomUUID();
  const eventIds = Array.from({ length: EVENTS }, (_, i) => `e-${i + 1}-${serviceId}`);

  const exportOf = async (key: string, query = "") => {
    const response = await target.get(`/api/v1/export?timestamp=${since}&limit=10000${query}`, key);
    expect(response.status).toBe(200);
    return (await response.json()) as { data: ExportRecord[]; total_count: number };
  };

  const send = async (sdkKey: string, id: string, events: string[]) => {
    expect((await target.post("/v1/installs", installRequest(id), sdkKey)).status).toBe(202);
    const response = await target.post(
      "/v1/events",
      {
        events: events.map((eventId, i) => ({
          event_id: eventId,
          service_id: id,
          event_type: "LEVEL_COMPLETE",
          event_time: minutesAgo(30 - i),
        })),
      },
      sdkKey,
    );
    expect(((await response.json()) as { accepted: number }).accepted).toBe(events.length);
  };

  beforeAll(async () => {
    target = await openTarget();
    dir = await mkdtemp(join(tmpdir(), "export-pages-"));
    app = target.appId("com.example.exported");
    keys = await target.createApp(app, "ios");
    otherKeys = await target.createApp(target.appId("com.example.exported.other"), "ios");
    await send(keys.sdkKey, serviceId, eventIds);
    await send(otherKeys.sdkKey, otherServiceId, [`other-${otherServiceId}`]);
  });

  afterAll(async () => {
    await target?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The whole export once the events sent, and the install's own event, are in it. */
  const delivered = () =>
    target.eventually("the events are in the export", async () => {
      const page = await exportOf(keys.serverKey);
      const ids = page.data.map((r) => r.event_id);
      for (const id of eventIds) expect(ids).toContain(id);
      expect(page.data.some((r) => r.event_name === "service_install")).toBe(true);
      return page;
    });

  itNeeds(
    ["export"],
    "answers 422 with the spec's body to a bad query, naming the parameter",
    async () => {
      for (const [query, detail] of [
        ["format=json", /timestamp/],
        ["timestamp=yesterday", /timestamp/],
        ["timestamp=1.5", /timestamp/],
        ["timestamp=1e9", /timestamp/],
        [`timestamp=${since}&format=pdf`, /format/],
        [`timestamp=${since}&limit=0`, /limit/],
        [`timestamp=${since}&limit=10001`, /limit/],
        [`timestamp=${since}&limit=ten`, /limit/],
        [`timestamp=${since}&offset=-1`, /offset/],
        [`timestamp=${since}&offset=2.5`, /offset/],
        // A repeat is refused, not read as its last value: one of these limits is out of range.
        [`timestamp=${since}&limit=0&limit=5`, /^query: gives "limit" more than once/],
        [`timestamp=1&timestamp=${since}`, /^query: gives "timestamp" more than once/],
      ] as const) {
        const response = await target.get(`/api/v1/export?${query}`, keys.serverKey);
        expect(response.status, query).toBe(422);
        const body = (await response.json()) as { error: string; detail: string };
        expect(body.error).toBe("Unprocessable Entity");
        expect(body.detail).toMatch(detail);
        expect(Object.keys(body).sort()).toEqual(["detail", "error"]);
      }
    },
  );

  itNeeds(["export"], "ignores a parameter it does not know, repeated or not", async () => {
    const reference = (await delivered()).data.map((r) => r.event_id);
    const response = await target.get(
      `/api/v1/export?timestamp=${since}&limit=2&offset=1&utm_source=a&utm_source=b`,
      keys.serverKey,
    );
    expect(response.status).toBe(200);
    // The page its known parameters ask for, as though the others were not there.
    const page = (await response.json()) as { data: ExportRecord[]; total_count: number };
    expect(page.data.map((r) => r.event_id)).toEqual(reference.slice(1, 3));
    expect(page.total_count).toBe(2);
  });

  itNeeds(["export"], "answers HEAD with the headers only", async () => {
    const response = await target.fetch(
      `/api/v1/export?timestamp=${since}&format=csv`,
      { method: "HEAD" },
      keys.serverKey,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toMatch(/^attachment/);
    expect(await response.text()).toBe("");
  });

  itNeeds(["export"], "gives the app's events in time order, and never another app's", async () => {
    const { data, total_count } = await delivered();
    expect(total_count).toBe(data.length);
    expect(data.every((r) => r.app_id === app)).toBe(true);
    const mine = data.map((r) => r.event_id).filter((id) => eventIds.includes(id ?? ""));
    expect(mine).toEqual(eventIds);
    const times = data.map((r) => r.event_time ?? "");
    expect([...times].sort()).toEqual(times);
    const theirs = await target.eventually("the other app's event is in its export", async () => {
      const page = await exportOf(otherKeys.serverKey);
      expect(page.data.map((r) => r.event_id)).toContain(`other-${otherServiceId}`);
      return page;
    });
    expect(theirs.data.every((r) => r.service_id === otherServiceId)).toBe(true);
  });

  for (const format of EXPORT_FORMATS) {
    itNeeds(["export"], `pages ${format} through one snapshot, the same rows as json`, async () => {
      const reference = (await delivered()).data.map((r) => r.event_id);
      const pages: (string | null)[][] = [];
      let snapshot: string | null = null;
      for (let offset = 0; offset < reference.length; offset += 2) {
        const response = await target.get(
          `/api/v1/export?timestamp=${since}&format=${format}&limit=2&offset=${offset}${snapshot ? `&snapshot=${snapshot}` : ""}`,
          keys.serverKey,
        );
        expect(response.status).toBe(200);
        if (format !== "json" && format !== "ndjson") {
          expect(response.headers.get("content-disposition")).toMatch(
            new RegExp(`_rows-${offset + 1}-\\d+\\.${format}"$`),
          );
        }
        snapshot ??= response.headers.get(SNAPSHOT_HEADER);
        expect(response.headers.get(SNAPSHOT_HEADER)).toBe(snapshot);
        pages.push(await idsOf(format, Buffer.from(await response.arrayBuffer()), dir));
      }
      expect(pages.every((page) => page.length <= 2)).toBe(true);
      expect(pages.flat()).toEqual(reference);
    });
  }
});

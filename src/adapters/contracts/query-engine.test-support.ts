/**
 * The lake query engine's contract (LakeQueryEngine in src/ports/lake.ts), one suite for the
 * adapters behind the port: DuckDB over the lake folder on the embedded runtime, Athena over
 * the bucket on AWS. Each adapter's test file calls `describeQueryEngineContract` with a
 * factory of its own side, which lays the given records in its lake as its streams would.
 *
 * Only DuckDB's side runs here. Athena cannot run on this machine: no local server answers
 * Athena's API by running the SQL (moto's Athena returns results set up beforehand, which
 * would test nothing), and its side needs the Glue tables' partition projection over S3.
 * An Athena factory would lay the records as Parquet under the lake bucket's partitions and
 * run against a deployed stack's workgroup; that is for the deployed target, not `npm test`.
 */
import { describe, expect, it } from "vitest";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  type LakeRecord,
  nullColumns,
} from "../../lake/lake-tables.ts";
import type { LakeQueryEngine } from "../../ports/lake.ts";
import type { ExportRecord } from "../../record/columns.ts";

export interface QueryEngineUnderTest {
  readonly engine: LakeQueryEngine;
  close(): Promise<void>;
}

/** Makes an engine over a lake holding these records, each list delivered in that order. */
export type QueryEngineFactory = (lake: {
  readonly events: readonly (readonly LakeRecord[])[];
  readonly attributions: readonly LakeRecord[];
}) => Promise<QueryEngineUnderTest>;

const APP = "com.example.contract";
const OTHER_APP = "com.example.other";
const SINCE = new Date("2026-11-01T00:00:00.000Z");

const event = (
  eventId: string,
  serviceId: string,
  eventTime: string,
  overrides: Partial<LakeRecord> = {},
): LakeRecord => ({
  ...nullColumns(EVENTS_TABLE),
  app_id: APP,
  event_id: eventId,
  service_id: serviceId,
  event_time: eventTime,
  event_name: "service_login",
  event_type: "LOGIN",
  os: "android",
  received_at: eventTime,
  ...overrides,
});

const attribution = (
  serviceId: string,
  attributedAt: string,
  overrides: Partial<LakeRecord> = {},
): LakeRecord => ({
  ...nullColumns(ATTRIBUTIONS_TABLE),
  app_id: APP,
  service_id: serviceId,
  attributed_at: attributedAt,
  media_source: "organic",
  ...overrides,
});

/**
 * s1 has two attributions (the later wins), s2 one, s4 none; s3's install is the one a
 * deletion request leaves out. e3 arrives twice, as an SDK retry or Firehose's at-least-once
 * delivery makes it; e0 is before the window; b1 is another app's.
 */
const LAKE = {
  events: [
    [
      event("e1", "s1", "2026-11-01T10:00:00.000Z", { revenue: 4.99, currency: "EUR" }),
      event("e2", "s2", "2026-11-01T10:00:00.000Z"),
      event("e0", "s2", "2026-10-31T23:59:59.999Z"),
      event("e5", "s4", "2026-11-01T09:00:00.000Z"),
      event("e4", "s3", "2026-11-03T08:00:00.000Z"),
      event("b1", "s1", "2026-11-01T10:00:00.000Z", { app_id: OTHER_APP }),
    ],
    [event("e3", "s1", "2026-11-02T10:00:00.000Z")],
    [event("e3", "s1", "2026-11-02T10:00:00.000Z", { received_at: "2026-11-02T10:05:00.000Z" })],
  ],
  attributions: [
    attribution("s1", "2026-11-01T09:00:00.000Z"),
    attribution("s1", "2026-11-01T11:00:00.000Z", {
      media_source: "meta_ads",
      campaign_id: "c-9",
      matching_type: "network",
    }),
    attribution("s2", "2026-11-01T08:00:00.000Z", { media_source: "google_ads" }),
  ],
} as const;

const collect = async (rows: AsyncIterable<ExportRecord>): Promise<ExportRecord[]> => {
  const out: ExportRecord[] = [];
  for await (const row of rows) out.push(row);
  return out;
};

export const describeQueryEngineContract = (name: string, factory: QueryEngineFactory): void => {
  describe(`query engine contract: ${name}`, () => {
    const withEngine = async (test: (engine: LakeQueryEngine) => Promise<void>) => {
      const side = await factory(LAKE);
      try {
        await test(side.engine);
      } finally {
        await side.close();
      }
    };

    it("materialises the app's events since the timestamp, each once, by time then id", () =>
      withEngine(async (engine) => {
        const snapshot = await engine.materialize({ appId: APP, since: SINCE, snapshotId: "a" });
        const rows = await collect(engine.readPage(snapshot, 0, 100));
        expect(rows.map((row) => row.event_id)).toEqual(["e5", "e1", "e2", "e3", "e4"]);
        if (snapshot.rowCount !== undefined) expect(snapshot.rowCount).toBe(5);
        expect(rows.every((row) => row.app_id === APP)).toBe(true);
        expect(rows[1]).toMatchObject({
          event_time: "2026-11-01T10:00:00.000Z",
          revenue: 4.99,
          currency: "EUR",
        });
      }));

    it("joins each event with its install's latest attribution, or nulls", () =>
      withEngine(async (engine) => {
        const snapshot = await engine.materialize({ appId: APP, since: SINCE, snapshotId: "b" });
        const byId = new Map(
          (await collect(engine.readPage(snapshot, 0, 100))).map((row) => [row.event_id, row]),
        );
        expect(byId.get("e1")).toMatchObject({
          media_source: "meta_ads",
          campaign_id: "c-9",
          matching_type: "network",
        });
        expect(byId.get("e3")).toMatchObject({ media_source: "meta_ads" });
        expect(byId.get("e2")).toMatchObject({ media_source: "google_ads", campaign_id: null });
        expect(byId.get("e5")).toMatchObject({ media_source: null, campaign_id: null });
      }));

    it("leaves out the installs it is told to", () =>
      withEngine(async (engine) => {
        const snapshot = await engine.materialize({
          appId: APP,
          since: SINCE,
          snapshotId: "c",
          excludeServiceIds: ["s3", "s2"],
        });
        const rows = await collect(engine.readPage(snapshot, 0, 100));
        expect(rows.map((row) => row.event_id)).toEqual(["e5", "e1", "e3"]);
      }));

    it("ends the window at the present it is given: an event dated later is not yet in it", () =>
      withEngine(async (engine) => {
        // The present at e3's time: e3 is in, e4 (the 3rd) is ahead.
        const snapshot = await engine.materialize({
          appId: APP,
          since: SINCE,
          until: new Date("2026-11-02T10:00:00.000Z"),
          snapshotId: "u",
        });
        const rows = await collect(engine.readPage(snapshot, 0, 100));
        expect(rows.map((row) => row.event_id)).toEqual(["e5", "e1", "e2", "e3"]);
      }));

    it("pages are slices of one snapshot: together the whole, past the end nothing", () =>
      withEngine(async (engine) => {
        const snapshot = await engine.materialize({ appId: APP, since: SINCE, snapshotId: "d" });
        const whole = await collect(engine.readPage(snapshot, 0, 100));
        const pages = [
          ...(await collect(engine.readPage(snapshot, 0, 2))),
          ...(await collect(engine.readPage(snapshot, 2, 2))),
          ...(await collect(engine.readPage(snapshot, 4, 2))),
        ];
        expect(pages).toEqual(whole);
        expect(await collect(engine.readPage(snapshot, 5, 10))).toEqual([]);
      }));

    it("materialises nothing for an app with no events in the window", () =>
      withEngine(async (engine) => {
        const snapshot = await engine.materialize({
          appId: "com.example.empty",
          since: SINCE,
          snapshotId: "e",
        });
        expect(await collect(engine.readPage(snapshot, 0, 100))).toEqual([]);
      }));
  });
};

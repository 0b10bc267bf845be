import {
  AthenaClient,
  GetQueryExecutionCommand,
  type GetQueryExecutionCommandOutput,
  GetQueryRuntimeStatisticsCommand,
  StartQueryExecutionCommand,
} from "@aws-sdk/client-athena";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { COLUMN_NAMES, EXPORT_COLUMNS, type ExportRecord } from "../../record/columns.ts";
import { exportRecordSchema } from "../../record/schema.ts";
import { exclusionList } from "./exclusions.ts";
import { createFakeS3 } from "./fake-s3.test-support.ts";
import { PageCheckpoints } from "./page-checkpoints.ts";
import { createAthenaQueryEngine } from "./query-engine.ts";
import { clientRequestToken } from "./run-query.ts";

const BUCKET = "athena-results";
const KEY = "exports/3f1c-query.csv";
const LOCATION = `s3://${BUCKET}/${KEY}`;
const SIDECAR = `${KEY}.pages.json`;

const NULL_RECORD = exportRecordSchema.parse(
  Object.fromEntries(EXPORT_COLUMNS.map((c) => [c.name, null])),
);

/** A record with every column null, then the given values. */
const exportRecord = (values: Partial<ExportRecord>): ExportRecord => ({
  ...NULL_RECORD,
  ...values,
});

/** Writes a value the way Athena does: quoted, with NULL as an unquoted empty field. */
const athenaField = (value: string | number | null): string =>
  value === null ? "" : `"${String(value).replaceAll('"', '""')}"`;

const athenaCsv = (rows: readonly (readonly (string | number | null)[])[]): string =>
  [COLUMN_NAMES, ...rows].map((row) => `${row.map(athenaField).join(",")}\n`).join("");

const rowOf = (record: ExportRecord) => COLUMN_NAMES.map((name) => record[name]);

/** Rows with awkward content: multi-byte text, quotes, commas and newlines inside fields. */
const sampleRecords = (count: number): ExportRecord[] =>
  Array.from({ length: count }, (_, i) =>
    exportRecord({
      event_id: `e${String(i).padStart(4, "0")}`,
      event_time: `2026-11-01T10:00:${String(i % 60).padStart(2, "0")}.000Z`,
      event_name: i % 3 === 0 ? "service_purchase" : "service_login",
      service_id: `s${i % 5}`,
      media_source: i % 4 === 0 ? null : "Zürich ☕ ads",
      campaign_name: i % 7 === 0 ? 'say "hi", then\nleave' : "",
      click_to_first_open_hours: i % 4 === 0 ? null : i,
      app_id: "com.example.app",
      revenue: i % 3 === 0 ? i + 0.99 : null,
      revenue_usd: i % 3 === 0 ? (i + 0.99) * 1.1 : null,
    }),
  );

const collect = async (rows: AsyncIterable<ExportRecord>): Promise<ExportRecord[]> => {
  const out: ExportRecord[] = [];
  for await (const row of rows) out.push(row);
  return out;
};

const execution = (
  State: "QUEUED" | "RUNNING" | "SUCCEEDED" | "FAILED" | "CANCELLED",
  extra: { StateChangeReason?: string; OutputLocation?: string; Retryable?: boolean } = {},
): Partial<GetQueryExecutionCommandOutput> => ({
  QueryExecution: {
    QueryExecutionId: "q-1",
    Status: {
      State,
      StateChangeReason: extra.StateChangeReason,
      ...(extra.Retryable === undefined ? {} : { AthenaError: { Retryable: extra.Retryable } }),
    },
    ResultConfiguration: { OutputLocation: extra.OutputLocation },
  },
});

describe("Athena query engine", () => {
  const athena = new AthenaClient({ region: "eu-west-1" });
  const athenaMock = mockClient(athena);
  let s3: ReturnType<typeof createFakeS3>;
  let warnings: unknown[];
  let engine: ReturnType<typeof createAthenaQueryEngine>;

  beforeEach(() => {
    athenaMock.reset();
    s3 = createFakeS3();
    warnings = [];
    engine = createAthenaQueryEngine({
      athena,
      s3: s3.client,
      workGroup: "exports",
      database: "attribution_lake",
      resultsBucket: BUCKET,
      pollIntervalMs: 1,
      onCheckpointError: (error) => warnings.push(error),
    });
  });

  it("refuses a poll interval that is not positive", () => {
    for (const pollIntervalMs of [0, -1, Number.NaN]) {
      expect(() =>
        createAthenaQueryEngine({
          athena,
          s3: s3.client,
          workGroup: "exports",
          database: "attribution_lake",
          resultsBucket: BUCKET,
          pollIntervalMs,
        }),
      ).toThrow(RangeError);
    }
  });

  it("names a database of any name as a name in its queries", async () => {
    athenaMock.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-1" });
    athenaMock
      .on(GetQueryExecutionCommand)
      .resolves(execution("SUCCEEDED", { OutputLocation: LOCATION }));
    const quoted = createAthenaQueryEngine({
      athena,
      s3: s3.client,
      workGroup: "exports",
      database: 'lake"; DROP TABLE x; --',
      resultsBucket: BUCKET,
      pollIntervalMs: 1,
    });
    await quoted.materialize({ appId: "com.example.app", since: new Date(0), snapshotId: "s" });
    const [start] = athenaMock.commandCalls(StartQueryExecutionCommand);
    expect(start?.args[0].input.QueryString).toContain('FROM "lake""; DROP TABLE x; --"."events"');
  });

  describe("materialize", () => {
    const request = { appId: "com.example.app", since: new Date("2026-11-01T00:00:00Z") };

    it("starts the query idempotently in the workgroup and waits for its CSV result", async () => {
      athenaMock.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-1" });
      athenaMock
        .on(GetQueryExecutionCommand)
        .resolvesOnce(execution("QUEUED"))
        .resolvesOnce(execution("RUNNING"))
        .resolves(execution("SUCCEEDED", { OutputLocation: LOCATION }));

      const first = await engine.materialize({ ...request, snapshotId: "snap-1" });
      await engine.materialize({ ...request, snapshotId: "snap-1" });

      expect(first).toEqual({ location: LOCATION });
      const starts = athenaMock
        .commandCalls(StartQueryExecutionCommand)
        .map((c) => c.args[0].input);
      const [start] = starts;
      expect(start?.WorkGroup).toBe("exports");
      expect(start?.QueryExecutionContext?.Database).toBe("attribution_lake");
      expect(start?.QueryString).toContain('FROM "attribution_lake"."events"');
      expect(start?.QueryString).toContain('FROM "attribution_lake"."attributions"');
      expect(start?.QueryString).toContain("app_id = 'com.example.app'");
      expect(start?.ResultReuseConfiguration?.ResultReuseByAgeConfiguration).toEqual({
        Enabled: true,
        MaxAgeInMinutes: 5,
      });
      // A retry of the same snapshot sends the same token, so Athena runs the query once.
      expect(start?.ClientRequestToken).toBe(clientRequestToken("snap-1"));
      expect(start?.ClientRequestToken).toMatch(/^[0-9a-f]{64}$/);
      expect(starts[1]?.ClientRequestToken).toBe(start?.ClientRequestToken);
      expect(clientRequestToken("snap-2")).not.toBe(start?.ClientRequestToken);
      expect(athenaMock.commandCalls(GetQueryExecutionCommand).length).toBe(4);
    });

    it("counts the snapshot's rows where Athena's statistics give them, and goes on without", async () => {
      athenaMock.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-7" });
      athenaMock
        .on(GetQueryExecutionCommand)
        .resolves(execution("SUCCEEDED", { OutputLocation: LOCATION }));
      athenaMock
        .on(GetQueryRuntimeStatisticsCommand, { QueryExecutionId: "q-7" })
        .resolvesOnce({ QueryRuntimeStatistics: { Rows: { OutputRows: 20_037 } } })
        .resolvesOnce({ QueryRuntimeStatistics: {} })
        .resolvesOnce({ QueryRuntimeStatistics: { Rows: { OutputRows: 0 } } })
        .rejects(new Error("AccessDeniedException"));
      const counted = await engine.materialize({ ...request, snapshotId: "snap-7" });
      expect(counted).toEqual({ location: LOCATION, rowCount: 20_037 });
      // None said, none yet (a zero may be a statistic not come in), or none readable.
      for (const snapshotId of ["snap-8", "snap-9", "snap-10"]) {
        expect(await engine.materialize({ ...request, snapshotId })).toEqual({
          location: LOCATION,
        });
      }
    });

    it("leaves deleted installs out through a list it writes to the results bucket", async () => {
      athenaMock.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-1" });
      athenaMock
        .on(GetQueryExecutionCommand)
        .resolves(execution("SUCCEEDED", { OutputLocation: LOCATION }));
      // Thousands of ids: listed in the query, they would pass Athena's 262,144 bytes.
      const deleted = Array.from({ length: 8_000 }, (_, i) => `deleted-install-${i}-abcdefghijk`);
      await engine.materialize({ ...request, snapshotId: "snap-1", excludeServiceIds: deleted });
      await engine.materialize({
        ...request,
        snapshotId: "snap-2",
        excludeServiceIds: [...deleted].reverse(),
      });

      const list = exclusionList(deleted);
      expect(s3.text(BUCKET, list.key)?.split("\n").filter(Boolean).sort()).toEqual(
        [...deleted].sort(),
      );
      const [first, second] = athenaMock
        .commandCalls(StartQueryExecutionCommand)
        .map((c) => c.args[0].input.QueryString ?? "");
      expect(first).toContain(
        `AND events.service_id NOT IN (SELECT service_id FROM "attribution_lake"."export_exclusions" WHERE list = '${list.list}')`,
      );
      expect(first).not.toContain(deleted[0]);
      expect(first?.length).toBeLessThan(10_000);
      // The same installs, the same query: Athena may reuse the result.
      expect(second).toBe(first);
    });

    it("starts the query only once the list is written, and not at all when it cannot be", async () => {
      const deleted = ["s-1", "s-2"];
      const { key } = exclusionList(deleted);
      const listAtStart: (string | undefined)[] = [];
      athenaMock.on(StartQueryExecutionCommand).callsFake(async () => {
        listAtStart.push(s3.text(BUCKET, key));
        return { QueryExecutionId: "q-1" };
      });
      athenaMock
        .on(GetQueryExecutionCommand)
        .resolves(execution("SUCCEEDED", { OutputLocation: LOCATION }));
      await engine.materialize({ ...request, snapshotId: "snap-1", excludeServiceIds: deleted });
      expect(listAtStart).toEqual(["s-1\ns-2\n"]);

      s3.mock.on(PutObjectCommand).rejects(new Error("AccessDenied"));
      await expect(
        engine.materialize({ ...request, snapshotId: "snap-2", excludeServiceIds: ["s-3"] }),
      ).rejects.toThrow("AccessDenied");
      expect(athenaMock.commandCalls(StartQueryExecutionCommand)).toHaveLength(1);
    });

    it("writes no list when no install is left out", async () => {
      athenaMock.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-1" });
      athenaMock
        .on(GetQueryExecutionCommand)
        .resolves(execution("SUCCEEDED", { OutputLocation: LOCATION }));
      await engine.materialize({ ...request, snapshotId: "snap-1", excludeServiceIds: [] });
      expect(s3.mock.commandCalls(PutObjectCommand)).toHaveLength(0);
      const [start] = athenaMock.commandCalls(StartQueryExecutionCommand);
      expect(start?.args[0].input.QueryString).not.toContain("NOT IN");
    });

    it.each(["FAILED", "CANCELLED"] as const)("rejects when the query is %s", async (state) => {
      athenaMock.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-1" });
      athenaMock
        .on(GetQueryExecutionCommand)
        .resolvesOnce(execution("RUNNING"))
        .resolves(execution(state, { StateChangeReason: "TABLE_NOT_FOUND: events" }));

      await expect(engine.materialize({ ...request, snapshotId: "snap-1" })).rejects.toThrow(
        `Athena query q-1 ${state}: TABLE_NOT_FOUND: events`,
      );
      // Run again, it would fail again.
      expect(athenaMock.commandCalls(StartQueryExecutionCommand)).toHaveLength(1);
    });

    /** The tokens of the runs started so far. */
    const runTokens = () =>
      athenaMock
        .commandCalls(StartQueryExecutionCommand)
        .map((call) => call.args[0].input.ClientRequestToken);
    // What Athena says when the purge rewrote a lake file while the query read it.
    const FILE_CHANGED =
      "HIVE_FILESYSTEM_ERROR: Incorrect fileSize 18614 for file s3://lake/events/app_id=a/part-1.parquet";

    it.each([
      ["a lake file changed while it ran", { StateChangeReason: FILE_CHANGED }],
      [
        "a lake file was deleted while it ran",
        { StateChangeReason: "HIVE_CURSOR_ERROR: The specified key does not exist." },
      ],
      ["Athena marks the failure retryable", { StateChangeReason: "Internal", Retryable: true }],
    ])("runs the query again, with a token of its own, when %s", async (_, failure) => {
      athenaMock.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-1" });
      athenaMock
        .on(GetQueryExecutionCommand)
        .resolvesOnce(execution("FAILED", failure))
        .resolves(execution("SUCCEEDED", { OutputLocation: LOCATION }));

      await expect(engine.materialize({ ...request, snapshotId: "snap-1" })).resolves.toEqual({
        location: LOCATION,
      });
      expect(runTokens()).toEqual([
        clientRequestToken("snap-1"),
        clientRequestToken("snap-1#run-2"),
      ]);
    });

    it("gives up after three runs that each failed in a way a rerun cures", async () => {
      athenaMock.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-1" });
      athenaMock
        .on(GetQueryExecutionCommand)
        .resolves(execution("FAILED", { StateChangeReason: FILE_CHANGED }));

      await expect(engine.materialize({ ...request, snapshotId: "snap-1" })).rejects.toThrow(
        "Incorrect fileSize",
      );
      expect(runTokens()).toEqual(
        ["snap-1", "snap-1#run-2", "snap-1#run-3"].map(clientRequestToken),
      );
    });

    it("does not run a cancelled query again, whatever the reason given", async () => {
      athenaMock.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-1" });
      athenaMock
        .on(GetQueryExecutionCommand)
        .resolves(execution("CANCELLED", { StateChangeReason: FILE_CHANGED, Retryable: true }));

      await expect(engine.materialize({ ...request, snapshotId: "snap-1" })).rejects.toThrow(
        "CANCELLED",
      );
      expect(runTokens()).toHaveLength(1);
    });

    it("rejects a success without an output location", async () => {
      athenaMock.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-1" });
      athenaMock.on(GetQueryExecutionCommand).resolves(execution("SUCCEEDED"));
      await expect(engine.materialize({ ...request, snapshotId: "snap-1" })).rejects.toThrow(
        /without an output location/,
      );
    });
  });

  describe("readPage", () => {
    const snapshot = { location: LOCATION };
    const page = (offset: number, limit: number) =>
      collect(engine.readPage(snapshot, offset, limit));

    it("tells NULL from the empty string and types numbers from the column list", async () => {
      const csv = `${COLUMN_NAMES.map(athenaField).join(",")}\n${COLUMN_NAMES.map((name) => {
        const values: Record<string, string> = {
          event_id: '"e1"',
          event_name: '""',
          media_source: "",
          campaign_name: '"a, ""quoted""\nname"',
          click_to_first_open_hours: '"26"',
          revenue: '"4.99"',
          revenue_usd: '"1.0E-4"',
          country: '"DE"',
        };
        return values[name] ?? "";
      }).join(",")}\n`;
      s3.put(BUCKET, KEY, csv);

      const [record] = await page(0, 10);

      expect(record).toEqual(
        exportRecord({
          event_id: "e1",
          event_name: "",
          media_source: null,
          campaign_name: 'a, "quoted"\nname',
          click_to_first_open_hours: 26,
          revenue: 4.99,
          revenue_usd: 0.0001,
          country: "DE",
        }),
      );
    });

    it("rejects a value that is not a number in a numeric column", async () => {
      const row = rowOf(exportRecord({ event_id: "e1" })).map((value, i) =>
        COLUMN_NAMES[i] === "revenue" ? "4,99" : value,
      );
      s3.put(BUCKET, KEY, athenaCsv([row]));
      await expect(page(0, 10)).rejects.toThrow(
        "Athena result column revenue is not a number: 4,99",
      );
    });

    it("rejects a result whose header is not the export columns in order", async () => {
      const swapped = [COLUMN_NAMES[1] ?? "", COLUMN_NAMES[0] ?? "", ...COLUMN_NAMES.slice(2)];
      s3.put(BUCKET, KEY, `${swapped.map(athenaField).join(",")}\n`);
      await expect(page(0, 10)).rejects.toThrow(/header does not match the export columns/);

      s3.put(BUCKET, KEY, `${COLUMN_NAMES.slice(0, -1).map(athenaField).join(",")}\n`);
      await expect(page(0, 10)).rejects.toThrow(/header does not match the export columns/);
    });

    it("serves consecutive pages that add up to the whole result, each from a checkpoint", async () => {
      const records = sampleRecords(50);
      s3.put(BUCKET, KEY, athenaCsv(records.map(rowOf)));

      const pages: ExportRecord[][] = [];
      for (let offset = 0; offset < 56; offset += 7) pages.push(await page(offset, 7));

      expect(pages.flat()).toEqual(records);
      expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 7, 7, 7, 7, 1]);
      // The first page reads from byte 0 (and checks the header); every later one starts at
      // the row where the previous page ended.
      const csvReads = s3.served.filter((b) => b.key === KEY);
      expect(csvReads.map((b) => b.range === undefined)).toEqual([
        true,
        false,
        false,
        false,
        false,
        false,
        false,
        false,
      ]);
      const saved = PageCheckpoints.parse(s3.text(BUCKET, SIDECAR) ?? "");
      expect(saved?.toJSON().rows.map(([row]) => row)).toEqual([7, 14, 21, 28, 35, 42, 49]);
      expect(warnings).toEqual([]);
    });

    it("starts a deep page at the nearest checkpoint before it and skips the rest", async () => {
      const records = sampleRecords(50);
      s3.put(BUCKET, KEY, athenaCsv(records.map(rowOf)));
      await page(0, 10); // learns where row 10 starts
      await page(30, 5); // from row 10: learns rows 30 and 35

      expect(await page(33, 4)).toEqual(records.slice(33, 37));
      expect(await page(12, 3)).toEqual(records.slice(12, 15));
      expect(await page(5, 10)).toEqual(records.slice(5, 15));

      const csv = Buffer.from(s3.text(BUCKET, KEY) ?? "");
      const saved = PageCheckpoints.parse(s3.text(BUCKET, SIDECAR) ?? "");
      const ranges = s3.served.filter((b) => b.key === KEY).map((b) => b.range);
      const startOf = (row: number) => saved?.nearest(row)?.byte;
      expect(ranges).toEqual([
        undefined,
        `bytes=${startOf(10)}-`,
        `bytes=${startOf(30)}-`,
        `bytes=${startOf(10)}-`,
        undefined, // nothing known before row 5
      ]);
      // Each checkpoint is the byte where that row's line begins (after a row delimiter).
      for (const [row, byte] of saved?.toJSON().rows ?? []) {
        expect(csv[byte - 1]).toBe("\n".charCodeAt(0));
        const line = csv.subarray(byte, byte + 8).toString("utf8");
        expect(line).toBe(`"${records[row]?.event_id}",`.slice(0, 8));
      }
    });

    it("stops downloading once the page is complete", async () => {
      const records = sampleRecords(2_000);
      s3.put(BUCKET, KEY, athenaCsv(records.map(rowOf)));

      expect(await page(0, 5)).toEqual(records.slice(0, 5));

      const [read] = s3.served.filter((b) => b.key === KEY);
      expect(read?.stream.destroyed).toBe(true);
      // What was pulled is the streams' read-ahead (a few 16 KiB buffers), not the object.
      expect(s3.size(BUCKET, KEY)).toBeGreaterThan(200_000);
      expect(read?.pulled).toBeLessThan(64 * 1024);
    });

    it("stops downloading when the consumer stops early", async () => {
      s3.put(BUCKET, KEY, athenaCsv(sampleRecords(2_000).map(rowOf)));
      for await (const _ of engine.readPage(snapshot, 0, 1_000)) break;
      const [read] = s3.served.filter((b) => b.key === KEY);
      expect(read?.stream.destroyed).toBe(true);
    });

    it("answers empty past the end, also when the last page ended exactly at the end", async () => {
      const records = sampleRecords(14);
      s3.put(BUCKET, KEY, athenaCsv(records.map(rowOf)));

      expect(await page(7, 7)).toEqual(records.slice(7));
      expect(await page(14, 7)).toEqual([]);
      expect(await page(100, 7)).toEqual([]);
      expect(await page(3, 0)).toEqual([]);
      // Row 14 would start at the end of the object: no checkpoint points there.
      const saved = PageCheckpoints.parse(s3.text(BUCKET, SIDECAR) ?? "");
      expect(saved?.toJSON().rows.map(([row]) => row)).toEqual([7]);
    });

    it("ignores checkpoints taken on other content and reads from the start", async () => {
      const records = sampleRecords(20);
      s3.put(BUCKET, KEY, athenaCsv(records.map(rowOf)));
      await page(0, 10);
      // Same size, different content: the ETag no longer matches the checkpoints.
      const changed = records.map((r) => ({
        ...r,
        event_id: r.event_id?.replace("e", "x") ?? null,
      }));
      s3.put(BUCKET, KEY, athenaCsv(changed.map(rowOf)));

      expect(await page(10, 5)).toEqual(changed.slice(10, 15));
      expect(s3.served.filter((b) => b.key === KEY).map((b) => b.range === undefined)).toEqual([
        true,
        false,
        true,
      ]);
      // The checkpoints saved then are the new content's own.
      const etag = s3.mock
        .commandCalls(PutObjectCommand)
        .filter((call) => call.args[0].input.Key === SIDECAR)
        .map((call) => PageCheckpoints.parse(String(call.args[0].input.Body))?.etag);
      expect(new Set(etag).size).toBe(2);
    });

    it("saves its checkpoints only when a page learnt where a row starts", async () => {
      const records = sampleRecords(20);
      s3.put(BUCKET, KEY, athenaCsv(records.map(rowOf)));
      const saves = () =>
        s3.mock.commandCalls(PutObjectCommand).filter((call) => call.args[0].input.Key === SIDECAR)
          .length;
      await page(0, 10);
      expect(saves()).toBe(1);
      // The same page again: its start and the next page's are known already.
      await page(0, 10);
      expect(saves()).toBe(1);
    });

    it("refuses an offset or a limit that is no count", async () => {
      for (const [offset, limit] of [
        [-1, 5],
        [0, -5],
        [1.5, 5],
        [0, Number.POSITIVE_INFINITY],
      ] as const) {
        await expect(
          collect(engine.readPage({ location: LOCATION }, offset, limit)),
          `${offset} ${limit}`,
        ).rejects.toThrow(RangeError);
      }
    });

    it("ignores an unusable checkpoint file, with a warning", async () => {
      const records = sampleRecords(20);
      s3.put(BUCKET, KEY, athenaCsv(records.map(rowOf)));
      s3.put(BUCKET, SIDECAR, '{"version":1,"etag":"x","size":10,"rows":[[5,40]]}');

      expect(await page(10, 5)).toEqual(records.slice(10, 15));
      expect(warnings).toHaveLength(1);
    });

    it("still serves the page when checkpoints cannot be saved", async () => {
      const records = sampleRecords(20);
      s3.put(BUCKET, KEY, athenaCsv(records.map(rowOf)));
      s3.mock.on(PutObjectCommand).rejects(new Error("AccessDenied"));

      expect(await page(0, 5)).toEqual(records.slice(0, 5));
      expect(warnings).toEqual([new Error("AccessDenied")]);
    });

    it("rejects a location that is not an S3 URI", async () => {
      await expect(collect(engine.readPage({ location: "/tmp/x.csv" }, 0, 1))).rejects.toThrow(
        /Not an S3 object URI/,
      );
    });
  });
});

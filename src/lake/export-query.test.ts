import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { DUCKDB_TYPES } from "../adapters/duckdb/lake-sql.ts";
import { EXPORT_COLUMNS } from "../record/columns.ts";
import {
  buildExportQuery,
  buildExportRowsQuery,
  buildLatestAttributionsQuery,
  buildRepeatedEventsQuery,
  type Exclusion,
  sqlString,
} from "./export-query.ts";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE, type LakeTable, PARTITION_KEYS } from "./lake-tables.ts";

const input = {
  appId: "com.example.game",
  since: new Date("2026-11-01T06:30:00Z"),
  sources: { events: "ev_src", attributions: "att_src" },
};

describe("export query", () => {
  it("selects every column in the record's order", () => {
    const sql = buildExportQuery({ ...input, dialect: "duckdb" });
    const select = sql.slice(sql.lastIndexOf("SELECT\n"), sql.indexOf("\nFROM ev\n"));
    const aliases = [...select.matchAll(/ AS (\w+)/g)].map((m) => m[1]);
    expect(aliases).toEqual(EXPORT_COLUMNS.map((c) => c.name));
  });

  it("prunes partitions by app and date and filters by the exact time", () => {
    const sql = buildExportQuery({ ...input, dialect: "athena" });
    expect(sql).toContain("app_id = 'com.example.game'");
    // Read from a day before, for earlier copies of its events, which it then leaves out.
    expect(sql).toContain("dt >= '2026-10-31'");
    expect(sql).toContain(
      "events.event_time >= from_iso8601_timestamp('2026-10-31T06:30:00.000Z')",
    );
    expect(sql).toContain(
      "WHERE ev.copy_no = 1\n  AND ev.event_time >= from_iso8601_timestamp('2026-11-01T06:30:00.000Z')",
    );
  });

  it("de-duplicates event ids and joins only the latest attribution", () => {
    const sql = buildExportQuery({ ...input, dialect: "duckdb" });
    // Only the keys held more than once go through a window, found by their hash first.
    expect(sql).toContain(
      "SELECT service_id, event_id FROM src WHERE hash(service_id, event_id) IN (SELECT hash(service_id, event_id) AS key_hash FROM src GROUP BY key_hash HAVING count(*) > 1) GROUP BY service_id, event_id HAVING count(*) > 1",
    );
    // Athena has no hash of two columns: it groups the keys themselves.
    expect(buildExportQuery({ ...input, dialect: "athena" })).toContain(
      "SELECT service_id, event_id FROM src GROUP BY service_id, event_id HAVING count(*) > 1",
    );
    expect(sql).toMatch(
      /row_number\(\) OVER \(PARTITION BY src.service_id, src.event_id ORDER BY src.received_at\) AS copy_no/,
    );
    expect(sql).toMatch(
      /PARTITION BY att_src.service_id ORDER BY att_src.attributed_at DESC\) AS version_no/,
    );
    expect(sql).toContain("att.version_no = 1");
    expect(sql).toContain("WHERE ev.copy_no = 1");
    expect(sql).toContain("ORDER BY ev.event_time, ev.event_id");
  });

  it("sorts DuckDB's rows by the timestamp and writes its text once they are in order", () => {
    const sql = buildExportQuery({ ...input, dialect: "duckdb" });
    expect(sql).toMatch(
      /^SELECT \* REPLACE \(strftime\(event_time, '%Y-%m-%dT%H:%M:%S\.%gZ'\) AS event_time\)\nFROM \(/,
    );
    expect(sql).toContain("  ev.event_time AS event_time,");
    expect(sql).toMatch(/\nORDER BY ev\.event_time, ev\.event_id\n\) AS sorted$/);
  });

  it("gives its rows in no order, their time as text, to the reports", () => {
    for (const dialect of ["duckdb", "athena"] as const) {
      const rows = buildExportRowsQuery({ ...input, dialect });
      expect(rows).toMatch(/WHERE ev\.copy_no = 1\n {2}AND ev\.event_time >= [^\n]+$/);
      expect(rows).not.toContain("ORDER BY ev.event_time");
    }
  });

  it("writes event_time as ISO 8601 UTC in each dialect", () => {
    expect(buildExportRowsQuery({ ...input, dialect: "duckdb" })).toContain(
      "strftime(ev.event_time, '%Y-%m-%dT%H:%M:%S.%gZ') AS event_time",
    );
    const athena = buildExportQuery({ ...input, dialect: "athena" });
    expect(athena).toContain(
      "format_datetime(ev.event_time, 'yyyy-MM-dd''T''HH:mm:ss.SSS''Z''') AS event_time",
    );
    expect(athena.endsWith("\nORDER BY ev.event_time, ev.event_id")).toBe(true);
  });

  it("reads one day when asked, its repeated events found beforehand and kept at their first time", () => {
    expect(buildExportQuery({ ...input, dialect: "duckdb" })).not.toContain("event_time <");
    const sql = buildExportQuery({
      ...input,
      dialect: "duckdb",
      day: "2026-11-02",
      slice: { from: new Date("2026-11-02T06:00:00.000Z") },
      repeated: "repeated_events",
    });
    // The day's times, from its own partition on (its late rows lie in partitions after it).
    expect(sql).toContain(
      "AND events.dt >= '2026-11-02'\n    AND events.event_time >= TIMESTAMP '2026-11-02T00:00:00.000'\n    AND events.event_time < TIMESTAMP '2026-11-03T00:00:00.000'",
    );
    // The slice's own rows of the repeated events, and no grouping of the keys it reads.
    expect(sql).toContain(
      "FROM repeated_events AS copies\n  WHERE true\n    AND copies.dt >= '2026-11-02'\n    AND copies.event_time >= TIMESTAMP '2026-11-02T00:00:00.000'\n    AND copies.event_time < TIMESTAMP '2026-11-03T00:00:00.000'\n    AND copies.event_time >= TIMESTAMP '2026-11-02T06:00:00.000'",
    );
    expect(sql).not.toContain("GROUP BY service_id, event_id");
    expect(sql).toContain(
      "JOIN ev_repeated AS repeated ON repeated.service_id = src.service_id AND repeated.event_id = src.event_id AND repeated.event_time = src.event_time\n  WHERE repeated.first_time = src.event_time",
    );
    const repeated = buildRepeatedEventsQuery({ ...input, dialect: "duckdb" });
    expect(repeated).toContain("arg_min(event_time, received_at) AS first_time");
    expect(repeated).toContain("copies AS MATERIALIZED");
    expect(buildRepeatedEventsQuery({ ...input, dialect: "athena" })).toContain(
      "min_by(event_time, received_at) AS first_time",
    );
  });

  it("reads a slice of a day's time when asked, its end left out", () => {
    const day = { ...input, dialect: "duckdb" as const, day: "2026-11-02" };
    const from = new Date("2026-11-02T06:00:00.000Z");
    const to = new Date("2026-11-02T12:00:00.000Z");
    const sql = buildExportQuery({ ...day, slice: { from, to } });
    expect(sql).toContain("AND events.event_time >= TIMESTAMP '2026-11-02T06:00:00.000'");
    expect(sql).toContain("AND events.event_time < TIMESTAMP '2026-11-02T12:00:00.000'");
    // An open end is no bound.
    expect(buildExportQuery({ ...day, slice: { to } })).not.toContain(
      "event_time >= TIMESTAMP '2026-11-02T06",
    );
    expect(buildExportQuery({ ...day, slice: { from } })).not.toContain(
      "event_time < TIMESTAMP '2026-11-02T12",
    );
  });

  it("reads the latest attributions once for a day's slices, when given them", () => {
    const latest = buildLatestAttributionsQuery({ ...input, dialect: "duckdb", day: "2026-11-02" });
    expect(latest).toContain("service_id IN (SELECT service_id FROM src)");
    expect(latest.trimEnd().endsWith("SELECT * FROM att WHERE version_no = 1")).toBe(true);
    const sql = buildExportQuery({
      ...input,
      dialect: "duckdb",
      day: "2026-11-02",
      latestAttributions: "day_attributions",
    });
    expect(sql).toContain("att AS (SELECT * FROM day_attributions)");
    expect(sql).not.toContain("att_src");
  });

  it("leaves deleted installs out, and adds nothing without any", () => {
    const sql = buildExportQuery({
      ...input,
      dialect: "duckdb",
      exclude: { serviceIds: ["s-1", "o'k"] },
    });
    expect(sql).toContain("AND events.service_id NOT IN ('s-1', 'o''k')");
    for (const exclude of [undefined, { serviceIds: [] }]) {
      expect(buildExportQuery({ ...input, dialect: "duckdb", exclude })).not.toContain("NOT IN");
    }
  });

  it("leaves out the installs a query of their own reads", () => {
    const sql = buildExportQuery({
      ...input,
      dialect: "athena",
      exclude: { serviceIdsFrom: "SELECT service_id FROM lists WHERE list = 'a'", count: 3 },
    });
    expect(sql).toContain(
      "AND events.service_id NOT IN (SELECT service_id FROM lists WHERE list = 'a')",
    );
    // A list not read whole (gone, or cut short) fails the query instead of leaving them in.
    expect(sql).toContain(
      "AND 1 = CAST(CASE WHEN (SELECT count(*) FROM (SELECT service_id FROM lists WHERE list = 'a') AS excluded) = 3 THEN '1' ELSE",
    );
  });

  it("keeps string literals inert", () => {
    expect(sqlString("it's")).toBe("'it''s'");
    expect(buildExportQuery({ ...input, appId: "x' OR '1'='1", dialect: "duckdb" })).toContain(
      "app_id = 'x'' OR ''1''=''1'",
    );
  });
});

describe("export query on a real engine (DuckDB)", () => {
  /** Runs the export query over two events (installs s1 and s2) and a list table. */
  const exported = async (exclude: Exclusion) => {
    const instance = await DuckDBInstance.create(":memory:");
    const connection = await instance.connect();
    try {
      const create = async (table: LakeTable) => {
        const columns = [...table.columns, ...PARTITION_KEYS].map(
          (c) => `${c.name} ${DUCKDB_TYPES[c.type]}`,
        );
        await connection.run(`CREATE TABLE ${table.name} (${columns.join(", ")})`);
      };
      await create(EVENTS_TABLE);
      await create(ATTRIBUTIONS_TABLE);
      await connection.run(
        `INSERT INTO events (event_id, service_id, event_time, received_at, app_id, dt) VALUES
           ('e1', 's1', TIMESTAMP '2026-11-02 10:00:00', TIMESTAMP '2026-11-02 10:00:01', 'com.example.game', '2026-11-02'),
           ('e2', 's2', TIMESTAMP '2026-11-02 11:00:00', TIMESTAMP '2026-11-02 11:00:01', 'com.example.game', '2026-11-02')`,
      );
      await connection.run("CREATE TABLE lists (service_id VARCHAR, list VARCHAR)");
      await connection.run("INSERT INTO lists VALUES ('s1', 'a'), ('s3', 'a'), ('s2', 'b')");
      const reader = await connection.runAndReadAll(
        buildExportQuery({
          ...input,
          dialect: "duckdb",
          sources: { events: "events", attributions: "attributions" },
          exclude,
        }),
      );
      return reader.getRowObjectsJS().map((row) => row.event_id);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  };

  const listA = "SELECT service_id FROM lists WHERE list = 'a'";

  it("leaves out the installs the list names, read whole", async () => {
    expect(await exported({ serviceIds: [] })).toEqual(["e1", "e2"]);
    expect(await exported({ serviceIds: ["s2"] })).toEqual(["e1"]);
    expect(await exported({ serviceIdsFrom: listA, count: 2 })).toEqual(["e2"]);
  });

  it("fails rather than export when the list was not read whole", async () => {
    await expect(exported({ serviceIdsFrom: listA, count: 3 })).rejects.toThrow(
      /the list of installs to leave out was not read whole/,
    );
    const missing = "SELECT service_id FROM lists WHERE list = 'gone'";
    await expect(exported({ serviceIdsFrom: missing, count: 1 })).rejects.toThrow(/not read whole/);
  });
});

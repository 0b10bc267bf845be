import { describe, expect, it } from "vitest";
import { EXPORT_COLUMNS } from "../record/columns.ts";
import { buildExportQuery, sqlString } from "./export-query.ts";

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
    expect(sql).toContain("dt >= '2026-11-01'");
    expect(sql).toContain("event_time >= from_iso8601_timestamp('2026-11-01T06:30:00.000Z')");
  });

  it("de-duplicates event ids and joins only the latest attribution", () => {
    const sql = buildExportQuery({ ...input, dialect: "duckdb" });
    expect(sql).toMatch(
      /row_number\(\) OVER \(PARTITION BY service_id, event_id ORDER BY received_at\) AS copy_no/,
    );
    expect(sql).toMatch(/PARTITION BY service_id ORDER BY attributed_at DESC\) AS version_no/);
    expect(sql).toContain("att.version_no = 1");
    expect(sql).toContain("WHERE ev.copy_no = 1");
    expect(sql.trimEnd().endsWith("ORDER BY ev.event_time, ev.event_id")).toBe(true);
  });

  it("writes event_time as ISO 8601 UTC in each dialect", () => {
    expect(buildExportQuery({ ...input, dialect: "duckdb" })).toContain(
      "strftime(ev.event_time, '%Y-%m-%dT%H:%M:%S.%gZ') AS event_time",
    );
    expect(buildExportQuery({ ...input, dialect: "athena" })).toContain(
      "format_datetime(ev.event_time, 'yyyy-MM-dd''T''HH:mm:ss.SSS''Z''') AS event_time",
    );
  });

  it("adds the row position only when asked", () => {
    expect(buildExportQuery({ ...input, dialect: "duckdb" })).not.toContain(" AS pos");
    expect(buildExportQuery({ ...input, dialect: "duckdb", withPosition: true })).toContain(
      "row_number() OVER (ORDER BY ev.event_time, ev.event_id) - 1 AS pos",
    );
  });

  it("leaves deleted installs out, and adds nothing without any", () => {
    const sql = buildExportQuery({
      ...input,
      dialect: "duckdb",
      exclude: { serviceIds: ["s-1", "o'k"] },
    });
    expect(sql).toContain("AND service_id NOT IN ('s-1', 'o''k')");
    for (const exclude of [undefined, { serviceIds: [] }]) {
      expect(buildExportQuery({ ...input, dialect: "duckdb", exclude })).not.toContain("NOT IN");
    }
  });

  it("leaves out the installs a query of their own reads", () => {
    const sql = buildExportQuery({
      ...input,
      dialect: "athena",
      exclude: { serviceIdsFrom: "SELECT service_id FROM lists WHERE list = 'a'" },
    });
    expect(sql).toContain("AND service_id NOT IN (SELECT service_id FROM lists WHERE list = 'a')");
  });

  it("keeps string literals inert", () => {
    expect(sqlString("it's")).toBe("'it''s'");
    expect(buildExportQuery({ ...input, appId: "x' OR '1'='1", dialect: "duckdb" })).toContain(
      "app_id = 'x'' OR ''1''=''1'",
    );
  });
});

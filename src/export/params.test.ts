import { describe, expect, it } from "vitest";
import { formatIssues } from "../validation/issues.ts";
import { exportParamsSchema } from "./params.ts";

describe("export query parameters", () => {
  it("applies the spec's defaults", () => {
    expect(exportParamsSchema.parse({ timestamp: "1762000000" })).toEqual({
      timestamp: 1_762_000_000,
      format: "json",
      limit: 10_000,
      offset: 0,
    });
  });

  it("accepts the limits' bounds", () => {
    expect(exportParamsSchema.parse({ timestamp: "0", limit: "1", offset: "0" }).limit).toBe(1);
    expect(exportParamsSchema.parse({ timestamp: "0", limit: "10000" }).limit).toBe(10_000);
    // 9999-12-31T23:59:59Z, the last second an ISO 8601 date names.
    expect(exportParamsSchema.parse({ timestamp: "253402300799" }).timestamp).toBe(253_402_300_799);
  });

  it("takes a start before 1970 as 0, and leading zeros of any length", () => {
    expect(exportParamsSchema.parse({ timestamp: "-1" }).timestamp).toBe(0);
    expect(exportParamsSchema.parse({ timestamp: "00000000000000001762000000" }).timestamp).toBe(
      1_762_000_000,
    );
  });

  it("tells a value too large its bound, whatever its length", () => {
    for (const [query, detail] of [
      [{ timestamp: "99999999999999999" }, "timestamp: must be at most 253402300799"],
      [{ timestamp: "0", offset: "99999999999999999" }, "offset: must be at most 9007199254740991"],
    ] as const) {
      const result = exportParamsSchema.safeParse(query);
      expect(formatIssues(result.error?.issues ?? [], "query")).toContain(detail);
    }
  });

  it.each([
    [{}, "timestamp"],
    [{ timestamp: "" }, "timestamp"],
    [{ timestamp: "1e9" }, "timestamp"],
    [{ timestamp: "9999999999999999" }, "timestamp"],
    [{ timestamp: "12", format: "JSON" }, "format"],
    [{ timestamp: "12", limit: "10001" }, "limit"],
    [{ timestamp: "12", limit: "-1" }, "limit"],
    [{ timestamp: "253402300800" }, "timestamp"],
    [{ timestamp: "12", offset: "-1" }, "offset"],
    [{ timestamp: "12", offset: "0x10" }, "offset"],
    [{ timestamp: "12", offset: "99999999999999999" }, "offset"],
  ])("rejects %j with a detail naming %s", (query, name) => {
    const result = exportParamsSchema.safeParse(query);
    expect(result.success).toBe(false);
    expect(formatIssues(result.error?.issues ?? [], "query")).toContain(`${name}: `);
  });
});

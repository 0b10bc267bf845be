import { describe, expect, it } from "vitest";
import { lakeAttribution, lakeEvent } from "../../test/support/records.ts";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  type LakeRecord,
  type LakeTable,
  lakeDay,
  recordChecker,
} from "./lake-tables.ts";

const checkRecord = (table: LakeTable, record: LakeRecord) => recordChecker(table)(record);

describe("recordChecker", () => {
  it("takes records whose values fit their columns, nulls included", () => {
    expect(() =>
      checkRecord(EVENTS_TABLE, lakeEvent({ app_id: "com.a", revenue: 4.99, currency: "EUR" })),
    ).not.toThrow();
    expect(() =>
      checkRecord(
        ATTRIBUTIONS_TABLE,
        lakeAttribution({ app_id: "com.a", service_id: "s1", click_to_first_open_hours: 3 }),
      ),
    ).not.toThrow();
  });

  it.each([
    ["a number as text", { revenue: "4.99" }, "events.revenue: expected double"],
    ["a number that is not finite", { revenue: Number.NaN }, "events.revenue: expected double"],
    ["a time with an offset", { event_time: "2026-11-01T12:00:00+02:00" }, "event_time"],
    ["a time without its T", { received_at: "2026-11-01 12:00:00.000Z" }, "received_at"],
    ["a time without milliseconds", { received_at: "2026-11-01T12:00:00Z" }, "received_at"],
    ["no date column", { event_time: null }, "events.event_time is required"],
    // Which no reader of the stream's file decodes: its delivery, and all after it, would stop.
    [
      "half a surrogate pair in text",
      { event_name: "x\udc00" },
      "events.event_name: expected string",
    ],
  ])("refuses %s", (_, overrides, message) => {
    expect(() => checkRecord(EVENTS_TABLE, lakeEvent({ app_id: "com.a", ...overrides }))).toThrow(
      message,
    );
  });

  it("refuses a fraction or a value over 32 bits in an int column", () => {
    for (const hours of [1.5, 2 ** 31]) {
      const record = lakeAttribution({
        app_id: "com.a",
        service_id: "s1",
        click_to_first_open_hours: hours,
      });
      expect(() => checkRecord(ATTRIBUTIONS_TABLE, record)).toThrow(
        "attributions.click_to_first_open_hours: expected int",
      );
    }
  });
});

describe("lakeDay", () => {
  const event = (event_time: string, received_at: string) =>
    lakeEvent({ app_id: "com.a", event_time, received_at });

  it("is the row's own day when it is taken that day or the next", () => {
    expect(
      lakeDay(EVENTS_TABLE, event("2026-11-01T23:59:59.999Z", "2026-11-01T23:59:59.999Z")),
    ).toBe("2026-11-01");
    expect(
      lakeDay(EVENTS_TABLE, event("2026-11-01T08:00:00.000Z", "2026-11-02T23:00:00.000Z")),
    ).toBe("2026-11-01");
  });

  it("is the day before the one it was taken on for a row taken later, never before its own", () => {
    expect(
      lakeDay(EVENTS_TABLE, event("2026-10-01T08:00:00.000Z", "2026-10-30T00:00:00.000Z")),
    ).toBe("2026-10-29");
    // Ahead of the clock: its own day, the day after the one it was taken on.
    expect(
      lakeDay(EVENTS_TABLE, event("2026-11-02T03:00:00.000Z", "2026-11-01T22:00:00.000Z")),
    ).toBe("2026-11-02");
  });

  it("is the last day of its own month for an install taken more than 31 days after its first open", () => {
    const install = (event_time: string, received_at: string) =>
      lakeDay(EVENTS_TABLE, { ...event(event_time, received_at), event_name: "service_install" });
    // The day before it was taken 31 days after its own: that day, as any row's.
    expect(install("2026-09-01T08:00:00.000Z", "2026-10-03T23:59:59.999Z")).toBe("2026-10-02");
    // Later: the month's last day, within 31 days of its own whatever the month.
    expect(install("2026-09-01T08:00:00.000Z", "2026-10-04T00:00:00.000Z")).toBe("2026-09-30");
    expect(install("2026-01-01T00:00:00.000Z", "2026-11-10T00:00:00.000Z")).toBe("2026-01-31");
    expect(install("2024-02-10T00:00:00.000Z", "2026-11-10T00:00:00.000Z")).toBe("2024-02-29");
    expect(install("2026-12-31T23:59:59.999Z", "2027-06-01T00:00:00.000Z")).toBe("2026-12-31");
  });

  it("is the day of a table's own time where the service sets it", () => {
    const attribution = lakeAttribution({
      app_id: "com.a",
      service_id: "s1",
      attributed_at: "2026-11-03T01:00:00.000Z",
    });
    expect(lakeDay(ATTRIBUTIONS_TABLE, attribution)).toBe("2026-11-03");
  });
});

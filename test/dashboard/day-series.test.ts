/**
 * The overview's events chart: a series per stored event name, labelled by its word, so that two
 * names that read the same word (the spec's `service_login` and a custom `service_log_in`, both
 * "Log in") are two series, told apart by their stored names.
 */
import { describe, expect, it } from "vitest";
import { eventSeries, seriesByDay } from "../../dashboard/src/day-series.ts";
import { eventLabels } from "../../dashboard/src/words.ts";

const day = (date: string, event_name: string | null, events: number) => ({
  date,
  event_name,
  events,
});

describe("eventSeries", () => {
  it("keeps two event names of one word apart, each labelled with its stored name", () => {
    const built = eventSeries({
      from: "2026-11-01",
      to: "2026-11-02",
      events_by_day: [
        day("2026-11-01", "service_login", 3),
        day("2026-11-01", "service_log_in", 2),
        day("2026-11-02", "service_login", 1),
        day("2026-11-02", "service_purchase", 1),
      ],
    });
    expect(built.days).toEqual(["2026-11-01", "2026-11-02"]);
    expect(built.names).toEqual(["service_login", "service_log_in", "service_purchase"]);
    expect(built.series.get("service_login")).toEqual([3, 1]);
    expect(built.series.get("service_log_in")).toEqual([2, 0]);
    expect([...built.labels]).toEqual([
      ["service_login", "Log in (service_login)"],
      ["service_log_in", "Log in (service_log_in)"],
      ["service_purchase", "Purchase"],
    ]);
  });

  it("labels an event without a name apart from one named so", () => {
    const built = eventSeries({
      from: "2026-11-01",
      to: "2026-11-01",
      events_by_day: [day("2026-11-01", null, 4), day("2026-11-01", "service_install", 5)],
    });
    expect(built.names).toEqual(["service_install", null]);
    expect(built.series.get(null)).toEqual([4]);
    expect(built.labels.get(null)).toBe("(no name)");
    expect(built.labels.get("service_install")).toBe("Install");
  });
});

describe("eventLabels", () => {
  it("names each event by its word alone when no other name reads it", () => {
    expect([...eventLabels(["service_purchase", "service_level_up", "custom"])]).toEqual([
      ["service_purchase", "Purchase"],
      ["service_level_up", "Level up"],
      ["custom", "custom"],
    ]);
  });

  it("gives every name of a shared word a label of its own", () => {
    const labels = eventLabels(["service_add_to_cart", "service_add_to_cart_", "Add to cart"]);
    expect(new Set(labels.values()).size).toBe(3);
    expect(labels.get("service_add_to_cart")).toBe("Add to cart (service_add_to_cart)");
  });
});

describe("seriesByDay", () => {
  it("adds up a key's rows of a day and leaves out days outside the range", () => {
    const built = seriesByDay(
      { from: "2026-11-01", to: "2026-11-02" },
      [
        { d: "2026-11-01T00:00:00Z", k: "a", v: 1 },
        { d: "2026-11-01", k: "a", v: 2 },
        { d: "2026-11-03", k: "a", v: 5 },
        { d: "2026-11-02", k: "b", v: 4 },
      ],
      (row) => row.d,
      (row) => row.k,
      (row) => row.v,
    );
    expect(built.names).toEqual(["b", "a"]);
    expect(built.series.get("a")).toEqual([3, 0]);
  });
});

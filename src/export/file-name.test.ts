import { describe, expect, it } from "vitest";
import { exportFileName } from "./file-name.ts";

const page = {
  appId: "com.example.game",
  since: Date.parse("2026-11-01T00:00:00Z") / 1000,
  until: Date.parse("2026-11-21T18:30:05.123Z"),
  extension: "csv",
};

describe("export file name", () => {
  it("names the app, the window and the page's rows", () => {
    expect(exportFileName({ ...page, offset: 500, limit: 500, total: 5_000 })).toBe(
      "com.example.game_events_20261101T000000Z-20261121T183005Z_rows-501-1000.csv",
    );
  });

  it("names a page whose end is not known by its first row only: a short last page is never named full", () => {
    expect(exportFileName({ ...page, offset: 500, limit: 500 })).toMatch(/_rows-from-501\.csv$/);
  });

  it("ends a short last page at the window's last row, and says when it is past it", () => {
    expect(exportFileName({ ...page, offset: 500, limit: 500, total: 620 })).toMatch(
      /_rows-501-620\.csv$/,
    );
    expect(exportFileName({ ...page, offset: 700, limit: 500, total: 620 })).toMatch(
      /_rows-none-after-700\.csv$/,
    );
    // A page that starts at the window's last row holds none of it.
    expect(exportFileName({ ...page, offset: 620, limit: 500, total: 620 })).toMatch(
      /_rows-none-after-620\.csv$/,
    );
    expect(exportFileName({ ...page, offset: 619, limit: 500, total: 620 })).toMatch(
      /_rows-620-620\.csv$/,
    );
  });
});

/**
 * The time zone a report page counts its days in: the answer's (`time_zone`, the app's zone as
 * the service counted the days in) once there is one, the app list's before; an answer of
 * another zone says the list is behind. And the reports' cache keeps an answer under the zone it
 * was asked in, so that a page whose list names another zone since asks again.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cohortsOf, forgetAllReports, overviewOf } from "../../dashboard/src/report-cache.ts";
import { reportZone } from "../../dashboard/src/report-zone.ts";

describe("reportZone", () => {
  it("is the app list's zone until an answer names one", () => {
    expect(reportZone("UTC", null)).toEqual({ zone: "UTC", listBehind: false });
    expect(reportZone("Asia/Tokyo", undefined)).toEqual({ zone: "Asia/Tokyo", listBehind: false });
  });

  it("is the answer's zone once there is one, and says the list is behind when they differ", () => {
    expect(reportZone("UTC", "Asia/Tokyo")).toEqual({ zone: "Asia/Tokyo", listBehind: true });
    expect(reportZone("Asia/Tokyo", "Asia/Tokyo")).toEqual({
      zone: "Asia/Tokyo",
      listBehind: false,
    });
  });
});

describe("the reports' cache", () => {
  /** The report answers the service gives, each naming the zone of the call's number. */
  let asked: string[] = [];
  const answerIn = (zone: string) => ({ from: "2026-11-01", to: "2026-11-07", time_zone: zone });

  beforeEach(() => {
    forgetAllReports();
    asked = [];
    let zone = "UTC";
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        asked.push(url);
        const answer = answerIn(zone);
        // The app's zone changes after the first answer (in another tab, say).
        zone = "Asia/Tokyo";
        return new Response(JSON.stringify(answer), {
          status: 200,
          headers: { "Content-Type": "application/json" },
        });
      }),
    );
  });

  afterEach(() => {
    forgetAllReports();
    vi.unstubAllGlobals();
  });

  const range = { from: "2026-11-01", to: "2026-11-07" };

  it("gives the same question asked in the same zone one call", async () => {
    await overviewOf("app", range, "UTC");
    const again = await overviewOf("app", { ...range }, "UTC");
    expect(asked).toHaveLength(1);
    expect(again.time_zone).toBe("UTC");
  });

  it("asks the overview again once the app list names another zone, not the answer of the old", async () => {
    expect((await overviewOf("app", range, "UTC")).time_zone).toBe("UTC");
    const again = await overviewOf("app", range, "Asia/Tokyo");
    expect(asked).toHaveLength(2);
    expect(again.time_zone).toBe("Asia/Tokyo");
  });

  it("asks the cohorts again once the app list names another zone", async () => {
    const params = { ...range, group_by: "campaign" as const };
    expect((await cohortsOf("app", params, "UTC")).time_zone).toBe("UTC");
    expect((await cohortsOf("app", params, "Asia/Tokyo")).time_zone).toBe("Asia/Tokyo");
    expect(asked).toHaveLength(2);
  });
});

/**
 * The header's app picker opens the other app on the page open now, with its range and
 * without its filters, which name the first app's sources and campaigns.
 */
import { describe, expect, it } from "vitest";
import { samePageOf } from "../../dashboard/src/app-route.ts";

describe("the page the app picker opens", () => {
  it("is the same page of the other app, its range kept and its filters left", () => {
    expect(
      samePageOf(
        "/apps/com.example.a/cohorts?from=2026-11-24&to=2026-12-07&media_source=meta_ads",
        "com.example.b",
      ),
    ).toBe("/apps/com.example.b/cohorts?from=2026-11-24&to=2026-12-07");
    expect(samePageOf("/apps/com.example.a/settings", "com.example.b")).toBe(
      "/apps/com.example.b/settings",
    );
    expect(samePageOf("/apps/com.example.a/overview?campaign=x", "a b")).toBe(
      "/apps/a%20b/overview",
    );
  });

  it("is the other app's overview from any page not an app's", () => {
    expect(samePageOf("/apps", "com.example.b")).toBe("/apps/com.example.b/overview");
    expect(samePageOf("/people", "com.example.b")).toBe("/apps/com.example.b/overview");
  });
});

import { describe, expect, it } from "vitest";
import { LINK_LIMITS } from "../links/link-request.ts";
import type { CostRow } from "../ports/costs.ts";
import type { RenamedCampaign } from "../ports/reports.ts";
import {
  campaignKeyOf,
  RENAMED_LITERAL_BYTES,
  renamedCampaignsCte,
  renamedJoins,
  withinLiteralBudget,
  withLatestCampaignNames,
} from "./campaign-names.ts";

const summer: RenamedCampaign = {
  media_source: "meta_ads",
  campaign_id: "123",
  campaign_name: "Summer v2",
  former_names: ["Summer v1"],
};

const costRow = (
  mediaSource: string,
  campaignId: string,
  campaignName: string | null,
): CostRow => ({
  appId: "com.example.game",
  day: "2026-11-27",
  mediaSource,
  campaignId,
  campaignName,
  adsetId: null,
  adsetName: null,
  adId: null,
  adName: null,
  country: null,
  amount: 10,
  currency: "USD",
  amountUsd: 10,
  impressions: null,
  clicks: null,
  receivedAt: "2026-11-28T00:00:00.000Z",
});

describe("campaigns renamed at their network", () => {
  it("leave a query as it was when none is renamed", () => {
    expect(campaignKeyOf([], "r")).toBe("coalesce(r.campaign_name, r.campaign_id)");
    expect(campaignKeyOf(undefined, "t")).toBe("coalesce(t.campaign_name, t.campaign_id)");
    expect(renamedCampaignsCte([])).toBe("");
    expect(renamedJoins(undefined, "r")).toBe("");
  });

  it("take a row naming no id by a former name only when one renamed campaign of its media source had it, and none has it now", () => {
    const cte = renamedCampaignsCte([
      summer,
      // Had Summer v1 too: no row naming Summer v1 alone is taken for either.
      { ...summer, campaign_id: "124", campaign_name: "Summer B", former_names: ["Summer v1"] },
      // Another network's former name, and one that is a renamed campaign's latest name.
      { ...summer, media_source: "google_ads", former_names: ["Old"] },
      { ...summer, campaign_id: "125", campaign_name: "Autumn", former_names: ["Summer B"] },
    ]);
    expect(cte).toContain("('google_ads', CAST(NULL AS VARCHAR), 'Old', 'Summer v2')");
    expect(cte).not.toContain("('meta_ads', CAST(NULL AS VARCHAR), 'Summer v1'");
    expect(cte).not.toContain("('meta_ads', CAST(NULL AS VARCHAR), 'Summer B'");
    expect(cte).toContain("('meta_ads', '124', CAST(NULL AS VARCHAR), 'Summer B')");
  });

  it("keep the campaigns whose literals fit the query's budget, the most recently touched first", () => {
    const long = (n: number): RenamedCampaign => ({
      ...summer,
      campaign_id: String(n),
      // 200 characters of 3 bytes each, as long as a touch may name.
      campaign_name: "夏".repeat(200),
      former_names: ["秋".repeat(200)],
    });
    const kept = withinLiteralBudget(Array.from({ length: 100 }, (_, n) => long(n)));
    expect(kept.length).toBeGreaterThan(10);
    expect(kept.length).toBeLessThan(100);
    expect(kept.map((campaign) => campaign.campaign_id)).toEqual(
      Array.from({ length: kept.length }, (_, n) => String(n)),
    );
    expect(Buffer.byteLength(renamedCampaignsCte(kept))).toBeLessThan(RENAMED_LITERAL_BYTES * 1.2);
  });

  it("keep the cohorts' and the overview's queries within Athena's 262,144 bytes at the longest names a touch may carry", async () => {
    const { buildCohortQuery } = await import("./cohort-query.ts");
    const { buildOverviewQuery } = await import("./queries.ts");
    const most = LINK_LIMITS.maxFieldLength;
    const longest = (n: number): RenamedCampaign => ({
      media_source: `'${"媒".repeat(most - 1)}`,
      campaign_id: `${n}${"'".repeat(most - String(n).length)}`,
      campaign_name: "夏".repeat(most),
      former_names: Array.from({ length: 20 }, (_, k) => `${n}-${k}${"秋".repeat(most - 6)}`),
    });
    const renamed = withinLiteralBudget(Array.from({ length: 100 }, (_, n) => longest(n)));
    expect(renamed.length).toBeGreaterThan(0);
    const sources = { events: "e", attributions: "a", touches: "t", sessions: "s" };
    const filters = {
      media_source: "m",
      campaign: "c".repeat(most),
      country: "DE",
      platform: "ios",
    };
    const window = {
      dialect: "athena",
      appId: "com.example.game",
      from: "2026-11-01",
      to: "2026-11-30",
    } as const;
    const cohorts = buildCohortQuery({
      ...window,
      timeZone: "Europe/Paris",
      groupBy: "campaign",
      filters,
      costKeys: ["campaign", "adset", "ad", "country"],
      sources,
      renamed,
    });
    const overview = buildOverviewQuery({
      ...window,
      timeZone: "Europe/Paris",
      filters,
      sources,
      renamed,
    });
    expect(Buffer.byteLength(cohorts)).toBeLessThan(262_144);
    expect(Buffer.byteLength(overview)).toBeLessThan(262_144);
  });

  it("give a cost row of a renamed campaign's id its latest name, of that media source only", () => {
    const rows = withLatestCampaignNames(
      [
        costRow("meta_ads", "123", "Summer v1"),
        costRow("meta_ads", " 123 ", null),
        costRow("google_ads", "123", "Other"),
        costRow("meta_ads", "124", "Summer v1"),
      ],
      // Of two ids alike once trimmed, the most recently touched (first) names it.
      [summer, { ...summer, campaign_id: "123 ", campaign_name: "Older" }],
    );
    expect(rows.map((row) => row.campaignName)).toEqual([
      "Summer v2",
      "Summer v2",
      "Other",
      "Summer v1",
    ]);
  });
});

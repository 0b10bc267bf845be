import { describe, expect, it } from "vitest";
import { LINK_LIMITS } from "../links/link-limits.ts";
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

  it("keep the campaigns whose literals fit the query's budget, the most recently touched first, their ids before any former name", () => {
    const long = (n: number, mediaSource = summer.media_source): RenamedCampaign => ({
      media_source: mediaSource,
      campaign_id: String(n),
      // 200 characters of 3 bytes each, as long as a touch may name.
      campaign_name: "夏".repeat(200),
      former_names: ["秋".repeat(200), "冬".repeat(200)],
    });
    const ids = (campaigns: readonly RenamedCampaign[]) =>
      campaigns.map((campaign) => campaign.campaign_id);
    const first = (count: number) => Array.from({ length: count }, (_, n) => String(n));
    // Every id fits; the former names of the first ones only.
    const named = withinLiteralBudget(Array.from({ length: 100 }, (_, n) => long(n)));
    expect(ids(named)).toEqual(first(100));
    const withFormer = named.filter((campaign) => campaign.former_names.length > 0);
    expect(withFormer.length).toBeLessThan(10);
    expect(ids(withFormer)).toEqual(first(withFormer.length));
    // Ids too long for all: the most recently touched, none of their former names.
    const longer = withinLiteralBudget(
      Array.from({ length: 100 }, (_, n) => long(n, "媒".repeat(200))),
    );
    expect(longer.length).toBeGreaterThan(10);
    expect(longer.length).toBeLessThan(100);
    expect(ids(longer)).toEqual(first(longer.length));
    expect(longer.every((campaign) => campaign.former_names.length === 0)).toBe(true);
    for (const kept of [named, longer]) {
      expect(Buffer.byteLength(renamedCampaignsCte(kept))).toBeLessThan(
        RENAMED_LITERAL_BYTES * 1.2,
      );
    }
  });

  it("keep a campaign whose literals fill the budget to the byte, and not one a byte over", () => {
    // Each literal is quoted: a text of n plain characters takes n + 2 bytes.
    const campaign = (name: string, former: readonly string[] = []): RenamedCampaign => ({
      media_source: "m",
      campaign_id: "1",
      campaign_name: name,
      former_names: former,
    });
    const idRowFilling = RENAMED_LITERAL_BYTES - 3 - 3 - 2;
    expect(withinLiteralBudget([campaign("n".repeat(idRowFilling))])).toHaveLength(1);
    expect(withinLiteralBudget([campaign("n".repeat(idRowFilling + 1))])).toEqual([]);
    // Its id's row (9 bytes), then a former name's row repeating the source and the latest name.
    const formerFilling = RENAMED_LITERAL_BYTES - 9 - 3 - 3 - 2;
    const fits = withinLiteralBudget([campaign("n", ["o".repeat(formerFilling)])]);
    expect(fits[0]?.former_names).toEqual(["o".repeat(formerFilling)]);
    const over = withinLiteralBudget([campaign("n", ["o".repeat(formerFilling + 1), "p"])]);
    expect(over[0]?.former_names).toEqual([]);
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

describe("a renamed campaign's cost rows", () => {
  it("match rows naming no id by the name they were sent with only where it is one of the campaign's former names", () => {
    const [asFormer, inLowerCase, another] = withLatestCampaignNames(
      [
        costRow("meta_ads", "123", "Summer v1"),
        costRow("meta_ads", "123", " summer V1 "),
        // A name the query left out of the campaign's former names: a new campaign has it too.
        costRow("meta_ads", "123", "Spring"),
      ],
      // One of several former names.
      [{ ...summer, former_names: ["Summer v0", "Summer v1"] }],
    );
    expect(asFormer).toMatchObject({ campaignName: "Summer v2", sentCampaignName: "Summer v1" });
    expect(inLowerCase).toMatchObject({
      campaignName: "Summer v2",
      sentCampaignName: " summer V1 ",
    });
    expect(another?.campaignName).toBe("Summer v2");
    expect(another?.sentCampaignName).toBeUndefined();
  });
});

describe("the renamed campaigns' rows", () => {
  it("are read by their ranks, as Athena writes them (every value a text), in any order", async () => {
    const { renamedCampaignsOf } = await import("./campaign-names-query.ts");
    const row = (id: string, name: string, nameRank: string, campaignRank: string) => ({
      media_source: "meta_ads",
      campaign_id: id,
      campaign_name: name,
      name_rank: nameRank,
      campaign_rank: campaignRank,
    });
    expect(
      renamedCampaignsOf([
        row("7", "Old", "10", "2"),
        row("123", "Summer v1", "2", "10"),
        row("7", "New", "1", "2"),
        row("7", "Older", "2", "2"),
        row("123", "Summer v2", "1", "10"),
      ]),
    ).toEqual([
      {
        media_source: "meta_ads",
        campaign_id: "7",
        campaign_name: "New",
        former_names: ["Older", "Old"],
      },
      {
        media_source: "meta_ads",
        campaign_id: "123",
        campaign_name: "Summer v2",
        former_names: ["Summer v1"],
      },
    ]);
  });
});

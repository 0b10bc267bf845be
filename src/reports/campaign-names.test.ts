import { describe, expect, it } from "vitest";
import type { CostRow } from "../ports/costs.ts";
import { campaignColumnsOf, campaignKeyOf, withLatestCampaignNames } from "./campaign-names.ts";

const renamed = [{ media_source: "meta_ads", campaign_id: "123", campaign_name: "Summer v2" }];

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
  it("name a row by its name, else its id, when none is renamed", () => {
    expect(campaignKeyOf([], campaignColumnsOf("r"))).toBe(
      "coalesce(r.campaign_name, r.campaign_id)",
    );
    expect(campaignKeyOf(undefined, campaignColumnsOf("t"))).toBe(
      "coalesce(t.campaign_name, t.campaign_id)",
    );
  });

  it("give a cost row of a renamed campaign's id its latest name, of that media source only", () => {
    const rows = withLatestCampaignNames(
      [
        costRow("meta_ads", "123", "Summer v1"),
        costRow("meta_ads", " 123 ", null),
        costRow("google_ads", "123", "Other"),
        costRow("meta_ads", "124", "Summer v1"),
      ],
      renamed,
    );
    expect(rows.map((row) => row.campaignName)).toEqual([
      "Summer v2",
      "Summer v2",
      "Other",
      "Summer v1",
    ]);
  });
});

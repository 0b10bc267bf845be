/**
 * The Cost page's rows keyed as the store keys them (src/costs/cost-rows.ts): rows the store
 * holds apart, such as two naming their ad set by name alone, are two rows of the table.
 */
import { describe, expect, it } from "vitest";
import type { CostRow as StoredRow } from "../../dashboard/src/api.ts";
import { costRowKey } from "../../dashboard/src/cost-key.ts";
import { costKeyOf } from "../../src/costs/cost-rows.ts";

const row = (overrides: Partial<StoredRow>): StoredRow => ({
  day: "2026-11-27",
  media_source: "examplenet",
  campaign_id: "c1",
  campaign_name: null,
  adset_id: null,
  adset_name: null,
  ad_id: null,
  ad_name: null,
  country: null,
  amount: 1,
  currency: "USD",
  amount_usd: 1,
  impressions: null,
  clicks: null,
  received_at: "2026-11-28T00:00:00.000Z",
  ...overrides,
});

const storeKey = (of: StoredRow) =>
  costKeyOf({
    day: of.day,
    mediaSource: of.media_source,
    campaignId: of.campaign_id,
    adsetId: of.adset_id,
    adsetName: of.adset_name,
    adId: of.ad_id,
    adName: of.ad_name,
    country: of.country,
  });

describe("a cost row's key on the Cost page", () => {
  it("tells rows apart as the store does: an ad set or ad by its id, else by its name", () => {
    const rows = [
      row({}),
      row({ adset_name: "Set A" }),
      row({ adset_name: "Set B" }),
      row({ adset_id: "a1", adset_name: "Set A" }),
      row({ adset_id: "Set A" }),
      row({ ad_name: "Snow" }),
      row({ ad_name: "Rain" }),
      row({ country: "DE" }),
      row({ campaign_id: "c2" }),
    ];
    const keys = rows.map(costRowKey);
    expect(new Set(keys).size).toBe(rows.length);
    expect(new Set(rows.map(storeKey)).size).toBe(rows.length);
    // A name changed since, or an amount sent again: the same row to the store, and here.
    const renamed = row({ adset_id: "a1", adset_name: "Renamed", amount: 2 });
    expect(costRowKey(renamed)).toBe(keys[3]);
    expect(storeKey(renamed)).toBe(storeKey(rows[3] ?? renamed));
  });
});

/** A link's own destinations as the Links page's edit form sends them. */
import { describe, expect, it } from "vitest";
import type { Link } from "../../dashboard/src/api.ts";
import { destinationPatch, destinationValuesOf } from "../../dashboard/src/link-destinations.ts";

const link: Link = {
  deeplink_id: "Kx3v9QpZ2aQ",
  url: "https://go.example.com/Kx3v9QpZ2aQ",
  media_source: "instagram",
  campaign_id: null,
  campaign_name: null,
  adset_id: null,
  adset_name: null,
  ad_id: null,
  ad_name: null,
  deep_link_path: null,
  params: {},
  android_url: "https://shop.example.com/android",
  ios_url: null,
  web_url: "https://shop.example.com/winter",
  disabled: false,
  landing_page: false,
  forward_params: true,
  preview_title: null,
  preview_description: null,
  preview_image_url: null,
  cost_model: null,
  cost_value: null,
  cost_currency: null,
  created_at: "2026-12-01T00:00:00.000Z",
};

describe("a link's destinations changed", () => {
  it("sends nothing for the destinations as stored", () => {
    expect(destinationPatch(link, destinationValuesOf(link))).toEqual({});
  });

  it("sends an edited one trimmed, and an emptied one as null so the app's default is used", () => {
    const values = destinationValuesOf(link);
    expect(
      destinationPatch(link, {
        ...values,
        ios_url: " https://apps.apple.com/app/id1 ",
        android_url: "",
      }),
    ).toEqual({ ios_url: "https://apps.apple.com/app/id1", android_url: null });
  });
});

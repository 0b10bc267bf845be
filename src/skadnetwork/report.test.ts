import { describe, expect, it } from "vitest";
import type { ApplePostbackGroup } from "../ports/apple-postbacks.ts";
import { conversionSchemaRequest } from "./conversion-schema.ts";
import { skadnetworkReport } from "./report.ts";

const group = (over: Partial<ApplePostbackGroup>): ApplePostbackGroup => ({
  adNetworkId: "cstr6suwn9.skadnetwork",
  sourceIdentifier: "1234",
  sequenceIndex: 0,
  didWin: true,
  redownload: false,
  reengagement: false,
  conversionValue: 20,
  coarseValue: null,
  verification: { status: "verified", environment: "production" },
  postbacks: 1,
  ...over,
});

describe("the SKAdNetwork report", () => {
  const groups = [
    group({ postbacks: 5 }),
    group({ redownload: true, postbacks: 2 }),
    group({ reengagement: true, conversionValue: null, coarseValue: "high", postbacks: 3 }),
    group({ didWin: false, conversionValue: null, postbacks: 4 }),
    group({ sequenceIndex: 1, conversionValue: null, coarseValue: "medium", postbacks: 6 }),
    group({ verification: { status: "unverified", environment: null }, postbacks: 7 }),
    group({ verification: { status: "verified", environment: "development" }, postbacks: 8 }),
  ];

  it("counts installs, redownloads and AdAttributionKit's re-engagements apart, each once", () => {
    const report = skadnetworkReport(groups, { schema: null, networks: {} });
    expect(report.campaigns).toEqual([
      {
        media_source: expect.any(String),
        ad_network_id: "cstr6suwn9.skadnetwork",
        source_identifier: "1234",
        installs: 5,
        redownloads: 2,
        reengagements: 3,
        later_postbacks: 6,
      },
    ]);
    expect(report.postbacks).toEqual({ received: 35, counted: 20, unverified: 7, development: 8 });
    // Every first-window install (redownloads too) by what Apple let through of its values;
    // a re-engagement is no install.
    expect(report.tiers).toEqual({ fine: 7, coarse_only: 0, none: 0 });
  });

  it("keeps a re-engagement's values apart from an install's, and reads only these with the schema", () => {
    const schema = conversionSchemaRequest.parse({
      windows: [
        { rules: [{ event: "service_purchase", fine: 20, coarse: "high" }] },
        { rules: [] },
        { rules: [] },
      ],
    });
    const report = skadnetworkReport(
      [
        group({ conversionValue: null, coarseValue: "high", postbacks: 2 }),
        group({ reengagement: true, conversionValue: null, coarseValue: "high", postbacks: 3 }),
      ],
      { schema, networks: {} },
    );
    expect(
      report.values.map(({ conversion, coarse, postbacks }) => [conversion, coarse, postbacks]),
    ).toEqual([
      ["install", "high", 2],
      ["reengagement", "high", 3],
    ]);
    expect(report.values[1]?.meaning).toEqual([]);
    expect(report.tiers).toEqual({ fine: 0, coarse_only: 2, none: 0 });
  });

  it("takes development or unverified postbacks only when asked", () => {
    const both = skadnetworkReport(groups, {
      schema: null,
      networks: {},
      include: { development: true, unverified: true },
    });
    expect(both.campaigns[0]?.installs).toBe(5 + 7 + 8);
    expect(both.postbacks.counted).toBe(35);
  });
});

import { describe, expect, it } from "vitest";
import type { ApplePostbackGroup } from "../ports/apple-postbacks.ts";
import { conversionSchemaRequest } from "./conversion-schema.ts";
import { skadnetworkReport } from "./report.ts";

const group = (over: Partial<ApplePostbackGroup>): ApplePostbackGroup => ({
  adNetworkId: "cstr6suwn9.skadnetwork",
  sourceIdentifier: "1234",
  identifierField: "source-identifier",
  sequenceIndex: 0,
  didWin: true,
  redownload: false,
  reengagement: false,
  conversionValue: 20,
  coarseValue: null,
  verification: { status: "verified", environment: "production" },
  valuesDisputed: false,
  postbacks: 1,
  ...over,
});

describe("the SKAdNetwork report", () => {
  const groups = [
    group({ postbacks: 5 }),
    group({ redownload: true, postbacks: 2 }),
    group({ reengagement: true, conversionValue: null, coarseValue: "high", postbacks: 3 }),
    group({ didWin: false, conversionValue: null, postbacks: 4 }),
    group({
      sourceIdentifier: "34",
      sequenceIndex: 1,
      conversionValue: null,
      coarseValue: "medium",
      postbacks: 6,
    }),
    group({ verification: { status: "unverified", environment: null }, postbacks: 7 }),
    group({ verification: { status: "verified", environment: "development" }, postbacks: 8 }),
  ];

  it("counts a later window's postback that did not win nowhere, and no postback before 4.0 in a crowd tier", () => {
    const report = skadnetworkReport(
      [
        group({ sourceIdentifier: "34", sequenceIndex: 1, didWin: false, postbacks: 2 }),
        group({ sourceIdentifier: "34", sequenceIndex: 2, postbacks: 1 }),
        group({ identifierField: "campaign-id", sourceIdentifier: "12", postbacks: 3 }),
        group({
          identifierField: "campaign-id",
          sourceIdentifier: "12",
          conversionValue: null,
          postbacks: 4,
        }),
      ],
      { schema: null, networks: {} },
    );
    const later = report.campaigns.find((row) => row.source_identifier === "34");
    expect(later?.later_postbacks).toBe(1);
    // The 2.x and 3.0 installs are counted as installs, and in no 4.0 tier.
    expect(report.campaigns.find((row) => row.identifier_field === "campaign-id")?.installs).toBe(
      7,
    );
    expect(report.tiers).toEqual({ fine: 0, coarse_only: 0, none: 0 });
  });

  it("counts installs, redownloads and AdAttributionKit's re-engagements apart, each once", () => {
    const report = skadnetworkReport(groups, { schema: null, networks: {} });
    expect(report.campaigns).toEqual([
      {
        media_source: expect.any(String),
        ad_network_id: "cstr6suwn9.skadnetwork",
        source_identifier: "1234",
        identifier_field: "source-identifier",
        installs: 5,
        redownloads: 2,
        reengagements: 3,
        later_postbacks: null,
        suffix_installs: null,
        revenue_usd: null,
        later_revenue_usd: null,
      },
      {
        media_source: expect.any(String),
        ad_network_id: "cstr6suwn9.skadnetwork",
        source_identifier: "34",
        identifier_field: "source-identifier",
        installs: 0,
        redownloads: 0,
        reengagements: 0,
        later_postbacks: 6,
        suffix_installs: 5 + 2,
        revenue_usd: null,
        later_revenue_usd: null,
      },
    ]);
    // No schema: no value states any revenue.
    expect(report.revenue_usd).toBeNull();
    expect(report.postbacks).toEqual({
      received: 35,
      counted: 20,
      unverified: 7,
      development: 8,
      disputed: 0,
    });
    // Every first-window install (redownloads too) by what Apple let through of its values;
    // a re-engagement is no install.
    expect(report.tiers).toEqual({ fine: 7, coarse_only: 0, none: 0 });
  });

  it("counts the postbacks whose values were disputed among those it counts, with no value", () => {
    const report = skadnetworkReport(
      [
        group({ postbacks: 2 }),
        group({ conversionValue: null, valuesDisputed: true, postbacks: 3 }),
        // Not counted: no part of `disputed` either.
        group({
          conversionValue: null,
          valuesDisputed: true,
          verification: { status: "unverified", environment: null },
        }),
      ],
      { schema: null, networks: {} },
    );
    expect(report.postbacks).toMatchObject({ received: 6, counted: 5, disputed: 3 });
    expect(report.tiers).toEqual({ fine: 2, coarse_only: 0, none: 3 });
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

  it("lists the values winners let through: a first window's fine one alone, by window", () => {
    const report = skadnetworkReport(
      [
        group({ sequenceIndex: 2, conversionValue: null, coarseValue: "low", postbacks: 6 }),
        group({ sequenceIndex: 1, conversionValue: null, coarseValue: "high", postbacks: 2 }),
        // A first window's postback that carries both: the fine value is the one Apple let through.
        group({ conversionValue: 20, coarseValue: "high", postbacks: 3 }),
        // One that did not win, and one that won with no value, list nothing.
        group({ didWin: false, conversionValue: 30, postbacks: 4 }),
        group({ conversionValue: null, coarseValue: null, postbacks: 5 }),
      ],
      { schema: null, networks: {} },
    );
    expect(
      report.values.map(({ window, fine, coarse, postbacks }) => [window, fine, coarse, postbacks]),
    ).toEqual([
      [0, 20, null, 3],
      [1, null, "high", 2],
      [2, null, "low", 6],
    ]);
  });

  describe("revenue", () => {
    const schema = conversionSchemaRequest.parse({
      windows: [
        {
          rules: [
            {
              event: "service_purchase",
              revenue_usd: { min: 0.99, max: 4.99 },
              fine: 20,
              coarse: "medium",
            },
            { event: "service_purchase", revenue_usd: { min: 4.99 }, fine: 40, coarse: "high" },
            { event: "service_tutorial_complete", fine: 5, coarse: "low" },
            // Two rules give 30: the value spans their ranges.
            {
              event: "service_purchase",
              revenue_usd: { min: 2, max: 3 },
              fine: 30,
              coarse: "medium",
            },
            {
              event: "service_subscribe",
              revenue_usd: { min: 9.99, max: 10 },
              fine: 30,
              coarse: "medium",
            },
          ],
        },
        {
          rules: [{ event: "service_purchase", revenue_usd: { min: 10, max: 50 }, coarse: "high" }],
        },
        { rules: [] },
      ],
    });
    const report = skadnetworkReport(
      [
        group({ sourceIdentifier: "1234", conversionValue: 20, postbacks: 3 }),
        group({ sourceIdentifier: "1234", conversionValue: 30, postbacks: 1 }),
        group({ sourceIdentifier: "1234", redownload: true, conversionValue: 5, postbacks: 2 }),
        // First launch, no rule met: 0 USD.
        group({ sourceIdentifier: "1234", conversionValue: 0, postbacks: 4 }),
        // A smaller crowd's coarse value: every medium rule of the window.
        group({
          sourceIdentifier: "34",
          conversionValue: null,
          coarseValue: "medium",
          postbacks: 2,
        }),
        // No value, a disputed one, a loser and a re-engagement state nothing.
        group({ sourceIdentifier: "34", conversionValue: null, postbacks: 5 }),
        group({ sourceIdentifier: "34", conversionValue: null, valuesDisputed: true }),
        group({ sourceIdentifier: "34", didWin: false, conversionValue: 40, postbacks: 6 }),
        group({ sourceIdentifier: "34", reengagement: true, conversionValue: 40, postbacks: 7 }),
        // The second window: 10 to 50 each, on the row of the two digits.
        group({
          sourceIdentifier: "34",
          sequenceIndex: 1,
          conversionValue: null,
          coarseValue: "high",
          postbacks: 2,
        }),
      ],
      { schema, networks: {} },
    );

    it("gives each value's range per postback, spanning every rule that gives it", () => {
      const rangeOf = (fine: number | null, coarse: string | null, window = 0) =>
        report.values.find(
          (value) =>
            value.conversion === "install" &&
            value.window === window &&
            value.fine === fine &&
            value.coarse === coarse,
        )?.revenue_usd;
      expect(rangeOf(20, null)).toEqual({ min: 0.99, max: 4.99 });
      expect(rangeOf(30, null)).toEqual({ min: 2, max: 10 });
      expect(rangeOf(5, null)).toEqual({ min: 0, max: 0 });
      expect(rangeOf(0, null)).toEqual({ min: 0, max: 0 });
      expect(rangeOf(null, "medium")).toEqual({ min: 0.99, max: 10 });
      expect(rangeOf(null, "high", 1)).toEqual({ min: 10, max: 50 });
      expect(
        report.values.find((value) => value.conversion === "reengagement")?.revenue_usd,
      ).toBeNull();
    });

    it("sums the first window's on each row, the later windows' on the two digits' row, and every window's in all", () => {
      const row = (id: string) => report.campaigns.find((c) => c.source_identifier === id);
      // 3 × [0.99, 4.99) + [2, 10) + 2 × 0 + 4 × 0.
      expect(row("1234")?.revenue_usd).toEqual({ min: 4.97, max: 24.97 });
      expect(row("1234")?.later_revenue_usd).toBeNull();
      // 2 × [0.99, 10).
      expect(row("34")?.revenue_usd).toEqual({ min: 1.98, max: 20 });
      expect(row("34")?.later_revenue_usd).toEqual({ min: 20, max: 100 });
      expect(report.revenue_usd).toEqual({ min: 26.95, max: 144.97 });
    });

    it("has no bound above once a counted value's rule has none", () => {
      const open = skadnetworkReport([group({ conversionValue: 40, postbacks: 2 }), group({})], {
        schema,
        networks: {},
      });
      expect(open.revenue_usd).toEqual({ min: 10.97, max: null });
      expect(open.campaigns[0]?.revenue_usd).toEqual({ min: 10.97, max: null });
    });

    it("has no bound above for a value of a rule that reads no revenue set over one that does", () => {
      // Three purchases a player made, and then a level reached, whose value is set above theirs.
      const levels = conversionSchemaRequest.parse({
        windows: [
          {
            rules: [
              {
                event: "service_purchase",
                revenue_usd: { min: 0.99, max: 4.99 },
                fine: 20,
                coarse: "medium",
              },
              { event: "service_level_achieved", min_count: 3, fine: 63, coarse: "high" },
            ],
          },
          { rules: [] },
          { rules: [] },
        ],
      });
      const spent = skadnetworkReport([group({ conversionValue: 63 })], {
        schema: levels,
        networks: {},
      });
      expect(spent.values[0]?.revenue_usd).toEqual({ min: 0, max: null });
      expect(spent.revenue_usd).toEqual({ min: 0, max: null });
    });

    it("has no bound above for a value of a window whose rules read no revenue", () => {
      // docs/skadnetwork.md's example: the second window's value is any purchase's, of any amount.
      const anyPurchase = conversionSchemaRequest.parse({
        windows: [
          {
            rules: [
              {
                event: "service_purchase",
                revenue_usd: { min: 0.99, max: 4.99 },
                fine: 20,
                coarse: "medium",
              },
            ],
          },
          { rules: [{ event: "service_purchase", coarse: "high", lock: true }] },
          { rules: [] },
        ],
      });
      const later = skadnetworkReport(
        [
          group({ sourceIdentifier: "34", conversionValue: 20 }),
          group({
            sourceIdentifier: "34",
            sequenceIndex: 1,
            conversionValue: null,
            coarseValue: "high",
            postbacks: 3,
          }),
        ],
        { schema: anyPurchase, networks: {} },
      );
      expect(later.values.find((value) => value.window === 1)?.revenue_usd).toEqual({
        min: 0,
        max: null,
      });
      const row = later.campaigns.find((c) => c.source_identifier === "34");
      expect(row?.revenue_usd).toEqual({ min: 0.99, max: 4.99 });
      expect(row?.later_revenue_usd).toEqual({ min: 0, max: null });
      expect(later.revenue_usd).toEqual({ min: 0.99, max: null });
      // A value no rule of that window gives (no purchase in it) still states none.
      const none = skadnetworkReport(
        [
          group({
            sourceIdentifier: "34",
            sequenceIndex: 1,
            conversionValue: null,
            coarseValue: "low",
          }),
        ],
        { schema: anyPurchase, networks: {} },
      );
      expect(none.values.find((value) => value.window === 1)?.revenue_usd).toEqual({
        min: 0,
        max: 0,
      });
    });

    it("is null under a schema whose rules read no revenue", () => {
      const counts = conversionSchemaRequest.parse({
        windows: [
          { rules: [{ event: "service_purchase", fine: 20, coarse: "high" }] },
          { rules: [] },
          { rules: [] },
        ],
      });
      const plain = skadnetworkReport([group({})], { schema: counts, networks: {} });
      expect(plain.revenue_usd).toBeNull();
      expect(plain.campaigns[0]?.revenue_usd).toBeNull();
      expect(plain.values[0]?.revenue_usd).toBeNull();
    });
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

  describe("later windows' postbacks", () => {
    const row = (report: ReturnType<typeof skadnetworkReport>, id: string) =>
      report.campaigns.find(
        (campaign) =>
          campaign.source_identifier === id && campaign.identifier_field === "source-identifier",
      );

    it("are reported on the row of two digits, beside the installs of every campaign ending in them", () => {
      // Campaign 5239 reported with four digits (10 installs) and with two (4 installs: a
      // smaller crowd), 1139 with four (3 installs and a redownload): Apple sends every later
      // window's postback of them with 39 only.
      const report = skadnetworkReport(
        [
          group({ sourceIdentifier: "5239", postbacks: 10 }),
          group({ sourceIdentifier: "39", conversionValue: null, postbacks: 4 }),
          group({ sourceIdentifier: "1139", postbacks: 3 }),
          group({ sourceIdentifier: "1139", redownload: true, postbacks: 1 }),
          group({
            sourceIdentifier: "39",
            sequenceIndex: 1,
            conversionValue: null,
            coarseValue: "medium",
            postbacks: 6,
          }),
          group({
            sourceIdentifier: "39",
            sequenceIndex: 2,
            conversionValue: null,
            coarseValue: "low",
            postbacks: 2,
          }),
        ],
        { schema: null, networks: {} },
      );
      // Not 0 on the four digits' rows, which no later postback can name.
      expect(row(report, "5239")).toMatchObject({
        installs: 10,
        later_postbacks: null,
        suffix_installs: null,
      });
      expect(row(report, "1139")).toMatchObject({ later_postbacks: null, suffix_installs: null });
      expect(row(report, "39")).toMatchObject({
        installs: 4,
        later_postbacks: 8,
        suffix_installs: 10 + 4 + 3 + 1,
      });
    });

    it("leave out a re-engagement's, which are not of the row's installs", () => {
      const report = skadnetworkReport(
        [
          group({ sourceIdentifier: "5239", postbacks: 10 }),
          group({ sourceIdentifier: "39", reengagement: true, postbacks: 100 }),
          group({
            sourceIdentifier: "39",
            reengagement: true,
            sequenceIndex: 1,
            conversionValue: null,
            coarseValue: "low",
            postbacks: 60,
          }),
          group({
            sourceIdentifier: "39",
            sequenceIndex: 1,
            conversionValue: null,
            coarseValue: "medium",
            postbacks: 5,
          }),
        ],
        { schema: null, networks: {} },
      );
      expect(row(report, "39")).toMatchObject({
        reengagements: 100,
        later_postbacks: 5,
        suffix_installs: 10,
      });
    });

    it("make the row of two digits a campaign of more has, with none of its own", () => {
      const report = skadnetworkReport([group({ sourceIdentifier: "5239", postbacks: 10 })], {
        schema: null,
        networks: {},
      });
      // The campaign's later windows gave nothing: 0 of its 10 installs, not a missing row.
      expect(row(report, "39")).toMatchObject({
        installs: 0,
        later_postbacks: 0,
        suffix_installs: 10,
      });
    });

    it("keep another ad network's campaigns, and campaign ids before 4.0, apart", () => {
      const report = skadnetworkReport(
        [
          group({ sourceIdentifier: "5239", postbacks: 10 }),
          group({ adNetworkId: "other.skadnetwork", sourceIdentifier: "7739", postbacks: 5 }),
          // SKAdNetwork 3.0's campaign 39: another numbering, and a single window.
          group({ sourceIdentifier: "39", identifierField: "campaign-id", postbacks: 7 }),
          group({
            sourceIdentifier: "39",
            sequenceIndex: 1,
            conversionValue: null,
            coarseValue: "medium",
            postbacks: 6,
          }),
        ],
        { schema: null, networks: {} },
      );
      expect(
        report.campaigns.map((c) => [
          c.ad_network_id,
          c.identifier_field,
          c.source_identifier,
          c.installs,
          c.later_postbacks,
          c.suffix_installs,
        ]),
      ).toEqual([
        ["cstr6suwn9.skadnetwork", "source-identifier", "5239", 10, null, null],
        ["cstr6suwn9.skadnetwork", "campaign-id", "39", 7, null, null],
        ["other.skadnetwork", "source-identifier", "7739", 5, null, null],
        ["cstr6suwn9.skadnetwork", "source-identifier", "39", 0, 6, 10],
        ["other.skadnetwork", "source-identifier", "39", 0, 0, 5],
      ]);
    });
  });
});

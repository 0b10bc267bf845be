import { describe, expect, it } from "vitest";
import { parseEcbRates } from "../fx/ecb-rates.ts";
import { COSTS_TABLE } from "../lake/lake-tables.ts";
import type { CostRow } from "../ports/costs.ts";
import { costMatchKeyOf } from "./cost-requests.ts";
import {
  costKeyOf,
  costLakeRecord,
  costRowsOf,
  isTakenBack,
  mixedLevelWarnings,
  standingCostRows,
  unconvertedWarnings,
} from "./cost-rows.ts";

const NOW = new Date("2026-11-29T12:00:00Z");
const FX = parseEcbRates("Date,USD,\n2026-11-27,1.1,\n2026-11-20,1.2,\n");
const row = (overrides: Record<string, unknown> = {}) => ({
  day: "2026-11-27",
  media_source: "examplenet",
  campaign_id: "c1",
  amount: 100,
  currency: "EUR",
  ...overrides,
});

/** Rows of the app com.a, each the base row with its given fields, as an upload reads them. */
const rowsOf = (...given: Record<string, unknown>[]) =>
  costRowsOf("com.a", { rows: given.map((g) => row(g)) }, FX, NOW);

describe("cost rows", () => {
  it("converts each amount with its own day's rate, and keeps a row without one", () => {
    const [rate27, rate20, none] = costRowsOf(
      "com.a",
      { rows: [row(), row({ day: "2026-11-20" }), row({ day: "2026-09-01" })] },
      FX,
      NOW,
    );
    expect(rate27?.amountUsd).toBeCloseTo(110, 6);
    // A currency in any case, as revenue's: kept in capitals, and converted.
    const [lower] = costRowsOf("com.a", { rows: [row({ currency: " eur " })] }, FX, NOW);
    expect(lower).toMatchObject({ currency: "EUR", amountUsd: 110 });
    expect(rate20?.amountUsd).toBeCloseTo(120, 6);
    expect(none?.amountUsd).toBeNull();
  });

  it("refuses a field it does not take, named in words, and stores none of the body", () => {
    expect(() =>
      costRowsOf("com.a", { rows: [row({ campaign_nmae: "Winter" })], extra: 1 }, FX, NOW),
    ).toThrow('body.rows[0]: takes no "campaign_nmae"; body: takes no "extra"');
  });

  it("takes days up to 90 back and none after tomorrow, naming each row at fault", () => {
    expect(() =>
      costRowsOf(
        "com.a",
        { rows: [row({ day: "2026-12-01" }), row({ day: "2026-08-30" })] },
        FX,
        NOW,
      ),
    ).toThrow(
      "body.rows[0].day: must not be after tomorrow (2026-11-30, UTC); body.rows[1].day: must be within 90 days (from 2026-08-31)",
    );
    expect(() => costRowsOf("com.a", { rows: [row({ currency: "EURO" })] }, FX, NOW)).toThrow(
      "body.rows[0].currency: must be an ISO 4217 currency code",
    );
    // A day beside another row's (or its own) other field at fault: each named, in row order.
    expect(() =>
      costRowsOf(
        "com.a",
        {
          rows: [
            row({ day: "2026-08-01" }),
            row({ amount: -5 }),
            row({ day: "2026-12-01", currency: "EURO" }),
          ],
        },
        FX,
        NOW,
      ),
    ).toThrow(
      /^body\.rows\[0\]\.day: must be within 90 days \(from 2026-08-31\); body\.rows\[1\]\.amount: [^;]+; body\.rows\[2\]\.currency: must be an ISO 4217 currency code; body\.rows\[2\]\.day: must not be after tomorrow/,
    );
    // Five rows at fault are named at most: the message stays readable.
    const late = Array.from({ length: 7 }, (_, i) =>
      row({ day: "2026-12-01", campaign_id: `c${i}` }),
    );
    let message = "";
    try {
      costRowsOf("com.a", { rows: late }, FX, NOW);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.match(/body\.rows\[\d\]\.day/g)).toEqual(
      [0, 1, 2, 3, 4].map((i) => `body.rows[${i}].day`),
    );
  });

  it("says which of a row's fields are required and missing, and which are of the wrong type", () => {
    const { campaign_id: _, currency: __, day: ___, amount: ____, ...partial } = row();
    expect(() => costRowsOf("com.a", { rows: [partial] }, FX, NOW)).toThrow(
      "body.rows[0].day: is required; body.rows[0].campaign_id: is required; body.rows[0].amount: is required; body.rows[0].currency: is required",
    );
    expect(() =>
      costRowsOf("com.a", { rows: [row({ campaign_id: 7, amount: "1" })] }, FX, NOW),
    ).toThrow("body.rows[0].campaign_id: must be a string; body.rows[0].amount: must be a number");
  });

  it("refuses a name holding a control character, storing nothing of the body", () => {
    expect(() =>
      costRowsOf(
        "com.a",
        {
          rows: [
            row({ media_source: "meta\u0000ads" }),
            row({ campaign_id: "c\u0000", campaign_name: "Winter\tSale", adset_name: "a\u009f" }),
            row({ ad_id: "\u007f" }),
          ],
        },
        FX,
        NOW,
      ),
    ).toThrow(
      "body.rows[0].media_source: must not contain control characters; body.rows[1].campaign_id: must not contain control characters; body.rows[1].campaign_name: must not contain control characters; body.rows[1].adset_name: must not contain control characters; body.rows[2].ad_id: must not contain control characters",
    );
    // Marks and letters of any script are a name's own.
    const [kept] = costRowsOf(
      "com.a",
      { rows: [row({ campaign_name: "Hiver ❄ «été» 'x'" })] },
      FX,
      NOW,
    );
    expect(kept?.campaignName).toBe("Hiver ❄ «été» 'x'");
  });

  it("trims the names as the CSV uploads do, an optional one of only spaces being none", () => {
    const [trimmed] = costRowsOf(
      "com.a",
      {
        rows: [
          row({
            media_source: " examplenet ",
            campaign_id: "c1\u00a0",
            campaign_name: "  Winter Sale ",
            adset_id: "   ",
            adset_name: "\tSet A\n",
            ad_name: "",
          }),
        ],
      },
      FX,
      NOW,
    );
    expect(trimmed).toMatchObject({
      mediaSource: "examplenet",
      campaignId: "c1",
      campaignName: "Winter Sale",
      adsetId: null,
      adsetName: "Set A",
      adName: null,
    });
    // A required name of nothing but spaces is none: refused.
    expect(() => costRowsOf("com.a", { rows: [row({ campaign_id: "  " })] }, FX, NOW)).toThrow(
      "body.rows[0].campaign_id: must not be empty",
    );
  });

  it("refuses a body holding two rows of one day and keys, naming both, storing nothing", () => {
    // The same spend in two currencies: stored, the second would replace the first.
    expect(() =>
      costRowsOf(
        "com.a",
        {
          rows: [
            row({ adset_id: "as-1" }),
            row({ country: "DE" }),
            row({ adset_id: "as-1", adset_name: "Renamed", amount: 120, currency: "USD" }),
            row({ campaign_id: " c1 ", country: "DE" }),
          ],
        },
        FX,
        NOW,
      ),
    ).toThrow(
      "body.rows[2]: has the day, media source, campaign, ad set, ad and country of body.rows[0]: one row for them, in one currency; body.rows[3]: has the day, media source, campaign, ad set, ad and country of body.rows[1]: one row for them, in one currency",
    );
  });

  /** The key of a row sent alone: a body holds one row of a key. */
  const keyOf = (overrides: Record<string, unknown>) => {
    const [stored] = costRowsOf("com.a", { rows: [row(overrides)] }, FX, NOW);
    if (!stored) throw new Error("no row");
    return costKeyOf(stored);
  };

  it("keys a row by its day, media source, campaign, ad set, ad and country alone", () => {
    expect(keyOf({})).toBe(keyOf({ amount: 5, campaign_name: "Renamed" }));
    expect(keyOf({})).not.toBe(keyOf({ country: "DE" }));
  });

  it("keys an ad set or ad by its id, else by its name, so two named only are two rows", () => {
    const keys = [
      { adset_name: "X" },
      { adset_name: "Y" },
      { adset_id: "as-1", adset_name: "X" },
      { adset_id: "as-1", adset_name: "Renamed" },
      { adset_id: "X" },
      { ad_name: "X" },
      { ad_name: "Y" },
    ].map(keyOf);
    expect(new Set(keys).size).toBe(6);
    expect(keys[2]).toBe(keys[3]);
  });

  it("goes to the lake as a row of every column of the costs table, and the app", () => {
    const [stored] = costRowsOf("com.a", { rows: [row({ clicks: 30 })] }, FX, NOW);
    if (!stored) throw new Error("no row");
    const record = costLakeRecord(stored);
    expect(Object.keys(record).sort()).toEqual(
      ["app_id", ...COSTS_TABLE.columns.map((column) => column.name)].sort(),
    );
    expect(record).toMatchObject({
      app_id: "com.a",
      day: "2026-11-27",
      amount_usd: 110.0,
      clicks: 30,
      received_at: NOW.toISOString(),
    });
  });

  it("warns of a campaign's day whose stored rows are at several levels of detail, and of no other", () => {
    const total = rowsOf({});
    const split = rowsOf({ country: "DE", amount: 60 }, { country: "FR", amount: 40 });
    const other = rowsOf({ campaign_id: "c2" }, { campaign_id: "c2", adset_id: "a1" });
    // The split uploaded after the total: both are stored, and said to count twice.
    expect(mixedLevelWarnings([...total, ...split], split)).toEqual([
      "Campaign c1 of examplenet on 2026-11-27 has cost rows at 2 levels of detail (by country; the campaign's total): every row counts as spend of its own, so a total and its split count twice. Keep one level for a campaign's day (a row sent again with amount 0 takes it back).",
    ]);
    // The same when the stored rows, read through an index, do not hold the upload's own yet.
    expect(mixedLevelWarnings(total, split)).toEqual(
      mixedLevelWarnings([...total, ...split], split),
    );
    // Rows of one level, or another campaign's mix this upload did not touch: nothing to say.
    expect(mixedLevelWarnings([...split, ...other], split)).toEqual([]);
    expect(
      mixedLevelWarnings([...total, ...rowsOf({ day: "2026-11-20", country: "DE" })], total),
    ).toEqual([]);
  });

  it("warns of the rows no rate converts, by currency and reason, and of none that converts or spends nothing", () => {
    const rows = rowsOf(
      { day: "2026-09-01" },
      { day: "2026-09-03", campaign_id: "c2" },
      { currency: "VND", amount: 2_000_000, campaign_id: "c4" },
      { currency: "VND", amount: 0, campaign_id: "c3" },
      { day: "2026-11-20", currency: "USD" },
      {},
    );
    expect(unconvertedWarnings(rows, FX)).toEqual([
      "2 rows in EUR of 2026-09-01 to 2026-09-03 have no USD amount: the rates known here begin on 2026-11-20. Kept, but their spend is in no cost, eCPI or ROAS figure (the reports count them in cost_rows_unconverted); a row sent again replaces its own, converted at the rates known then.",
      "1 row in VND of 2026-11-27 has no USD amount: the ECB publishes no rate of VND. Kept, but their spend is in no cost, eCPI or ROAS figure (the reports count them in cost_rows_unconverted); a row sent again replaces its own, converted at the rates known then.",
    ]);
    expect(unconvertedWarnings(rowsOf({}, { currency: "USD", campaign_id: "c2" }), FX)).toEqual([]);
  });

  it("judges the levels with the upload's rows in place of the stored ones they replace, whenever those were received", () => {
    const total = rowsOf({});
    // The split was stored by a service whose clock ran ahead of this one's.
    const ahead = new Date(NOW.getTime() + 60_000).toISOString();
    const split = rowsOf({ country: "DE", amount: 60 }, { country: "FR", amount: 40 }).map((r) => ({
      ...r,
      receivedAt: ahead,
    }));
    // This upload takes the split back: only the campaign's total is left, one level.
    const takenBack = rowsOf({ country: "DE", amount: 0 }, { country: "FR", amount: 0 });
    expect(mixedLevelWarnings([...total, ...split], takenBack)).toEqual([]);
  });

  it("names each level by what its rows name, by id or by name alike", () => {
    const total = rowsOf({});
    const detailed = rowsOf(
      { adset_name: "Broad" },
      { adset_id: "a1", ad_name: "Video" },
      { adset_id: "a2", country: "DE" },
      { ad_id: "d1" },
    );
    const [warning] = mixedLevelWarnings(total, detailed);
    expect(warning).toContain(
      "has cost rows at 5 levels of detail (by ad; by ad set; by ad set and ad; by ad set and country; the campaign's total)",
    );
  });

  it("warns of twenty campaigns' days at most, and counts the rest", () => {
    const campaigns = Array.from({ length: 22 }, (_, i) => `c${i}`);
    const totals = rowsOf(...campaigns.map((campaign_id) => ({ campaign_id })));
    const split = rowsOf(...campaigns.map((campaign_id) => ({ campaign_id, country: "DE" })));
    const warnings = mixedLevelWarnings(totals, split);
    expect(warnings).toHaveLength(21);
    expect(warnings[20]).toBe("And 2 more campaigns' days likewise.");
    expect(mixedLevelWarnings(totals.slice(0, 20), split.slice(0, 20))).toHaveLength(20);
  });

  it("counts a row taken back (sent again with amount 0) at no level", () => {
    const split = rowsOf({ country: "DE", amount: 60 }, { country: "FR", amount: 40 });
    const takenBack = rowsOf({ amount: 0 });
    expect(isTakenBack(takenBack[0] ?? row())).toBe(true);
    expect(mixedLevelWarnings([...takenBack, ...split], takenBack)).toEqual([]);
    expect(mixedLevelWarnings(rowsOf({}), takenBack)).toEqual([]);
  });

  it("refuses a body with two rows of one ad set or ad whose names differ only in case or Unicode form", () => {
    const nfc = "Café".normalize("NFC");
    const nfd = "Café".normalize("NFD");
    expect(nfc).not.toBe(nfd);
    expect(() =>
      costRowsOf(
        "com.a",
        {
          rows: [
            row({ adset_name: nfc }),
            row({ adset_name: nfd }),
            row({ ad_name: "Ad One" }),
            row({ ad_name: "AD ONE" }),
          ],
        },
        FX,
        NOW,
      ),
    ).toThrow(
      "body.rows[1]: has the day, media source, campaign, ad set, ad and country of body.rows[0]: one row for them, in one currency; body.rows[3]: has the day, media source, campaign, ad set, ad and country of body.rows[2]: one row for them, in one currency",
    );
    // Ids whose case differs are two ad sets' (a network's ids may differ in case alone).
    expect(
      costRowsOf("com.a", { rows: [row({ adset_id: "a1" }), row({ adset_id: "A1" })] }, FX, NOW),
    ).toHaveLength(2);
  });

  /** A row of one request, received at `at`. */
  const sent = (at: string, overrides: Record<string, unknown>): CostRow => {
    const [stored] = costRowsOf("com.a", { rows: [row(overrides)] }, FX, new Date(at));
    if (!stored) throw new Error("no row");
    return stored;
  };

  it("keys a stored row by its names as sent, and its spend by them as the reports match them", () => {
    const first = sent("2026-11-28T10:00:00Z", { adset_name: "Set A" });
    const again = sent("2026-11-29T10:00:00Z", { adset_name: " SET A " });
    // Rows stored so far are keyed as sent: one sent again as it was replaces its own.
    expect(costKeyOf(again)).not.toBe(costKeyOf(first));
    expect(costMatchKeyOf(again)).toBe(costMatchKeyOf(first));
  });

  it("reads one spend stored under two spellings as its latest row, and a take-back in either as none", () => {
    const first = sent("2026-11-28T10:00:00Z", { adset_name: "Été", amount: 100 });
    const again = sent("2026-11-29T10:00:00Z", { adset_name: "ÉTÉ", amount: 80 });
    const other = sent("2026-11-28T10:00:00Z", { adset_name: "Hiver", amount: 5 });
    // In the order a store lists them (by key), the later either side.
    expect(standingCostRows([again, other, first])).toEqual([again, other]);
    expect(standingCostRows([first, other, again])).toEqual([again, other]);
    const nfd = sent("2026-11-29T11:00:00Z", { adset_name: "été".normalize("NFD"), amount: 0 });
    expect(standingCostRows([first, again, nfd, other])).toEqual([other]);
    // A take-back received before the row sent again takes back no more than its own.
    const early = sent("2026-11-28T11:00:00Z", { adset_name: "été", amount: 0 });
    expect(standingCostRows([first, early, again])).toEqual([again]);
  });
});

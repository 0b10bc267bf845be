import { describe, expect, it } from "vitest";
import { storedInstall } from "../../test/support/installs.ts";
import { parseEcbRates } from "../fx/ecb-rates.ts";
import { ATTRIBUTIONS_TABLE } from "../lake/lake-tables.ts";
import type { AttributionResult } from "../ports/attributions.ts";
import { NO_CAMPAIGN } from "../touches/touch.ts";
import { attributionRow } from "./lake-rows.ts";

// EUR at 1.1 USD on the install's day (its first open, 2026-11-01), 1.3 on the day after.
const FX = parseEcbRates("Date,USD,\n2026-11-02,1.3,\n2026-11-01,1.1,\n");
const INSTALL = storedInstall("com.example.game", "device-1");

const result = (overrides: Partial<AttributionResult> = {}): AttributionResult => ({
  status: "matched",
  method: "click_id",
  clickId: "c1",
  deeplinkId: "Kx3v9QpZ2aQ",
  mediaSource: "network_a",
  ...NO_CAMPAIGN,
  matchingType: "network",
  confidence: "high",
  clickToFirstOpenHours: 0,
  installType: null,
  otherCandidates: 0,
  params: {},
  cost: null,
  // Attributed the day after its first open: the install's day's rate still converts it.
  attributedAt: "2026-11-02T00:00:05.000Z",
  ...overrides,
});

describe("an attribution's lake row", () => {
  it("carries a CPI win's cost, in USD at the rate of the install's day", () => {
    const row = attributionRow(
      INSTALL,
      result({ cost: { model: "CPI", value: 2.5, currency: "EUR" } }),
      FX,
    );
    expect(row).toMatchObject({
      media_source: "network_a",
      cost_model: "CPI",
      cost_value: 2.5,
      cost_currency: "EUR",
      cost_usd: 2.75,
    });
  });

  it("keeps a price no rate converts, its USD null", () => {
    const row = attributionRow(
      INSTALL,
      result({ cost: { model: "CPI", value: 300, currency: "JPY" } }),
      FX,
    );
    expect(row).toMatchObject({ cost_model: "CPI", cost_value: 300, cost_usd: null });
  });

  it("carries none for an install no CPI touch won (organic, or a CPC or CPM touch's)", () => {
    for (const row of [
      attributionRow(INSTALL, result(), FX),
      attributionRow(
        INSTALL,
        result({ status: "organic", method: null, clickId: null, mediaSource: "organic" }),
        FX,
      ),
    ]) {
      expect(row).toMatchObject({
        cost_model: null,
        cost_value: null,
        cost_currency: null,
        cost_usd: null,
      });
    }
  });

  it("has a value for every column of the attributions table", () => {
    const row = attributionRow(INSTALL, result(), FX);
    expect(Object.keys(row).sort()).toEqual(
      ["app_id", ...ATTRIBUTIONS_TABLE.columns.map((column) => column.name)].sort(),
    );
  });
});

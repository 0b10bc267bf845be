import { describe, expect, it } from "vitest";
import { storedInstall } from "../../test/support/installs.ts";
import { parseEcbRates } from "../fx/ecb-rates.ts";
import { ATTRIBUTIONS_TABLE } from "../lake/lake-tables.ts";
import type { AttributionResult } from "../ports/attributions.ts";
import { NO_CAMPAIGN } from "../touches/touch.ts";
import { attributionRow, installEventRow } from "./lake-rows.ts";

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
  reinstall: false,
  repeatsClick: false,
  otherCandidates: 0,
  params: {},
  cost: null,
  touchTime: null,
  touchType: "click",
  networkClickId: null,
  urlParams: {},
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

  it("says a reinstall of either platform, which the export's install type says on iOS only", () => {
    expect(attributionRow(INSTALL, result(), FX).reinstall).toBe(0);
    expect(attributionRow(INSTALL, result({ reinstall: true }), FX)).toMatchObject({
      reinstall: 1,
      install_type: null,
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

describe("an install's service_install event", () => {
  const APP = {
    appId: "com.example.game",
    name: "Game",
    platform: "android" as const,
    enabled: true,
    createdAt: "2026-10-01T00:00:00.000Z",
  };
  const at = (firstOpenTime: string, clockOffsetMs?: number) =>
    installEventRow(APP, {
      ...INSTALL,
      firstOpenTime,
      receivedAt: "2026-11-01T11:15:32.000Z",
      ...(clockOffsetMs === undefined ? {} : { clockOffsetMs }),
    }).event_time;

  it("is the install's own event: its type, no parameters, and an id of its own, the same each time", () => {
    const row = installEventRow(APP, INSTALL);
    expect(row).toMatchObject({
      app_id: INSTALL.appId,
      event_name: "service_install",
      event_type: "INSTALL",
      parameters: "{}",
      service_id: INSTALL.serviceId,
      app_name: "Game",
    });
    expect(row.event_id).toMatch(/^service_install_[0-9a-f]{32}$/);
    expect(installEventRow(APP, { ...INSTALL }).event_id).toBe(row.event_id);
    expect(installEventRow(APP, { ...INSTALL, serviceId: "device-2" }).event_id).not.toBe(
      row.event_id,
    );
  });

  it("is at the first open the device reported, and never after the service heard of the install", () => {
    expect(at("2026-11-01T11:15:00.000Z", 0)).toBe("2026-11-01T11:15:00.000Z");
    // 45 seconds fast: within the tolerance, so not moved, but not past its arrival either.
    expect(at("2026-11-01T11:16:17.000Z", -45_000)).toBe("2026-11-01T11:15:32.000Z");
    // No sent_at: the offset is not known, and a clock 10 minutes fast stops at the arrival.
    expect(at("2026-11-01T11:25:32.000Z")).toBe("2026-11-01T11:15:32.000Z");
    // Ten minutes slow, offset known: on the service's clock.
    expect(at("2026-11-01T11:05:00.000Z", 600_000)).toBe("2026-11-01T11:15:00.000Z");
  });
});

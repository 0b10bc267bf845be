import { describe, expect, it } from "vitest";
import { EMBEDDED_SETTINGS } from "./embedded.ts";
import { misspelledSettings, misspelledSettingWarning } from "./misspelled-settings.ts";

describe("misspelledSettings", () => {
  const settings = [...EMBEDDED_SETTINGS, "ATTRIBUTION_URL", "ATTRIBUTION_API_KEY"];

  it("names a letter swapped, dropped, added or changed, and the setting meant", () => {
    expect(
      misspelledSettings(
        [
          "ATTRIBUTION_PROT",
          "ATTRIBUTION_DATADIR",
          "ATTRIBUTION_LINK_PORTS",
          "ATTRIBUTION_QUERY_MEMORI",
          "attribution_host",
        ],
        settings,
      ),
    ).toEqual([
      { name: "ATTRIBUTION_PROT", setting: "ATTRIBUTION_PORT" },
      { name: "ATTRIBUTION_DATADIR", setting: "ATTRIBUTION_DATA_DIR" },
      { name: "ATTRIBUTION_LINK_PORTS", setting: "ATTRIBUTION_LINK_PORT" },
      { name: "ATTRIBUTION_QUERY_MEMORI", setting: "ATTRIBUTION_QUERY_MEMORY" },
      { name: "attribution_host", setting: "ATTRIBUTION_HOST" },
    ]);
  });

  it("passes over the settings themselves, other variables and names far from any setting", () => {
    expect(
      misspelledSettings(
        [
          ...settings,
          "PATH",
          "PORT",
          "ATTRIBUTION_CHROMIUM",
          "ATTRIBUTION_TEST_TARGET",
          "ATTRIBUTION_AWS_APPS_TABLE",
          "ATTRIBUTION_LISTEN_ON",
        ],
        settings,
      ),
    ).toEqual([]);
  });

  it("takes the nearest of two settings", () => {
    expect(misspelledSettings(["ATTRIBUTION_LINK_PORT_"], settings)).toEqual([
      { name: "ATTRIBUTION_LINK_PORT_", setting: "ATTRIBUTION_LINK_PORT" },
    ]);
  });

  it("says which variable is ignored and what it may have meant", () => {
    expect(
      misspelledSettingWarning({ name: "ATTRIBUTION_PROT", setting: "ATTRIBUTION_PORT" }),
    ).toBe(
      "ATTRIBUTION_PROT is no setting of this service and is ignored: did you mean ATTRIBUTION_PORT?",
    );
  });
});

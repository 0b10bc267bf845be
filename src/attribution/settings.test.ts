import { describe, expect, it } from "vitest";
import { ValidationError } from "../domain/errors.ts";
import type { App } from "../ports/apps.ts";
import { attributionSettingsOf, DEFAULT_ATTRIBUTION, withAttributionSettings } from "./settings.ts";

const app: App = {
  appId: "com.example.game",
  name: "Game",
  platform: "ios",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
};

describe("attribution settings", () => {
  it("are the defaults until an app changes one, and keep what it changed", () => {
    expect(attributionSettingsOf(app)).toEqual(DEFAULT_ATTRIBUTION);
    const changed = withAttributionSettings(app, {
      clickWindowDays: 14,
      probabilistic: { ios: true },
    });
    const again = withAttributionSettings(changed, { confidenceFloor: "medium" });
    expect(attributionSettingsOf(again)).toEqual({
      ...DEFAULT_ATTRIBUTION,
      clickWindowDays: 14,
      confidenceFloor: "medium",
      probabilistic: { android: true, ios: true },
    });
    expect(again.attribution).toEqual({
      clickWindowDays: 14,
      confidenceFloor: "medium",
      probabilistic: { ios: true },
    });
  });

  it.each([
    [{ clickWindowDays: 31 }, "clickWindowDays: must be a whole number of days from 1 to 30"],
    [{ viewWindowHours: 0 }, "viewWindowHours: must be a whole number of hours from 1 to 168"],
    [{ probabilisticWindowHours: 25 }, "from 1 to 24"],
    [{ clickWindowDays: 1.5 }, "whole number"],
    [{ confidenceFloor: "high" }, "confidenceFloor: must be low or medium"],
  ])("refuses %j", (change, message) => {
    expect(() => withAttributionSettings(app, change as never)).toThrow(ValidationError);
    expect(() => withAttributionSettings(app, change as never)).toThrow(message);
  });
});

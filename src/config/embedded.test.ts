import { describe, expect, it } from "vitest";
import { embeddedConfig } from "./embedded.ts";

describe("the embedded runtime's configuration", () => {
  it("takes a setting set but empty as unset: its default, never a refusal or a zero", () => {
    const defaults = embeddedConfig({});
    const empty = embeddedConfig({
      ATTRIBUTION_PORT: "",
      ATTRIBUTION_LINK_BASE_URL: "",
      ATTRIBUTION_APP_CACHE_MS: "",
      ATTRIBUTION_PURGE_INTERVAL_MS: "",
      ATTRIBUTION_FX_FEED_URL: "",
    });
    expect(empty).toEqual(defaults);
    expect(empty.appCacheMs).toBeGreaterThan(0);
  });
});

import { describe, expect, it } from "vitest";
import { TOUCH_COLUMNS } from "../record/touch-columns.ts";
import { CLICK_ID_LENGTH } from "./ids.ts";
import { firstLanguage, networkTouchId } from "./touch.ts";

describe("networkTouchId", () => {
  it("is the same for the same app, network and id, and another for any other", () => {
    const id = networkTouchId("com.example.game", "network_a", "c1");
    expect(id).toMatch(new RegExp(`^[0-9A-Za-z]{${CLICK_ID_LENGTH}}$`));
    expect(networkTouchId("com.example.game", "network_a", "c1")).toBe(id);
    expect(networkTouchId("com.example.game", "network_b", "c1")).not.toBe(id);
    expect(networkTouchId("com.example.other", "network_a", "c1")).not.toBe(id);
    // No join of the parts can make two triples one.
    expect(networkTouchId("a", "b#c", "d")).not.toBe(networkTouchId("a", "b", "c#d"));
  });
});

describe("firstLanguage", () => {
  it.each([
    ["de-CH,de;q=0.9,en;q=0.8", "de-CH"],
    ["en", "en"],
    [" fr-FR ; q=1", "fr-FR"],
    ["*", null],
    ["", null],
    [undefined, null],
    ["<script>", null],
  ])("%j → %j", (header, language) => {
    expect(firstLanguage(header)).toBe(language);
  });
});

describe("the touches lake table", () => {
  it("keeps no advertising id, user agent or full IP", () => {
    const names = TOUCH_COLUMNS.map((column) => column.name);
    expect(names).not.toContain("maid");
    expect(names).not.toContain("user_agent");
    expect(names).not.toContain("ip");
    expect(names).toContain("ip_truncated");
  });
});

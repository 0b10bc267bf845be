import { describe, expect, it } from "vitest";
import { exportEventName, toSnakeCase } from "./event-types.ts";

describe("event names", () => {
  it("are service_ and the type, or a custom event's own name, in lower snake case", () => {
    expect(exportEventName("LEVEL_COMPLETE")).toBe("service_level_complete");
    expect(exportEventName("CUSTOM", "Boss Defeated")).toBe("service_boss_defeated");
    expect(exportEventName("CUSTOM", "levelUp")).toBe("service_level_up");
    expect(exportEventName("CUSTOM", "  --Gems  bought!! ")).toBe("service_gems_bought");
    // A standard event's name is its type's, whatever custom name came with it; a custom event
    // without one is named by its type.
    expect(exportEventName("PURCHASE", "Gems")).toBe("service_purchase");
    expect(exportEventName("CUSTOM", null)).toBe("service_custom");
    expect(exportEventName("CUSTOM", "")).toBe("service_custom");
  });

  it("keeps the letters and digits of every script, so names differing there stay apart", () => {
    expect(exportEventName("CUSTOM", "Café Visit")).toBe("service_café_visit");
    expect(exportEventName("CUSTOM", "Straße")).toBe("service_straße");
    expect(exportEventName("CUSTOM", "Ünlock Level")).toBe("service_ünlock_level");
    expect(exportEventName("CUSTOM", "購入 完了 1")).toBe("service_購入_完了_1");
    expect(exportEventName("CUSTOM", "購入 完了 1")).not.toBe(exportEventName("CUSTOM", "取消 1"));
    expect(exportEventName("CUSTOM", "ÉtapeFinie")).toBe("service_étape_finie");
    // The same name typed with a combining accent (e + U+0301) names the same event.
    expect(exportEventName("CUSTOM", "Cafe\u0301 Visit")).toBe("service_café_visit");
  });

  it("stay right however many names have been seen", () => {
    for (let i = 0; i < 25_000; i++) expect(toSnakeCase(`Name ${i}`)).toBe(`name_${i}`);
    expect(toSnakeCase("Name 7")).toBe("name_7");
    expect(toSnakeCase("!!!")).toBe("");
  });
});

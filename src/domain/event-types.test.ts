import { describe, expect, it } from "vitest";
import { exportEventName, toSnakeCase } from "./event-types.ts";

describe("event names", () => {
  it("are service_ and the type, or a custom event's own name, in lower snake case", () => {
    expect(exportEventName("LEVEL_COMPLETE")).toBe("service_level_complete");
    expect(exportEventName("CUSTOM", "Boss Defeated")).toBe("service_boss_defeated");
    expect(exportEventName("CUSTOM", "levelUp")).toBe("service_level_up");
    expect(exportEventName("CUSTOM", "  --Gems  bought!! ")).toBe("service_gems_bought");
  });

  it("stay right however many names have been seen", () => {
    for (let i = 0; i < 25_000; i++) expect(toSnakeCase(`Name ${i}`)).toBe(`name_${i}`);
    expect(toSnakeCase("Name 7")).toBe("name_7");
    expect(toSnakeCase("!!!")).toBe("");
  });
});

import { describe, expect, it } from "vitest";
import { formatIssues } from "../validation/issues.ts";
import { linkRequestSchema } from "./link-request.ts";

const problems = (body: unknown) => {
  const parsed = linkRequestSchema.safeParse(body);
  return parsed.success ? "" : formatIssues(parsed.error.issues, "body");
};

describe("the POST /v1/links body", () => {
  it("takes a media source alone, null for any other field, and ignores unknown keys", () => {
    expect(problems({ media_source: "facebook_ads" })).toBe("");
    expect(
      linkRequestSchema.parse({ media_source: "x", campaign_id: null, params: null, extra: 1 }),
    ).toEqual({ media_source: "x", campaign_id: null, params: null });
  });

  it("says what is wrong with each field", () => {
    expect(problems({})).toBe("media_source: is required");
    expect(problems([])).toBe("body: must be a JSON object");
    expect(problems({ media_source: "x", deep_link_path: "levels/7" })).toBe(
      "deep_link_path: must start with /",
    );
    expect(problems({ media_source: "x", web_url: "javascript:alert(1)" })).toBe(
      "web_url: must be an http or https URL",
    );
    expect(problems({ media_source: "x", params: { deep_link_path: "/a" } })).toContain(
      "keys may not be deep_link_path",
    );
    expect(problems({ media_source: "x", params: { "a b": "c" } })).toContain(
      "keys must be letters, digits",
    );
    expect(problems({ media_source: "x", params: { promo: 7 } })).toContain("must be a string");
  });
});

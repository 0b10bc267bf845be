import { describe, expect, it } from "vitest";
import { TOUCH_COST_LIMITS } from "../costs/touch-cost.ts";
import { formatIssues } from "../validation/issues.ts";
import { LINK_LIMITS } from "./link-limits.ts";
import { linkRequestSchema, linkUpdateSchema } from "./link-request.ts";

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
    expect(problems({ media_source: "x", params: { "": "c" } })).toContain(
      "keys must be letters, digits",
    );
  });

  it("takes 50 params with keys of up to 64 characters, and names what is past either", () => {
    const params = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`sub${i}`, "x"]));
    expect(problems({ media_source: "x", params: params(50) })).toBe("");
    expect(problems({ media_source: "x", params: params(51) })).toBe(
      "params: must have at most 50 keys",
    );
    const long = "k".repeat(65);
    expect(problems({ media_source: "x", params: { ["k".repeat(64)]: "v" } })).toBe("");
    // The problem names the key, cut short.
    expect(problems({ media_source: "x", params: { [long]: "v" } })).toMatch(
      /^params\.k{20,64}…: keys must be at most 64 characters$/,
    );
    expect(problems({ media_source: "x", params: { deep_link_path: "/a" } })).toBe(
      "params.deep_link_path: keys may not be deep_link_path",
    );
  });
});

describe("a link's preview and landing page", () => {
  const updateProblems = (body: unknown) => {
    const parsed = linkUpdateSchema.safeParse(body);
    return parsed.success ? "" : formatIssues(parsed.error.issues, "body");
  };

  it("takes a title, a text and an https image within their bounds", () => {
    expect(
      problems({
        media_source: "x",
        landing_page: true,
        preview_title: "t".repeat(LINK_LIMITS.maxPreviewTitleLength),
        preview_description: "d".repeat(LINK_LIMITS.maxPreviewDescriptionLength),
        preview_image_url: "https://cdn.example.com/cards/winter.png",
      }),
    ).toBe("");
  });

  it("refuses a long, empty, blank or multi-line text and an image not on https", () => {
    expect(
      problems({
        media_source: "x",
        preview_title: "t".repeat(LINK_LIMITS.maxPreviewTitleLength + 1),
      }),
    ).toBe(`preview_title: must be at most ${LINK_LIMITS.maxPreviewTitleLength} characters`);
    expect(
      problems({
        media_source: "x",
        preview_description: "d".repeat(LINK_LIMITS.maxPreviewDescriptionLength + 1),
      }),
    ).toBe(
      `preview_description: must be at most ${LINK_LIMITS.maxPreviewDescriptionLength} characters`,
    );
    expect(problems({ media_source: "x", preview_title: "" })).toContain(
      "preview_title: must not be empty",
    );
    for (const blank of ["   ", "\u200b", " \u2060\ufeff "]) {
      expect(problems({ media_source: "x", preview_title: blank }), blank).toBe(
        "preview_title: must not be blank",
      );
    }
    // Overrides and embeddings, and the isolates that do the same.
    for (const turned of ["Sale \u202eelas", "Sale \u2067elas\u2069"]) {
      expect(problems({ media_source: "x", preview_title: turned }), turned).toBe(
        "preview_title: must not contain bidirectional control characters",
      );
    }
    // Right-to-left text and a family emoji (joined by U+200D) are text like any other.
    expect(problems({ media_source: "x", preview_title: "מרוץ בשלג 👨\u200d👩\u200d👧" })).toBe("");
    expect(problems({ media_source: "x", preview_description: "a\nb" })).toBe(
      "preview_description: must not contain control characters",
    );
    // As a touch's: every click carries them into the lake, where a NUL fails a report.
    expect(problems({ media_source: "fb\u0000ads" })).toBe(
      "media_source: must not contain control characters",
    );
    for (const name of [
      "campaign_name",
      "campaign_id",
      "adset_name",
      "adset_id",
      "ad_name",
      "ad_id",
    ]) {
      expect(problems({ media_source: "x", [name]: "Win\nter" }), name).toBe(
        `${name}: must not contain control characters`,
      );
    }
    for (const url of [
      "http://cdn.example.com/a.png",
      "javascript:alert(1)",
      "data:image/png;base64,AAAA",
      "https://",
      `https://cdn.example.com/${"a".repeat(LINK_LIMITS.maxUrlLength)}`,
    ]) {
      expect(problems({ media_source: "x", preview_image_url: url }), url).toMatch(
        /^preview_image_url: must/,
      );
    }
    // A host that is an address, not a name.
    for (const url of ["https://93.184.216.34/a.png", "https://[2606:2800:220:1::1]/a.png"]) {
      expect(problems({ media_source: "x", preview_image_url: url }), url).toMatch(
        /^preview_image_url: must be an https URL whose host is a domain name/,
      );
    }
    for (const url of [
      "https://u:p@cdn.example.com/a.png",
      "https://u@cdn.example.com/a.png",
      "https://:p@cdn.example.com/a.png",
    ]) {
      expect(problems({ media_source: "x", preview_image_url: url }), url).toBe(
        "preview_image_url: must not hold a user name or password",
      );
    }
    expect(problems({ media_source: "x", landing_page: "yes" })).toBe(
      "landing_page: must be true or false",
    );
  });

  it("takes a change of any of them, null clearing a preview field, and nothing else", () => {
    expect(updateProblems({ disabled: true })).toBe("");
    expect(updateProblems({ landing_page: true, preview_title: null })).toBe("");
    expect(updateProblems({})).toBe("body: must change something");
    // Null is absent for the landing page: it has no default to go back to.
    expect(updateProblems({ landing_page: null })).toBe("body: must change something");
    expect(updateProblems({ landing_page: null, preview_title: null })).toBe("");
    expect(updateProblems({ forward_params: false })).toBe("");
    expect(updateProblems({ forward_params: null })).toBe("body: must change something");
    expect(updateProblems({ forward_params: "no" })).toBe("forward_params: must be true or false");
    expect(updateProblems({ media_source: "x" })).toContain("must be a JSON object of `disabled`");
    expect(updateProblems({ preview_image_url: "http://a.example/x.png" })).toBe(
      "preview_image_url: must be an https URL whose host is a domain name (in punycode: xn--…)",
    );
  });
});

describe("a link's cost", () => {
  const updateProblems = (body: unknown) => {
    const parsed = linkUpdateSchema.safeParse(body);
    return parsed.success ? "" : formatIssues(parsed.error.issues, "body");
  };
  const CPI = { cost_model: "CPI", cost_value: 2.5, cost_currency: "EUR" };

  it("takes a model, a price and a currency together, or none", () => {
    expect(problems({ media_source: "x", ...CPI })).toBe("");
    expect(
      problems({ media_source: "x", cost_model: "CPM", cost_value: 0, cost_currency: "JPY" }),
    ).toBe("");
    expect(problems({ media_source: "x", cost_model: null, cost_value: null })).toBe("");
    expect(linkRequestSchema.parse({ media_source: "x", ...CPI })).toMatchObject(CPI);
  });

  it("names each field missing from the three, and each that breaks its rule", () => {
    expect(problems({ media_source: "x", cost_model: "CPI" })).toBe(
      "cost_value: is required with cost_model; cost_currency: is required with cost_model",
    );
    expect(problems({ media_source: "x", cost_value: 1, cost_currency: "EUR" })).toBe(
      "cost_model: is required with cost_value and cost_currency",
    );
    expect(problems({ media_source: "x", ...CPI, cost_currency: null })).toBe(
      "cost_currency: is required with cost_model and cost_value",
    );
    expect(problems({ media_source: "x", ...CPI, cost_model: "CPA" })).toBe(
      "cost_model: must be CPI, CPC or CPM",
    );
    expect(problems({ media_source: "x", ...CPI, cost_model: "cpi" })).toBe(
      "cost_model: must be CPI, CPC or CPM",
    );
    expect(problems({ media_source: "x", ...CPI, cost_value: -0.01 })).toBe(
      "cost_value: must be at least 0",
    );
    expect(problems({ media_source: "x", ...CPI, cost_value: "2.50" })).toBe(
      "cost_value: must be a number",
    );
    expect(
      problems({ media_source: "x", ...CPI, cost_value: TOUCH_COST_LIMITS.maxValue * 2 }),
    ).toBe(`cost_value: must be at most ${TOUCH_COST_LIMITS.maxValue}`);
    // The cost rows' currency rule: an ISO 4217 code, in any case, kept in capitals.
    for (const currency of ["EURO", "XXX", ""]) {
      expect(problems({ media_source: "x", ...CPI, cost_currency: currency }), currency).toBe(
        "cost_currency: must be an ISO 4217 currency code",
      );
    }
    const lower = linkRequestSchema.parse({ media_source: "x", ...CPI, cost_currency: " eur " });
    expect(lower.cost_currency).toBe("EUR");
  });

  it("changes whole: the three, or all three null to clear it", () => {
    expect(updateProblems(CPI)).toBe("");
    expect(updateProblems({ cost_model: null, cost_value: null, cost_currency: null })).toBe("");
    expect(updateProblems({ cost_value: 3 })).toBe(
      "cost_model: is required with cost_value; cost_currency: is required with cost_value",
    );
    expect(updateProblems({ ...CPI, cost_value: null })).toBe(
      "cost_value: is required with cost_model and cost_currency",
    );
    expect(updateProblems({ cost_model: null })).toBe(
      "cost_value: must be null with cost_model: the three are cleared together; " +
        "cost_currency: must be null with cost_model: the three are cleared together",
    );
  });
});

describe("a link's destinations changed", () => {
  const updateProblems = (body: unknown) => {
    const parsed = linkUpdateSchema.safeParse(body);
    return parsed.success ? "" : formatIssues(parsed.error.issues, "body");
  };

  it("takes a new URL, or null to clear one, each checked as a new link's", () => {
    expect(updateProblems({ ios_url: "https://apps.apple.com/app/id1" })).toBe("");
    expect(updateProblems({ android_url: null })).toBe("");
    expect(updateProblems({ web_url: "ftp://game.example.com/" })).toBe(
      "web_url: must be an http or https URL",
    );
    // Its deep link path and parameters are in the URL already shared: not changed. The field
    // it does not take is named, and nothing else said of a body that named only that.
    expect(updateProblems({ deep_link_path: "/other" })).toBe(
      'body: takes no "deep_link_path": must be a JSON object of `disabled`, `android_url`, ' +
        "`ios_url`, `web_url`, `landing_page`, `forward_params`, `preview_title`, " +
        "`preview_description`, `preview_image_url`, `cost_model`, `cost_value` or `cost_currency`",
    );
  });
});

/** The settings form's problems: a refusal beside the input it names. */
import { describe, expect, it } from "vitest";
import { conflictProblemOf, settingsProblemsOf } from "../../dashboard/src/settings-problems.ts";

describe("the settings form's problems", () => {
  it("puts a conflict beside the App Store id or the link hosts, whichever it names", () => {
    expect(
      conflictProblemOf("App Store id 123 is another app's already: Apple's postbacks …"),
    ).toEqual({
      field: "app_store_id",
      text: "App Store id 123 is another app's already: Apple's postbacks …",
    });
    const host =
      'Link host go.brand.com is another app\'s already: … add to its DNS a TXT record _attribution.go.brand.com with the value "attribution-app=com.brand" and save again: the host then moves to this app.';
    expect(conflictProblemOf(host)).toEqual({ field: "hosts", text: host });
    expect(conflictProblemOf("something else")).toEqual({ field: null, text: "Something else" });
  });

  it("says a 422's problems under their inputs' labels, a list's item by its value", () => {
    expect(
      settingsProblemsOf("links.hosts[1]: must be a host name, like go.example.com", {
        hosts: ["go.example.com", "go_example"],
        android_sha256_fingerprints: [],
        languages: [],
      }),
    ).toEqual([
      { field: "hosts", text: "Link hosts: “go_example” must be a host name, like go.example.com" },
    ]);
  });

  it("keeps a problem whose own words hold a `; ` whole", () => {
    const items = { hosts: [], android_sha256_fingerprints: [], languages: [] };
    expect(
      settingsProblemsOf(
        "links.playPackage: must not be set (com.example; see the docs); links.web_url: must be a URL",
        items,
      ),
    ).toEqual([
      {
        field: "play_package",
        text: "Google Play package must not be set (com.example; see the docs)",
      },
      { field: "web_url", text: "Web URL must be a URL" },
    ]);
  });

  it("counts the problems the service left unnamed past its first", () => {
    const items = { hosts: [], android_sha256_fingerprints: [], languages: [] };
    expect(settingsProblemsOf("links.web_url: must be a URL; and 3 more", items)).toEqual([
      { field: "web_url", text: "Web URL must be a URL" },
      { field: null, text: "And 3 more problems." },
    ]);
    expect(settingsProblemsOf("links.web_url: must be a URL; and 1 more", items)[1]).toEqual({
      field: null,
      text: "And 1 more problem.",
    });
  });
});

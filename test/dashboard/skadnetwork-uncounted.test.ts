/** What the overview's SKAdNetwork section says when a range counts no postback. */
import { describe, expect, it } from "vitest";
import { uncountedPostbacks } from "../../dashboard/src/skadnetwork-uncounted.ts";

describe("uncountedPostbacks", () => {
  it("says nothing of its own when none came: the setup is what to check", () => {
    expect(uncountedPostbacks({ received: 0, unverified: 0, development: 0 }, false)).toBeNull();
  });

  it("points a range of tests to the development checkbox, until it is ticked", () => {
    const tests = { received: 3, unverified: 0, development: 3 };
    expect(uncountedPostbacks(tests, false)).toBe(
      "3 postbacks came in this range, none of them counted. 3 postbacks verified with a development key (a test's, from Xcode or a device's developer settings): tick \"Include development postbacks\" to count them.",
    );
    expect(uncountedPostbacks(tests, true)).toBe(
      "3 postbacks came in this range, none of them counted.",
    );
  });

  it("says how many could not be verified, in the number they are", () => {
    expect(uncountedPostbacks({ received: 2, unverified: 2, development: 0 }, true)).toBe(
      "2 postbacks came in this range, none of them counted. 2 postbacks could not be verified with Apple's keys, and count only where the report is asked for them (include=unverified).",
    );
  });

  it("says how many could not be verified, and where they count", () => {
    expect(uncountedPostbacks({ received: 2, unverified: 1, development: 1 }, false)).toBe(
      "2 postbacks came in this range, none of them counted. 1 postback verified with a development key (a test's, from Xcode or a device's developer settings): tick \"Include development postbacks\" to count it. 1 postback could not be verified with Apple's keys, and counts only where the report is asked for it (include=unverified).",
    );
  });
});

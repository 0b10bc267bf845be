/** A settings save sends only what the form changed of the app it loaded. */
import { describe, expect, it } from "vitest";
import { changesOf } from "../../dashboard/src/changes.ts";

describe("what a form changes", () => {
  const loaded = {
    name: "Game",
    time_zone: "UTC",
    attribution: { click_window_days: 7, probabilistic: { android: true, ios: false } },
    links: { hosts: ["go.example.com"], web_url: null },
  };

  it("is only the fields whose value differs, each group kept as a group", () => {
    const next = {
      ...loaded,
      name: "Game 2",
      attribution: { click_window_days: 7, probabilistic: { android: true, ios: true } },
      links: { hosts: ["go.example.com", "l.example.com"], web_url: null },
    };
    expect(changesOf(loaded, next)).toEqual({
      name: "Game 2",
      attribution: { probabilistic: { ios: true } },
      links: { hosts: ["go.example.com", "l.example.com"] },
    });
  });

  it("is nothing when nothing changed, so another person's change made meanwhile stands", () => {
    expect(changesOf(loaded, structuredClone(loaded))).toEqual({});
    // A value cleared is a change too.
    expect(changesOf(loaded, { ...loaded, links: { ...loaded.links, hosts: [] } })).toEqual({
      links: { hosts: [] },
    });
  });
});

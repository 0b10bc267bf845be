/**
 * The Live page's words for `GET /v1/reports/latest-events`: the newest events of yesterday and
 * today (UTC) only, so an empty answer does not say the app has none; a campaign known only by
 * its id shows that id.
 */
import { describe, expect, it } from "vitest";
import {
  eventCampaign,
  LATEST_EVENT_DAYS,
  latestEventsHint,
  NO_LATEST_EVENTS,
} from "../../dashboard/src/latest-events.ts";
import { latestEventDays } from "../../src/reports/queries.ts";

describe("the Live page's words", () => {
  it("names the two UTC days the service reads the latest events of", () => {
    // The service's window: the day before a UTC today, and that today.
    expect(latestEventDays("2026-11-30")).toEqual({ from: "2026-11-29", to: "2026-11-30" });
    expect(LATEST_EVENT_DAYS).toBe("yesterday and today (UTC)");
    expect(latestEventsHint(50, 3)).toBe(
      "The 50 latest events of yesterday and today (UTC), refreshed every 3 seconds.",
    );
  });

  it("says of an empty answer that those days have no events, not that the app has none", () => {
    expect(NO_LATEST_EVENTS).toBe(
      "No events yesterday or today (UTC). New ones appear here as the SDKs send them.",
    );
    expect(NO_LATEST_EVENTS).not.toMatch(/yet/);
  });
});

describe("eventCampaign", () => {
  it("shows the campaign's name, else its id", () => {
    expect(eventCampaign({ campaign_name: "Winter", campaign_id: "123" })).toBe("Winter");
    expect(eventCampaign({ campaign_name: null, campaign_id: "123" })).toBe("123");
    expect(eventCampaign({ campaign_name: "", campaign_id: "123" })).toBe("123");
    expect(eventCampaign({ campaign_name: null, campaign_id: null })).toBeNull();
  });
});

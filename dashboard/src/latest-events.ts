/**
 * What the Live page says of `GET /v1/reports/latest-events`, which gives the newest events of
 * yesterday and today (UTC) only: an older event is never among them, so the page names those
 * two days, and an empty answer is no sign the app has no events.
 */
import type { ExportRecord } from "./api.ts";

/** The days the latest events are of (src/reports/queries.ts, `latestEventDays`). */
export const LATEST_EVENT_DAYS = "yesterday and today (UTC)";

/** The line above the table while it is refreshed. */
export const latestEventsHint = (limit: number, everySeconds: number): string =>
  `The ${limit} latest events of ${LATEST_EVENT_DAYS}, refreshed every ${everySeconds} seconds.`;

/** What the page says when neither day has an event (earlier ones may be in the export). */
export const NO_LATEST_EVENTS =
  "No events yesterday or today (UTC). New ones appear here as the SDKs send them.";

const given = (value: string | null | undefined): string | null =>
  value === null || value === undefined || value === "" ? null : value;

/** An event's campaign as the table shows it: its name, else its id; null when it has neither. */
export const eventCampaign = (
  event: Pick<ExportRecord, "campaign_name" | "campaign_id">,
): string | null => given(event.campaign_name) ?? given(event.campaign_id);

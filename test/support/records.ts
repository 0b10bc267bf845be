/** Builders of lake records for tests: every column present, overridable. */
import { randomUUID } from "node:crypto";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  type LakeRecord,
  nullColumns,
} from "../../src/lake/lake-tables.ts";

const EVENT_TIME = "2026-11-01T12:00:00.000Z";

/** Events built one after another are received one after another, a millisecond apart. */
let received = 0;

/**
 * When an event was received unless the test says: as it happened (so it lies in its own
 * day's partition), builders called later receiving later.
 */
const receivedAt = (eventTime: unknown): string => {
  const at = Date.parse(String(eventTime ?? EVENT_TIME));
  received += 1;
  return new Date((Number.isNaN(at) ? Date.now() : at) + received).toISOString();
};

export const lakeEvent = (overrides: Partial<LakeRecord> & { app_id: string }): LakeRecord => ({
  ...nullColumns(EVENTS_TABLE),
  event_id: randomUUID(),
  event_time: EVENT_TIME,
  event_name: "service_login",
  service_id: randomUUID(),
  os: "android",
  app_name: "Example",
  received_at: receivedAt(overrides.event_time),
  ...overrides,
});

export const lakeAttribution = (
  overrides: Partial<LakeRecord> & { app_id: string; service_id: string },
): LakeRecord => ({
  ...nullColumns(ATTRIBUTIONS_TABLE),
  attributed_at: "2026-11-01T11:00:00.000Z",
  media_source: "organic",
  ...overrides,
});

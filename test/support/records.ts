/** Builders of lake records for tests: every column present, overridable. */
import { randomUUID } from "node:crypto";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  type LakeRecord,
  nullColumns,
} from "../../src/lake/lake-tables.ts";

export const lakeEvent = (overrides: Partial<LakeRecord> & { app_id: string }): LakeRecord => ({
  ...nullColumns(EVENTS_TABLE),
  event_id: randomUUID(),
  event_time: "2026-11-01T12:00:00.000Z",
  event_name: "service_login",
  service_id: randomUUID(),
  os: "android",
  app_name: "Example",
  received_at: new Date().toISOString(),
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

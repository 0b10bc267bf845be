/** The SDK ingestion domain: request schemas, per-event verdicts, and the stored forms. */

export { ISO_4217_CODES } from "./currencies.ts";
export {
  eventSchema,
  eventsRequestSchema,
  type IncomingEvent,
  type IncomingS2sEvent,
  parseEventsEnvelope,
  s2sEventSchema,
  s2sEventsRequestSchema,
} from "./event-schema.ts";
export {
  type InstallRequest,
  installRequestSchema,
  parseInstallRequest,
  SDK_PLATFORMS,
  toInstall,
} from "./install.ts";
export { type Parsed, UNPROCESSABLE } from "./issues.ts";
export {
  type EventVerdict,
  INSTALL_IGNORED_DETAIL,
  type JudgeOptions,
  judgeEvents,
  type StoredEventType,
  type ValidEvent,
} from "./judge.ts";
export { type LakeEventContext, toLakeEvent } from "./lake-event.ts";
export { INGEST_LIMITS } from "./limits.ts";
export type { ParameterMap, ParameterValue } from "./parameters.ts";
export { HASH_MARKER, PII_KEYS } from "./pii.ts";
export type { Open, Revenue } from "./revenue.ts";

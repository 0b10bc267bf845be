/**
 * Why an event is ignored (counted in the answer, never stored, not to be sent again): each
 * reason with the detail the answer gives. SDKs read the reason; people read the detail.
 */
export const IGNORED = {
  install_event:
    "INSTALL is tracked by the SDK itself through POST /v1/installs: a manual install event (an INSTALL, or a CUSTOM event named Install, which would be exported as service_install) is counted and not stored.",
  app_disabled: "The app is disabled in its remote configuration; nothing was stored.",
  install_deleted: "The install's data was deleted on request; its events are not taken in.",
  duplicate_event:
    "An event with the same event_id for the same install came earlier in this request: only the first is kept.",
} as const;

export type IgnoredReason = keyof typeof IGNORED;

export const IGNORED_REASONS = Object.keys(IGNORED) as [IgnoredReason, ...IgnoredReason[]];

/** An ignored event's entry in the answer, but for where it stands in the request. */
export const ignoredAs = (reason: IgnoredReason) => ({ reason, detail: IGNORED[reason] });

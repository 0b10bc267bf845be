/**
 * An app's attribution settings (`attribution apps config`): whether installs are attributed
 * at all, how far back each kind of touch may be, whether a probabilistic match is allowed on
 * each OS, and the lowest confidence taken as a match. Unset values take the defaults below,
 * the common ones of the leading services.
 */
import * as z from "zod";
import { ATTRIBUTION_LIMITS, CONFIDENCE_LEVELS, type Confidence } from "../domain/attribution.ts";
import type { Os } from "../domain/install-facts.ts";
import type { App } from "../ports/apps.ts";
import { checked } from "../validation/issues.ts";

export interface AttributionSettings {
  /** Off: every install of the app is `skipped`. */
  readonly enabled: boolean;
  /** How long before the first open a click may be (1 to 30 days). */
  readonly clickWindowDays: number;
  /** How long before the first open an impression may be (1 to 168 hours). */
  readonly viewWindowHours: number;
  /** How long before the first open a click may be for a probabilistic match (1 to 24 hours). */
  readonly probabilisticWindowHours: number;
  /**
   * Per OS, whether a probabilistic match is tried: on for Android; off for iOS, whose rules
   * forbid fingerprinting a device without the user's consent. On, iOS takes it still only
   * for an install whose ATT status is `authorized`.
   */
  readonly probabilistic: Readonly<Record<Os, boolean>>;
  /** The lowest confidence of a probabilistic match that counts; below it, organic. */
  readonly confidenceFloor: "low" | "medium";
  /**
   * The lowest confidence at which a match delivers its link's deferred deep link (the path and
   * custom parameters): below it the install is still attributed, without them, so that a
   * guess does not open another person's invite on a housemate's phone.
   */
  readonly deepLinkConfidenceFloor: Confidence;
}

export const DEFAULT_ATTRIBUTION: AttributionSettings = {
  enabled: true,
  clickWindowDays: 7,
  viewWindowHours: 24,
  probabilisticWindowHours: 6,
  probabilistic: { android: true, ios: false },
  confidenceFloor: "low",
  deepLinkConfidenceFloor: "medium",
};

/** The entries whose value is set: what a change names, what a stored app holds. */
const definedOf = <T extends object>(values: T | undefined): Partial<T> =>
  Object.fromEntries(
    Object.entries(values ?? {}).filter(([, value]) => value !== undefined),
  ) as Partial<T>;

/** An app's settings: what it set, and the defaults for the rest. */
export const attributionSettingsOf = (app: Pick<App, "attribution">): AttributionSettings => {
  const { probabilistic, ...own } = app.attribution ?? {};
  return {
    ...DEFAULT_ATTRIBUTION,
    ...definedOf(own),
    probabilistic: { ...DEFAULT_ATTRIBUTION.probabilistic, ...definedOf(probabilistic) },
  };
};

const whole = (name: keyof typeof ATTRIBUTION_LIMITS, unit: string) => {
  const { min, max } = ATTRIBUTION_LIMITS[name];
  const rule = `must be a whole number of ${unit} from ${min} to ${max}`;
  return z.int({ error: rule }).min(min, { error: rule }).max(max, { error: rule });
};

export const attributionChangeSchema = z.strictObject({
  enabled: z.boolean().optional(),
  clickWindowDays: whole("clickWindowDays", "days").optional(),
  viewWindowHours: whole("viewWindowHours", "hours").optional(),
  probabilisticWindowHours: whole("probabilisticWindowHours", "hours").optional(),
  probabilistic: z
    .strictObject({ android: z.boolean().optional(), ios: z.boolean().optional() })
    .optional(),
  confidenceFloor: z.enum(["low", "medium"], { error: "must be low or medium" }).optional(),
  deepLinkConfidenceFloor: z
    .enum(CONFIDENCE_LEVELS, { error: "must be low, medium or high" })
    .optional(),
});
export type AttributionChange = z.input<typeof attributionChangeSchema>;

/** The app with the change applied; a ValidationError names a bad value. */
export const withAttributionSettings = (app: App, change: AttributionChange): App => {
  const { probabilistic, ...rest } = checked(attributionChangeSchema, change, "settings");
  const current = app.attribution ?? {};
  return {
    ...app,
    attribution: {
      ...current,
      ...definedOf(rest),
      ...(probabilistic
        ? { probabilistic: { ...current.probabilistic, ...definedOf(probabilistic) } }
        : {}),
    },
  };
};

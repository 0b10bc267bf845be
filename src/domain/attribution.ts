/** The words of an attribution result that the stores and the matcher share. */

/** How a match was found (src/attribution/matcher.ts tries them in this order). */
export type MatchMethod = "click_id" | "search_ads" | "advertising_id" | "probabilistic";

export const CONFIDENCE_LEVELS = ["low", "medium", "high"] as const;
export type Confidence = (typeof CONFIDENCE_LEVELS)[number];

/** The bounds of an app's attribution windows (src/attribution/settings.ts). */
export const ATTRIBUTION_LIMITS = {
  clickWindowDays: { min: 1, max: 30 },
  viewWindowHours: { min: 1, max: 168 },
  probabilisticWindowHours: { min: 1, max: 24 },
} as const;

/** The words of an attribution result that the stores and the matcher share. */

/** How a match was found (src/attribution/matcher.ts tries them in this order). */
export type MatchMethod = "click_id" | "search_ads" | "advertising_id" | "probabilistic";

/**
 * What an iOS install is (the export's `install_type`): the device's first install of the app,
 * or the same device installing it again, which the reports count apart from installs.
 */
export const INSTALL_TYPES = ["new_install", "reinstall_same_device"] as const;
export type InstallType = (typeof INSTALL_TYPES)[number];
export const REINSTALL: InstallType = "reinstall_same_device";

export const CONFIDENCE_LEVELS = ["low", "medium", "high"] as const;
export type Confidence = (typeof CONFIDENCE_LEVELS)[number];

/** The bounds of an app's attribution windows (src/attribution/settings.ts). */
export const ATTRIBUTION_LIMITS = {
  clickWindowDays: { min: 1, max: 30 },
  viewWindowHours: { min: 1, max: 168 },
  probabilisticWindowHours: { min: 1, max: 24 },
} as const;

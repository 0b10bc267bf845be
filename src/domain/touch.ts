/** The words of a touch that the touch store and the matcher share. */

export const TOUCH_TYPES = ["click", "impression"] as const;
export type TouchType = (typeof TOUCH_TYPES)[number];

/** The platform a tap's user agent names. */
export type DevicePlatform = "android" | "ios" | "other";

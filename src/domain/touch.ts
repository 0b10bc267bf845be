/** The words of a touch that the touch store and the matcher share. */

export const TOUCH_TYPES = ["click", "impression"] as const;
export type TouchType = (typeof TOUCH_TYPES)[number];

/** The platform a tap's user agent names. */
export type DevicePlatform = "android" | "ios" | "other";

/**
 * How a touch is paid for, as AppsFlyer's `af_cost_model` names it: per install the touch
 * wins (CPI), per click (CPC), per thousand impressions (CPM).
 */
export const COST_MODELS = ["CPI", "CPC", "CPM"] as const;
export type CostModel = (typeof COST_MODELS)[number];

/** What a link or a network says a touch cost: its model, its price, the price's currency. */
export interface TouchCost {
  readonly model: CostModel;
  /** The price in `currency`: of the install, of the click, or of a thousand impressions. */
  readonly value: number;
  /** ISO 4217. */
  readonly currency: string;
}

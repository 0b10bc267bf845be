/**
 * Where demo users live and what they pay: countries weighted per platform (iOS leans to the
 * US, Japan and Western Europe, Android to India, Brazil and South-East Asia), each with a UTC
 * offset for the daily rhythm and a store currency with store-like price points.
 */
import type { Platform } from "../ports/apps.ts";

export interface Market {
  readonly country: string;
  readonly weight: Readonly<Record<Platform, number>>;
  /** Standard-time offset in minutes; good enough for a daily rhythm. */
  readonly utcOffsetMinutes: number;
  readonly currency: string;
}

export const MARKETS: readonly Market[] = [
  { country: "US", weight: { android: 14, ios: 30 }, utcOffsetMinutes: -300, currency: "USD" },
  { country: "IN", weight: { android: 16, ios: 3 }, utcOffsetMinutes: 330, currency: "INR" },
  { country: "BR", weight: { android: 12, ios: 4 }, utcOffsetMinutes: -180, currency: "BRL" },
  { country: "GB", weight: { android: 5, ios: 9 }, utcOffsetMinutes: 0, currency: "GBP" },
  { country: "DE", weight: { android: 5, ios: 7 }, utcOffsetMinutes: 60, currency: "EUR" },
  { country: "JP", weight: { android: 4, ios: 10 }, utcOffsetMinutes: 540, currency: "JPY" },
  { country: "FR", weight: { android: 4, ios: 5 }, utcOffsetMinutes: 60, currency: "EUR" },
  { country: "CA", weight: { android: 3, ios: 5 }, utcOffsetMinutes: -300, currency: "CAD" },
  { country: "MX", weight: { android: 5, ios: 3 }, utcOffsetMinutes: -360, currency: "MXN" },
  { country: "ID", weight: { android: 8, ios: 2 }, utcOffsetMinutes: 420, currency: "IDR" },
  { country: "KR", weight: { android: 3, ios: 3 }, utcOffsetMinutes: 540, currency: "KRW" },
  { country: "TR", weight: { android: 4, ios: 2 }, utcOffsetMinutes: 180, currency: "TRY" },
  { country: "ES", weight: { android: 3, ios: 3 }, utcOffsetMinutes: 60, currency: "EUR" },
  { country: "IT", weight: { android: 3, ios: 3 }, utcOffsetMinutes: 60, currency: "EUR" },
  { country: "AU", weight: { android: 2, ios: 4 }, utcOffsetMinutes: 600, currency: "AUD" },
  { country: "PH", weight: { android: 4, ios: 1 }, utcOffsetMinutes: 480, currency: "PHP" },
];

/**
 * Store price points, tier by tier: tier i is the same product in every currency, priced the
 * way stores localise (160 JPY, not 163.42). Tier 0 is the cheapest in-app purchase.
 */
export const PRICE_TIERS: Readonly<Record<string, readonly number[]>> = {
  USD: [0.99, 1.99, 4.99, 9.99, 19.99, 49.99, 99.99],
  EUR: [0.99, 1.99, 5.49, 10.99, 21.99, 54.99, 109.99],
  GBP: [0.89, 1.79, 4.49, 8.99, 17.99, 44.99, 89.99],
  JPY: [160, 300, 800, 1500, 3000, 7800, 15000],
  BRL: [5.9, 10.9, 27.9, 54.9, 109.9, 279.9, 549.9],
  INR: [89, 169, 449, 899, 1799, 4499, 8999],
  CAD: [1.39, 2.79, 6.99, 13.99, 27.99, 69.99, 139.99],
  MXN: [19, 39, 99, 199, 399, 999, 1999],
  IDR: [15000, 29000, 79000, 159000, 319000, 799000, 1599000],
  KRW: [1400, 2900, 7500, 14000, 29000, 75000, 149000],
  TRY: [39.99, 79.99, 199.99, 399.99, 799.99, 1999.99, 3999.99],
  AUD: [1.49, 2.99, 7.99, 14.99, 29.99, 79.99, 149.99],
  PHP: [49, 99, 279, 549, 1090, 2790, 5490],
};

/** Most purchases are small: a long tail of whales. */
export const PURCHASE_TIER_WEIGHTS: readonly (readonly [number, number])[] = [
  [0, 30],
  [1, 28],
  [2, 22],
  [3, 11],
  [4, 5],
  [5, 3],
  [6, 1],
];

/** Monthly plans (tiers 2 and 3) dominate; an annual plan (tier 5) now and then. */
export const SUBSCRIPTION_TIER_WEIGHTS: readonly (readonly [number, number])[] = [
  [2, 70],
  [3, 20],
  [5, 10],
];

export const marketWeights = (platform: Platform): (readonly [Market, number])[] =>
  MARKETS.map((market) => [market, market.weight[platform]] as const);

/**
 * When people open apps: a daily rhythm in the user's local time (quiet at night, a peak in the
 * evening) and a little more on weekends. Times are sampled by rejection against that curve, so
 * any window works, fractional days and all.
 */
import { DAY_MS, MINUTE_MS } from "../domain/time.ts";
import type { Random } from "./prng.ts";

/** Relative activity per local hour, 00:00 to 23:00. */
const HOURLY = [
  0.45, 0.3, 0.2, 0.14, 0.12, 0.15, 0.25, 0.4, 0.55, 0.6, 0.65, 0.72, 0.78, 0.75, 0.72, 0.78, 0.85,
  0.92, 1.0, 1.1, 1.2, 1.2, 1.0, 0.7,
] as const;
/** Relative activity per local weekday, Sunday first. */
const WEEKDAY = [1.2, 0.95, 0.95, 0.95, 1.0, 1.1, 1.25] as const;
const MAX_ACTIVITY = Math.max(...HOURLY) * Math.max(...WEEKDAY);

const localMs = (time: number, utcOffsetMinutes: number): number =>
  time + utcOffsetMinutes * MINUTE_MS;

/** Relative activity at an instant for a user at the given UTC offset. */
export const activityAt = (time: number, utcOffsetMinutes: number): number => {
  const local = new Date(localMs(time, utcOffsetMinutes));
  return (HOURLY[local.getUTCHours()] ?? 1) * (WEEKDAY[local.getUTCDay()] ?? 1);
};

/** Start of the user's local calendar day containing `time`, as a UTC instant. */
export const localMidnight = (time: number, utcOffsetMinutes: number): number => {
  const local = localMs(time, utcOffsetMinutes);
  return time - (((local % DAY_MS) + DAY_MS) % DAY_MS);
};

/**
 * An instant in [from, to) following the rhythm; null for an empty window. After a bounded
 * number of rejections it settles for a uniform draw, so it always ends.
 */
export const sampleTime = (
  random: Random,
  from: number,
  to: number,
  utcOffsetMinutes: number,
): number | null => {
  if (!(to > from)) return null;
  for (let attempt = 0; attempt < 64; attempt++) {
    const time = Math.floor(random.between(from, to));
    if (random.next() * MAX_ACTIVITY < activityAt(time, utcOffsetMinutes)) return time;
  }
  return Math.floor(random.between(from, to));
};

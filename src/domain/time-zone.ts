/**
 * The time zone an app's reports count days in, as AppsFlyer's and Adjust's "app time zone":
 * an install at 02:00 UTC is a San Francisco app's install of the day before. An IANA name of
 * an area and a place (`America/Los_Angeles`, `Asia/Kolkata`) that the runtime's ICU knows, or
 * `UTC`, the default. The service reads the zone's rules itself (the queries get offsets, never
 * the name), so no engine's list of zones matters. The lake keeps UTC throughout: only the
 * reports' days move.
 */

export const DEFAULT_TIME_ZONE = "UTC";

/** An area and one or two places: no abbreviation (`EST`) or offset, which tools read apart. */
const ZONE_NAME = /^[A-Z][A-Za-z_]+(?:\/[A-Za-z0-9_+-]+){1,2}$/;

/** Whether `name` is a time zone the reports can count days in. */
export const isReportTimeZone = (name: string): boolean => {
  if (name === DEFAULT_TIME_ZONE) return true;
  if (!ZONE_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
};

const formats = new Map<string, Intl.DateTimeFormat>();

/** The zone's calendar day and time of a moment, as numbers. */
const partsIn = (ms: number, zone: string) => {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formats.set(zone, format);
  }
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    Number(format.formatToParts(ms).find((p) => p.type === type)?.value ?? Number.NaN);
  return {
    year: part("year"),
    month: part("month"),
    day: part("day"),
    hour: part("hour"),
    minute: part("minute"),
    second: part("second"),
  };
};

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** The day (`YYYY-MM-DD`) a moment falls on in the zone. */
export const dayIn = (moment: Date, zone: string): string => {
  const { year, month, day } = partsIn(moment.getTime(), zone);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
};

const HOUR_MS = 3_600_000;

/**
 * The first moment of a day in the zone: its midnight, or, where a clock change skips
 * midnight (Santiago's, Havana's), the first moment the zone's clocks show that day. Zones lie
 * within 14 hours of UTC, so the moment is searched for within 15 hours of the UTC midnight.
 */
export const startOfDayIn = (day: string, zone: string): Date => {
  const utcMidnight = Date.parse(`${day}T00:00:00.000Z`);
  if (zone === DEFAULT_TIME_ZONE) return new Date(utcMidnight);
  let before = utcMidnight - 15 * HOUR_MS;
  let after = utcMidnight + 15 * HOUR_MS;
  // The first whole second whose day in the zone is `day` or later.
  while (after - before > 1000) {
    const middle = before + Math.floor((after - before) / 2000) * 1000;
    if (dayIn(new Date(middle), zone) >= day) after = middle;
    else before = middle;
  }
  return new Date(after);
};

/** The zone's offset from UTC at a moment, in whole seconds (as its clocks show it). */
const offsetSecondsAt = (ms: number, zone: string): number => {
  const at = Math.floor(ms / 1000) * 1000;
  const { year, month, day, hour, minute, second } = partsIn(at, zone);
  return Math.round((Date.UTC(year, month - 1, day, hour, minute, second) - at) / 1000);
};

/** A stretch of time over which the zone's offset from UTC holds. */
export interface ZoneOffset {
  /** The stretch's first moment; null for the first stretch, which reaches back without end. */
  readonly from: Date | null;
  /** What to add to a UTC time to read the zone's clock. */
  readonly offsetSeconds: number;
}

/** How often the offset is looked at: clocks change months apart, never twice in 12 hours. */
const OFFSET_STEP_MS = 12 * HOUR_MS;

/**
 * The zone's offsets over `start` to `end`, with the moments its clocks change: what a query
 * adds to its UTC times to read the zone's days, where moving each time through the zone's
 * rules would cost a lookup per row. The first stretch reaches back before `start`, the last on
 * after `end`.
 */
export const offsetsIn = (zone: string, start: Date, end: Date): ZoneOffset[] => {
  let at = start.getTime();
  let offset = offsetSecondsAt(at, zone);
  const offsets: ZoneOffset[] = [{ from: null, offsetSeconds: offset }];
  while (at < end.getTime()) {
    const next = Math.min(at + OFFSET_STEP_MS, end.getTime());
    const nextOffset = offsetSecondsAt(next, zone);
    if (nextOffset !== offset) {
      // The change lies after `at` and by `next`: its first second, by halves.
      let before = Math.floor(at / 1000) * 1000;
      let after = Math.floor(next / 1000) * 1000;
      while (after - before > 1000) {
        const middle = before + Math.floor((after - before) / 2000) * 1000;
        if (offsetSecondsAt(middle, zone) === offset) before = middle;
        else after = middle;
      }
      offsets.push({ from: new Date(after), offsetSeconds: nextOffset });
      offset = nextOffset;
    }
    at = next;
  }
  return offsets;
};

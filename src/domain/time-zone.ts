/**
 * The time zone an app's reports count days in, as AppsFlyer's and Adjust's "app time zone":
 * an install at 02:00 UTC is a San Francisco app's install of the day before. An IANA name of
 * an area and a place (`America/Los_Angeles`, `Asia/Kolkata`) that the runtime's ICU knows,
 * which DuckDB's ICU and Athena's Java zones read too, or `UTC`, the default. The lake keeps UTC
 * throughout: only the reports' days move.
 */

export const DEFAULT_TIME_ZONE = "UTC";

/** An area and one or two places: no abbreviation (`EST`) or offset, which engines read apart. */
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

/** Dates (UTC days, as the reports count them) and numbers as the dashboard shows them. */

const DAY_MS = 86_400_000;

/** A UTC day as `YYYY-MM-DD`. */
export const isoDay = (date: Date): string => date.toISOString().slice(0, 10);

export const today = (): string => isoDay(new Date());

/** Today in a time zone (an app's, whose days its reports count): `YYYY-MM-DD`. */
export const todayIn = (zone: string): string => {
  if (zone === "UTC") return today();
  try {
    // Canada's English writes a date as YYYY-MM-DD.
    return new Intl.DateTimeFormat("en-CA", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    }).format(new Date());
  } catch {
    return today();
  }
};

/** The day `days` after `day` (before, when negative). */
export const addDays = (day: string, days: number): string =>
  isoDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));

export const isDay = (value: string): boolean =>
  /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));

/** How many days `from` to `to` spans, both counted: 1 for one day, 0 or less when reversed. */
export const daysSpanned = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;

/** Every day from `from` to `to`, both included; at most `max` of them. */
export const daysBetween = (from: string, to: string, max = 400): string[] => {
  const days: string[] = [];
  for (let day = from; day <= to && days.length < max; day = addDays(day, 1)) days.push(day);
  return days;
};

/** Unix seconds of the start of a UTC day. */
export const dayStartSeconds = (day: string): number =>
  Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000);

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
/** Dollars to the cent; below a dime, to two significant digits, up to a millionth. */
const usdTo = (decimals: number) =>
  new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: "USD",
    minimumFractionDigits: 2,
    maximumFractionDigits: decimals,
  });
const usd = usdTo(2);
const SMALL_USD = [3, 4, 5, 6].map(usdTo);

/**
 * An amount as the dashboard shows it: to the cent, but an amount under a dime (a CPC click's
 * eCPI, a CPM impression's price) to its first two significant digits, so that $0.004 is not
 * shown as $0.00, a cost of nothing. The reports keep a millionth of a dollar, and no more.
 */
const usdText = (value: number): string => {
  const size = Math.abs(value);
  if (size === 0 || size >= 0.1) return usd.format(value);
  // Decimals that give two significant digits: 3 for 0.01 to 0.1, 4 below 0.01, …
  const decimals = Math.min(6, Math.max(3, 1 - Math.floor(Math.log10(size))));
  return (SMALL_USD[decimals - 3] ?? usd).format(value);
};

/** A figure not known, or not reached yet: shown as such, never as 0; and a value there is not. */
export const UNKNOWN = "—";

export const formatCount = (value: number): string => integer.format(value);

/** US dollars, "$5.00", "$0.004"; "—" for an amount not known. */
export const formatUsd = (value: number | null | undefined): string =>
  value === null || value === undefined || !Number.isFinite(value) ? UNKNOWN : usdText(value);

const percent = new Intl.NumberFormat("en-US", {
  style: "percent",
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});

/** A share or a ratio (0.4) as a percentage, "40.0%"; "—" for one not known. */
export const formatShare = (value: number | null | undefined): string =>
  value === null || value === undefined || !Number.isFinite(value)
    ? UNKNOWN
    : percent.format(value);

/** US dollars, "$5.00"; "—" for an amount not known: formatUsd, by the name the cohorts use. */
export const formatKnownUsd = formatUsd;

/** An ISO timestamp as `YYYY-MM-DD HH:MM:SS UTC`; what it was when it is not one. */
export const formatTime = (value: string | null | undefined): string => {
  if (!value) return UNKNOWN;
  const time = Date.parse(value);
  if (Number.isNaN(time)) return value;
  return `${new Date(time).toISOString().slice(0, 19).replace("T", " ")} UTC`;
};

export const formatDay = (value: string | null | undefined): string =>
  value ? value.slice(0, 10) : UNKNOWN;

/** A preview's text is one line (the service refuses a line break): breaks typed become spaces. */
export const oneLine = (text: string): string => text.replace(/[\r\n]+/g, " ");

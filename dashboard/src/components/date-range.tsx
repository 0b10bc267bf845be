/**
 * A report's range of days, as the Overview, Cohorts and Cost pages take it (days of the app's
 * time zone): two date inputs up to today there, the presets, and the range's rules
 * (src/reports/params.ts) checked before any call, the reason said beside the dates
 * (docs/dashboard.md#the-overviews-range).
 */
import { addDays, daysSpanned, formatCount, isDay } from "../format.ts";
import type { Range } from "../range.ts";

export type { Range } from "../range.ts";
export { refusalOf } from "../refusal.ts";

/** Each preset, of the day that is today where the range's days are counted. */
const PRESETS: { label: string; range: (last: string) => Range }[] = [
  { label: "Yesterday", range: (last) => ({ from: addDays(last, -1), to: addDays(last, -1) }) },
  { label: "Last 7 days", range: (last) => ({ from: addDays(last, -6), to: last }) },
  { label: "Last 30 days", range: (last) => ({ from: addDays(last, -29), to: last }) },
];

/** The longest range the reports take, both days counted: a leap year. */
export const MAX_RANGE_DAYS = 366;

/** Why a range cannot be shown, in words, and which of its dates are at fault. */
export interface RangeProblem {
  readonly message: string;
  readonly from: boolean;
  readonly to: boolean;
}

/**
 * The range's problem, if it has one: a date missing, a date after `latest` (today: no day
 * after it has figures), a start after the end, or more days than the report takes.
 */
export const rangeProblem = (range: Range, latest: string, zone = "UTC"): RangeProblem | null => {
  const fromGiven = isDay(range.from);
  const toGiven = isDay(range.to);
  if (!fromGiven || !toGiven) {
    const message =
      !fromGiven && !toGiven
        ? "Enter a start date and an end date."
        : !fromGiven
          ? "Enter a start date."
          : "Enter an end date.";
    return { message, from: !fromGiven, to: !toGiven };
  }
  const fromAhead = range.from > latest;
  const toAhead = range.to > latest;
  if (fromAhead || toAhead) {
    const which =
      fromAhead && toAhead ? "Both dates are" : fromAhead ? "The start date is" : "The end date is";
    return {
      message: `${which} in the future. The latest day with figures is today, ${latest} (${zone}).`,
      from: fromAhead,
      to: toAhead,
    };
  }
  if (range.from > range.to) {
    return {
      message: `The start date is after the end date. Choose a start on or before ${range.to}, or an end on or after ${range.from}.`,
      from: true,
      to: true,
    };
  }
  const days = daysSpanned(range.from, range.to);
  if (days > MAX_RANGE_DAYS) {
    return {
      message: `This range is ${formatCount(days)} days long; a range may be at most ${MAX_RANGE_DAYS} days. Choose a later start date or an earlier end date.`,
      from: true,
      to: true,
    };
  }
  return null;
};

const RANGE_ERROR = "range-error";

/** The range's card: its dates, the presets, and the range's problem beside them. */
export function RangeForm(props: {
  range: Range;
  problem: RangeProblem | null;
  /** Today where the days are counted: the latest day a date may be. */
  lastDay: string;
  /** The time zone whose days the range holds; UTC unless given. */
  zone?: string;
  onChange: (range: Range) => void;
}) {
  const { range, problem, lastDay, onChange } = props;
  const zone = props.zone ?? "UTC";
  /** A date input's limits and, when the range's problem is its, its mark and the reason. */
  const dateProps = (which: "from" | "to") => ({
    ...(problem?.[which] ? { "aria-invalid": "true" as const } : {}),
    ...(problem ? { "aria-describedby": RANGE_ERROR } : {}),
  });
  return (
    <form class="card range" onSubmit={(event) => event.preventDefault()}>
      <fieldset>
        <legend>
          Date range ({zone === "UTC" ? "UTC days" : `days of ${zone}`}, both included)
        </legend>
        <div class="range-row">
          <label class="field">
            <span>From</span>
            <input
              type="date"
              name="from"
              required
              value={range.from}
              max={isDay(range.to) && range.to < lastDay ? range.to : lastDay}
              {...dateProps("from")}
              onChange={(event) => onChange({ ...range, from: event.currentTarget.value })}
            />
          </label>
          <label class="field">
            <span>To</span>
            <input
              type="date"
              name="to"
              required
              value={range.to}
              min={isDay(range.from) ? range.from : undefined}
              max={lastDay}
              {...dateProps("to")}
              onChange={(event) => onChange({ ...range, to: event.currentTarget.value })}
            />
          </label>
          <div class="presets">
            {PRESETS.map((preset) => {
              const presetRange = preset.range(lastDay);
              const active = presetRange.from === range.from && presetRange.to === range.to;
              return (
                <button
                  key={preset.label}
                  type="button"
                  class="secondary"
                  aria-pressed={active}
                  onClick={() => onChange(preset.range(lastDay))}
                >
                  {preset.label}
                </button>
              );
            })}
          </div>
        </div>
        <p class="field-error" id={RANGE_ERROR} role="alert">
          {problem?.message}
        </p>
      </fieldset>
    </form>
  );
}

/**
 * The conversion value schema evaluated on a device, event by event: the reference every SDK
 * follows (sdk/conformance/conversion-values.json holds the cases, which this passes).
 *
 * The install's first open starts the clock. An event falls in the window of its time since
 * then (SKAdNetwork's three: up to 2 days, up to 7, up to 35); an event after the last window,
 * or in a locked one, changes nothing. The window keeps, per event name, how often it happened,
 * its revenue in USD (converted with the rates of the remote configuration; a currency without
 * a rate adds nothing) and the highest value each numeric parameter reached. Every rule the
 * window now meets counts: the fine value is the highest of theirs, the coarse value the
 * highest, and a lock rule among them locks the window. The app calls Apple only when the fine
 * or the coarse value rises, or the window becomes locked: values never go down.
 */

import {
  COARSE_ORDER,
  CONVERSION_WINDOWS,
  type ConversionRule,
  type ConversionSchemaRequest,
} from "./conversion-schema.ts";
import type { CoarseValue } from "./postbacks.ts";

/** An event as the SDK sees it. */
export interface DeviceEvent {
  /** The export's `event_name` (`service_purchase`). */
  readonly name: string;
  /** Hours since the install's first open. */
  readonly hoursAfterInstall: number;
  /**
   * The revenue as the service reads the `revenue` and `currency` parameters (readRevenue in
   * src/ingest/revenue.ts). An event the service refuses for its revenue ("1,000", past a
   * trillion) is refused whole: the device does not evaluate it at all.
   */
  readonly revenue?: { readonly amount: number; readonly currency: string } | null;
  readonly parameters?: Readonly<Record<string, unknown>>;
}

/** One call to make: Apple's update, for the window the event fell in. */
export interface ConversionCall {
  readonly window: 0 | 1 | 2;
  /** The first window's fine value; null in later windows, where Apple reads the coarse one. */
  readonly fine: number | null;
  readonly coarse: CoarseValue;
  readonly lock: boolean;
}

interface WindowState {
  readonly counts: Record<string, number>;
  readonly revenueUsd: Record<string, number>;
  /** `<event>\u0000<parameter>` → the highest value it reached. */
  readonly parameters: Record<string, number>;
  readonly fine: number | null;
  readonly coarse: CoarseValue | null;
  readonly locked: boolean;
}

export type EvaluationState = readonly [WindowState, WindowState, WindowState];

const emptyWindow = (): WindowState => ({
  counts: {},
  revenueUsd: {},
  parameters: {},
  fine: null,
  coarse: null,
  locked: false,
});

export const initialState = (): EvaluationState => [emptyWindow(), emptyWindow(), emptyWindow()];

/** The window an event falls in, or null past the last. */
export const windowOf = (hoursAfterInstall: number): 0 | 1 | 2 | null => {
  const found = CONVERSION_WINDOWS.find(
    (window) => hoursAfterInstall >= window.fromHours && hoursAfterInstall < window.toHours,
  );
  return found ? found.index : null;
};

const parameterKey = (event: string, name: string) => `${event}\u0000${name}`;

const meets = (rule: ConversionRule, window: WindowState): boolean => {
  if ((window.counts[rule.event] ?? 0) < rule.min_count) return false;
  if (rule.revenue_usd) {
    const revenue = window.revenueUsd[rule.event] ?? 0;
    if (revenue < rule.revenue_usd.min) return false;
    if (rule.revenue_usd.max !== undefined && revenue >= rule.revenue_usd.max) return false;
  }
  if (rule.parameter) {
    const reached = window.parameters[parameterKey(rule.event, rule.parameter.name)];
    if (reached === undefined || reached < rule.parameter.at_least) return false;
  }
  return true;
};

/** USD of one unit of each currency (ISO 4217 code → USD). */
export type UsdRates = Readonly<Record<string, number>>;

/**
 * The state after one event, and the call it makes (null when none): the evaluation's one
 * step, which every SDK repeats on each event it sends.
 */
export const evaluate = (
  schema: ConversionSchemaRequest,
  state: EvaluationState,
  event: DeviceEvent,
  rates: UsdRates,
): { state: EvaluationState; call: ConversionCall | null } => {
  const index = windowOf(event.hoursAfterInstall);
  if (index === null) return { state, call: null };
  const before = state[index];
  if (before.locked) return { state, call: null };

  // The code as the service records it (readRevenue): " usd " is USD.
  const rate = event.revenue ? rates[event.revenue.currency.trim().toUpperCase()] : undefined;
  const usd = event.revenue && rate !== undefined ? event.revenue.amount * rate : 0;
  const parameters = { ...before.parameters };
  for (const [name, value] of Object.entries(event.parameters ?? {})) {
    if (typeof value !== "number" || !Number.isFinite(value)) continue;
    const key = parameterKey(event.name, name);
    parameters[key] = Math.max(parameters[key] ?? value, value);
  }
  const window: WindowState = {
    ...before,
    counts: { ...before.counts, [event.name]: (before.counts[event.name] ?? 0) + 1 },
    revenueUsd: {
      ...before.revenueUsd,
      [event.name]: (before.revenueUsd[event.name] ?? 0) + usd,
    },
    parameters,
  };

  const met = (schema.windows[index]?.rules ?? []).filter((rule) => meets(rule, window));
  let fine = before.fine;
  let coarse = before.coarse;
  for (const rule of met) {
    if (index === 0 && rule.fine !== undefined && (fine === null || rule.fine > fine)) {
      fine = rule.fine;
    }
    if (coarse === null || COARSE_ORDER[rule.coarse] > COARSE_ORDER[coarse]) coarse = rule.coarse;
  }
  const lock = met.some((rule) => rule.lock);
  const rose = fine !== before.fine || coarse !== before.coarse;
  const next: WindowState = { ...window, fine, coarse, locked: lock };
  const states = [...state] as [WindowState, WindowState, WindowState];
  states[index] = next;
  if ((!rose && !lock) || coarse === null) return { state: states, call: null };
  return {
    state: states,
    call: { window: index, fine: index === 0 ? fine : null, coarse, lock },
  };
};

/**
 * What one install does: sessions on the install day and, with a retention curve, on later
 * days, each a short plausible funnel (levels, browsing, cart and checkout, trial and
 * subscription, sign-in). The result is the install's events in time order.
 */
import type { EventType } from "../domain/event-types.ts";
import { DAY_MS, MINUTE_MS } from "../domain/time.ts";
import type { InstallProfile } from "./install.ts";
import { PRICE_TIERS, PURCHASE_TIER_WEIGHTS, SUBSCRIPTION_TIER_WEIGHTS } from "./markets.ts";
import type { Random } from "./prng.ts";
import { localMidnight, sampleTime } from "./rhythm.ts";

export interface PlannedEvent {
  readonly time: number;
  readonly type: EventType;
  /** The custom event's own name (CUSTOM only). */
  readonly customName: string | null;
  readonly revenue: { readonly amount: number; readonly currency: string } | null;
  /** The first event of a session: the SDK reports the session (POST /v1/sessions) at it. */
  readonly sessionStart: boolean;
}

export const CUSTOM_EVENT_NAMES = [
  "boss_defeated",
  "daily_reward_claimed",
  "achievement_unlocked",
  "ad_watched",
  "friend_invited",
] as const;
const CUSTOM_WEIGHTS = CUSTOM_EVENT_NAMES.map(
  (name, i) => [name, [30, 35, 20, 10, 5][i] ?? 1] as const,
);

/** A new session never starts within this long of the previous one's last event. */
const SESSION_GAP_MS = 15 * MINUTE_MS;
const TRIAL_DAYS = 3;

interface Step {
  readonly type: EventType;
  readonly customName?: string;
  readonly tier?: number;
}

/** What persists between a user's sessions. */
interface UserState {
  identified: boolean;
  trialAt: number | null;
  trialConverts: boolean;
  subscribed: boolean;
}

export interface PlanOptions {
  readonly end: number;
  /** The user's store currency, one the FX table knows. */
  readonly currency: string;
  /** Script the first session through every event type (see `generateDemo`). */
  readonly tour: boolean;
}

/** Every event type, in a plausible order for one (long) first session. */
const TOUR: readonly Step[] = [
  { type: "INSTALL" },
  { type: "TUTORIAL_COMPLETE" },
  { type: "SIGN_UP" },
  { type: "REGISTER" },
  { type: "LOGIN" },
  { type: "LEVEL_START" },
  { type: "LEVEL_COMPLETE" },
  { type: "CUSTOM", customName: "boss_defeated" },
  { type: "SEARCH" },
  { type: "VIEW_CONTENT" },
  { type: "VIEW_ITEM" },
  { type: "ADD_TO_WISHLIST" },
  { type: "ADD_TO_CART" },
  { type: "INITIATE_CHECKOUT" },
  { type: "PURCHASE", tier: 1 },
  { type: "START_TRIAL" },
  { type: "SUBSCRIBE", tier: 2 },
  { type: "SHARE" },
];

/** New accounts sign up (older SDK integrations send REGISTER); reinstalls mostly log back in. */
const authStep = (random: Random, reinstall: boolean): Step => ({
  type: random.weighted<EventType>(
    reinstall
      ? [
          ["LOGIN", 70],
          ["SIGN_UP", 20],
          ["REGISTER", 10],
        ]
      : [
          ["SIGN_UP", 60],
          ["REGISTER", 25],
          ["LOGIN", 15],
        ],
  ),
});

const sessionSteps = (
  random: Random,
  profile: InstallProfile,
  state: UserState,
  session: { index: number; start: number; identifies: boolean },
): Step[] => {
  const steps: Step[] = [];
  const first = session.index === 0;
  if (first) steps.push({ type: "INSTALL" });
  if (first && random.chance(profile.reinstall ? 0.3 : 0.7))
    steps.push({ type: "TUTORIAL_COMPLETE" });
  if (session.identifies) steps.push(authStep(random, profile.reinstall));
  else if (state.identified && random.chance(0.2)) steps.push({ type: "LOGIN" });

  const levels = first ? random.int(1, 3) : random.int(0, 4);
  for (let i = 0; i < levels; i++) {
    steps.push({ type: "LEVEL_START" });
    if (random.chance(0.75)) steps.push({ type: "LEVEL_COMPLETE" });
    if (random.chance(0.12))
      steps.push({ type: "CUSTOM", customName: random.weighted(CUSTOM_WEIGHTS) });
  }

  for (let i = random.int(0, 2); i > 0; i--) steps.push({ type: "VIEW_CONTENT" });
  const searched = random.chance(0.25);
  if (searched) steps.push({ type: "SEARCH" });
  let inCart = false;
  for (let i = random.int(searched ? 1 : 0, 3); i > 0; i--) {
    steps.push({ type: "VIEW_ITEM" });
    if (random.chance(0.06)) steps.push({ type: "ADD_TO_WISHLIST" });
    if (random.chance(profile.payer ? 0.4 : 0.12)) {
      steps.push({ type: "ADD_TO_CART" });
      inCart = true;
    }
  }
  if (inCart && random.chance(0.55)) {
    steps.push({ type: "INITIATE_CHECKOUT" });
    if (random.chance(profile.payer ? 0.75 : 0.12)) {
      steps.push({ type: "PURCHASE", tier: random.weighted(PURCHASE_TIER_WEIGHTS) });
    }
  }

  if (!state.subscribed) {
    if (state.trialAt === null && !first && random.chance(0.03)) {
      steps.push({ type: "START_TRIAL" });
      state.trialAt = session.start;
      state.trialConverts = random.chance(0.4);
    } else if (state.trialAt !== null && state.trialConverts) {
      // The trial converts on its first session after the trial period.
      if (session.start >= state.trialAt + TRIAL_DAYS * DAY_MS) {
        steps.push({ type: "SUBSCRIBE", tier: random.weighted(SUBSCRIPTION_TIER_WEIGHTS) });
        state.subscribed = true;
      }
    } else if (state.trialAt === null && random.chance(profile.payer ? 0.03 : 0.003)) {
      steps.push({ type: "SUBSCRIBE", tier: random.weighted(SUBSCRIPTION_TIER_WEIGHTS) });
      state.subscribed = true;
    }
  }

  if (random.chance(0.04)) steps.push({ type: "SHARE" });
  if (random.chance(0.1))
    steps.push({ type: "CUSTOM", customName: random.weighted(CUSTOM_WEIGHTS) });
  return steps;
};

/** Session start times: the first open, maybe more that day, then retained days. */
const sessionStarts = (random: Random, profile: InstallProfile, end: number): number[] => {
  const offset = profile.market.utcOffsetMinutes;
  const installDay = localMidnight(profile.firstOpen, offset);
  const starts = [profile.firstOpen];
  const extraToday = random.weighted([
    [0, 50],
    [1, 35],
    [2, 15],
  ] as const);
  for (let i = 0; i < extraToday; i++) {
    const time = sampleTime(
      random,
      profile.firstOpen + 30 * MINUTE_MS,
      Math.min(installDay + DAY_MS, end),
      offset,
    );
    if (time !== null) starts.push(time);
  }
  for (let day = 1; installDay + day * DAY_MS < end; day++) {
    // A power-law retention curve: D1 around 30 %, D7 around 10 %.
    if (!random.chance(Math.min(0.95, profile.engagement * day ** -0.55))) continue;
    const from = installDay + day * DAY_MS;
    const sessions = 1 + (random.chance(0.4) ? 1 : 0) + (random.chance(0.15) ? 1 : 0);
    for (let i = 0; i < sessions; i++) {
      const time = sampleTime(random, from, Math.min(from + DAY_MS, end), offset);
      if (time !== null) starts.push(time);
    }
  }
  return starts.sort((a, b) => a - b);
};

const priceOf = (currency: string, tier: number): number =>
  PRICE_TIERS[currency]?.[tier] ?? PRICE_TIERS.USD?.[tier] ?? 0.99;

/** The install's events in time order, none after `end`. */
export const planEvents = (
  random: Random,
  profile: InstallProfile,
  options: PlanOptions,
): PlannedEvent[] => {
  const starts = sessionStarts(random, profile, options.end);
  // Most users who sign in do so in their first session, the rest soon after.
  const identifyAt = options.tour
    ? 0
    : Math.min(
        starts.length - 1,
        random.weighted([
          [0, 70],
          [1, 20],
          [2, 10],
        ] as const),
      );
  const state: UserState = {
    identified: false,
    trialAt: null,
    trialConverts: false,
    subscribed: false,
  };
  const events: PlannedEvent[] = [];
  let cursor = Number.NEGATIVE_INFINITY;
  for (const [index, planned] of starts.entries()) {
    const start = Math.max(planned, cursor + SESSION_GAP_MS);
    const identifies = profile.customerUserId !== null && index === identifyAt;
    const tour = options.tour && index === 0;
    const steps = tour ? TOUR : sessionSteps(random, profile, state, { index, start, identifies });
    if (tour) Object.assign(state, { trialAt: start, subscribed: true });
    if (identifies) state.identified = true;
    let time = start;
    for (const step of steps) {
      if (time > options.end) return events;
      const revenue =
        step.type === "START_TRIAL"
          ? { amount: 0, currency: options.currency } // a free trial: revenue 0, currency known
          : step.tier === undefined
            ? null
            : { amount: priceOf(options.currency, step.tier), currency: options.currency };
      events.push({
        time,
        type: step.type,
        customName: step.customName ?? null,
        revenue,
        sessionStart: time === start,
      });
      cursor = time;
      // Seconds between taps: mostly short, sometimes a long read or a level.
      time += Math.floor(3_000 + random.exponential(25_000));
    }
  }
  return events;
};

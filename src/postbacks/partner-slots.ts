/**
 * How many requests one process makes to one configuration at once, so that one slow partner
 * cannot hold the others' sends while a partner that answers quickly takes a burst at the rate
 * the worker sends.
 *
 * A configuration answering quickly may have as many requests at once as the worker has slots.
 * One that is slow (a request of the last SLOW_FOR_MS took SLOW_REQUEST_MS or more, or one under
 * way has taken that long already) may have `slowMax` at once; an attempt past that waits up to
 * `waitMs` for one to end, as `room` others may, and is otherwise refused (its caller sets it
 * aside for later). So a slow partner holds at most `slowMax + room` of the worker's slots.
 * Pure: the clock is given, and the only timer is the wait's.
 */

/** A request taking this long marks its configuration slow. */
export const SLOW_REQUEST_MS = 2_000;
/** How long a configuration stays slow after its last slow request ended. */
export const SLOW_FOR_MS = 60_000;

/** A request's place: ended once its answer (or its failure) is in. */
export interface PartnerSlot {
  end(): void;
}

export interface PartnerSlots {
  /** A place for a request to the configuration `key`, or undefined when it stays busy. */
  take(key: string): Promise<PartnerSlot | undefined>;
}

interface KeyState {
  /** The start times of the requests under way, by slot. */
  readonly running: Map<PartnerSlot, number>;
  /** Attempts waiting for a request to end, in the order they came. */
  readonly waiting: Array<(slot: PartnerSlot) => void>;
  slowUntil: number;
}

export const createPartnerSlots = (options: {
  readonly slowMax: number;
  readonly room: number;
  readonly waitMs: number;
  readonly now?: () => number;
}): PartnerSlots => {
  const now = options.now ?? Date.now;
  const states = new Map<string, KeyState>();

  const isSlow = (state: KeyState, at: number) => {
    if (state.slowUntil > at) return true;
    for (const startedAt of state.running.values()) {
      if (at - startedAt >= SLOW_REQUEST_MS) return true;
    }
    return false;
  };

  const forgetIfIdle = (key: string, state: KeyState) => {
    if (state.running.size === 0 && state.waiting.length === 0 && state.slowUntil <= now()) {
      states.delete(key);
    }
  };

  const start = (key: string, state: KeyState): PartnerSlot => {
    const slot: PartnerSlot = {
      end: () => {
        const startedAt = state.running.get(slot);
        if (startedAt === undefined) return;
        state.running.delete(slot);
        const at = now();
        if (at - startedAt >= SLOW_REQUEST_MS) state.slowUntil = at + SLOW_FOR_MS;
        // The place passes to the next attempt waiting, if any.
        const next = state.waiting.shift();
        if (next) next(start(key, state));
        else forgetIfIdle(key, state);
      },
    };
    state.running.set(slot, now());
    return slot;
  };

  return {
    take(key) {
      const state: KeyState = states.get(key) ?? { running: new Map(), waiting: [], slowUntil: 0 };
      states.set(key, state);
      if (!isSlow(state, now()) || state.running.size < options.slowMax) {
        return Promise.resolve(start(key, state));
      }
      if (state.waiting.length >= options.room || options.waitMs <= 0) {
        return Promise.resolve(undefined);
      }
      return new Promise((resolve) => {
        const handOver = (slot: PartnerSlot) => {
          clearTimeout(timer);
          resolve(slot);
        };
        const timer = setTimeout(() => {
          state.waiting.splice(state.waiting.indexOf(handOver), 1);
          forgetIfIdle(key, state);
          resolve(undefined);
        }, options.waitMs);
        state.waiting.push(handOver);
      });
    },
  };
};

/**
 * Failed sign-ins counted in memory, as Cognito's own lockout does on AWS, two ways:
 *
 * - per person and address: after `maxFailures` within `windowMs`, that person's sign-ins from
 *   that address are refused without a password or code check until the window has passed. The
 *   person can still sign in from anywhere else, so no one who can reach the port can lock the
 *   owner out for everyone;
 * - per address: after `maxAddressFailures` within the window, whatever the accounts tried, the
 *   address's sign-ins are refused, so it cannot try one password on every account instead.
 *
 * Wrong passwords and wrong TOTP codes count alike; a sign-in completed (the password, and the
 * code when one is asked) clears the person's count at that address. Kept per process (per
 * execution environment on AWS, where Cognito's lockout is the one that holds across them).
 *
 * An attempt is counted as failed when it starts, in the same step as the lockout's check, and
 * taken back once it proved right. A password check takes a while (a scrypt hash, a call to
 * Cognito): counted only after it, every guess of a burst sent at once would pass the check
 * before the first was counted, and the lockout would limit nothing. Counted up front, no more
 * guesses than the limit are ever checked, however many come at once.
 */
import { UnauthorizedError } from "../domain/errors.ts";
import { MINUTE_MS } from "../domain/time.ts";

export interface SignInGuard {
  /**
   * Starts an attempt of the person's at the address, counted as a failed one until it is taken
   * back; throws an UnauthorizedError, saying so, while the person or the address is locked out
   * (then nothing is counted).
   */
  attempt(email: string, address: string): SignInAttempt;
}

export interface SignInAttempt {
  /** The password or code was right, and the sign-in goes on (a code is still due). */
  release(): void;
  /** The sign-in is complete: the person's failures at the address are forgotten too. */
  succeeded(): void;
}

/** How a lockout's refusal begins: the dashboard shows it as it is, not as a wrong password. */
export const LOCKED_OUT = "Too many failed sign-ins";

export const createSignInGuard = (
  options: {
    maxFailures?: number;
    maxAddressFailures?: number;
    windowMs?: number;
    maxKeys?: number;
    now?: () => number;
  } = {},
): SignInGuard => {
  const {
    maxFailures = 10,
    maxAddressFailures = 50,
    windowMs = 15 * MINUTE_MS,
    maxKeys = 20_000,
    now = Date.now,
  } = options;
  const failures = new Map<string, number[]>();
  const recent = (key: string) => {
    const since = now() - windowMs;
    const kept = (failures.get(key) ?? []).filter((at) => at > since);
    if (kept.length === 0) failures.delete(key);
    else failures.set(key, kept);
    return kept;
  };
  const count = (key: string, at: number) => {
    // A bound on what is remembered: the oldest entries go first.
    if (!failures.has(key) && failures.size >= maxKeys) {
      const oldest = failures.keys().next().value;
      if (oldest !== undefined) failures.delete(oldest);
    }
    failures.set(key, [...recent(key), at]);
  };
  /** Takes one failure counted at `at` back, if it is still remembered. */
  const uncount = (key: string, at: number) => {
    const kept = failures.get(key);
    const index = kept?.indexOf(at) ?? -1;
    if (!kept || index < 0) return;
    kept.splice(index, 1);
    if (kept.length === 0) failures.delete(key);
  };
  const personKey = (email: string, address: string) => `person\u0000${email}\u0000${address}`;
  const addressKey = (address: string) => `address\u0000${address}`;
  const minutesLeft = (kept: readonly number[]) => {
    const minutes = Math.ceil(((kept[0] ?? now()) + windowMs - now()) / MINUTE_MS);
    return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  };
  return {
    attempt(email, address) {
      const person = personKey(email, address);
      const from = addressKey(address);
      const fromAddress = recent(from);
      if (fromAddress.length >= maxAddressFailures) {
        throw new UnauthorizedError(
          `${LOCKED_OUT} from your address: try again in ${minutesLeft(fromAddress)}.`,
        );
      }
      const personal = recent(person);
      if (personal.length >= maxFailures) {
        throw new UnauthorizedError(
          `${LOCKED_OUT} for this account from your address: try again in ${minutesLeft(personal)}.`,
        );
      }
      // Counted before anything is awaited: the next attempt's check already sees it.
      const at = now();
      count(person, at);
      count(from, at);
      let open = true;
      const release = () => {
        if (!open) return;
        open = false;
        uncount(person, at);
        uncount(from, at);
      };
      return {
        release,
        succeeded() {
          release();
          failures.delete(person);
        },
      };
    },
  };
};

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
 */
import { UnauthorizedError } from "../domain/errors.ts";
import { MINUTE_MS } from "../domain/time.ts";

export interface SignInGuard {
  /** Throws an UnauthorizedError, saying so, while the person or the address is locked out. */
  check(email: string, address: string): void;
  failed(email: string, address: string): void;
  succeeded(email: string, address: string): void;
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
  const count = (key: string) => {
    // A bound on what is remembered: the oldest entries go first.
    if (!failures.has(key) && failures.size >= maxKeys) {
      const oldest = failures.keys().next().value;
      if (oldest !== undefined) failures.delete(oldest);
    }
    failures.set(key, [...recent(key), now()]);
  };
  const personKey = (email: string, address: string) => `person\u0000${email}\u0000${address}`;
  const addressKey = (address: string) => `address\u0000${address}`;
  const minutesLeft = (kept: readonly number[]) => {
    const minutes = Math.ceil(((kept[0] ?? now()) + windowMs - now()) / MINUTE_MS);
    return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  };
  return {
    check(email, address) {
      const fromAddress = recent(addressKey(address));
      if (fromAddress.length >= maxAddressFailures) {
        throw new UnauthorizedError(
          `${LOCKED_OUT} from your address: try again in ${minutesLeft(fromAddress)}.`,
        );
      }
      const person = recent(personKey(email, address));
      if (person.length >= maxFailures) {
        throw new UnauthorizedError(
          `${LOCKED_OUT} for this account from your address: try again in ${minutesLeft(person)}.`,
        );
      }
    },
    failed(email, address) {
      count(personKey(email, address));
      count(addressKey(address));
    },
    succeeded(email, address) {
      failures.delete(personKey(email, address));
    },
  };
};

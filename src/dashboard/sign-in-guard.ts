/**
 * Failed sign-ins counted per person, in memory: after `maxFailures` within `windowMs`, the
 * person's sign-ins are refused without a password or code check until the window has passed,
 * as Cognito's own lockout does on AWS. Wrong passwords and wrong TOTP codes count alike; a
 * sign-in completed (the password, and the code when one is asked) clears the count. Kept per process (per
 * execution environment on AWS, where Cognito's lockout is the one that holds across them).
 */
import { UnauthorizedError } from "../domain/errors.ts";
import { MINUTE_MS } from "../domain/time.ts";

export interface SignInGuard {
  /** Throws an UnauthorizedError while the person is locked out. */
  check(email: string): void;
  failed(email: string): void;
  succeeded(email: string): void;
}

export const createSignInGuard = (
  options: { maxFailures?: number; windowMs?: number; maxPeople?: number; now?: () => number } = {},
): SignInGuard => {
  const {
    maxFailures = 10,
    windowMs = 15 * MINUTE_MS,
    maxPeople = 10_000,
    now = Date.now,
  } = options;
  const failures = new Map<string, number[]>();
  const recent = (email: string) => {
    const since = now() - windowMs;
    const kept = (failures.get(email) ?? []).filter((at) => at > since);
    if (kept.length === 0) failures.delete(email);
    else failures.set(email, kept);
    return kept;
  };
  return {
    check(email) {
      const kept = recent(email);
      if (kept.length < maxFailures) return;
      const minutes = Math.ceil(((kept[0] ?? now()) + windowMs - now()) / MINUTE_MS);
      throw new UnauthorizedError(
        `Too many failed sign-ins for this account: try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
      );
    },
    failed(email) {
      // A bound on the people remembered: the oldest entries go first.
      if (!failures.has(email) && failures.size >= maxPeople) {
        const oldest = failures.keys().next().value;
        if (oldest !== undefined) failures.delete(oldest);
      }
      failures.set(email, [...recent(email), now()]);
    },
    succeeded(email) {
      failures.delete(email);
    },
  };
};

import { describe, expect, it } from "vitest";
import { MINUTE_MS } from "../domain/time.ts";
import { createSignInGuard } from "./sign-in-guard.ts";

const HERE = "203.0.113.7";
const THERE = "198.51.100.9";

describe("the sign-in guard", () => {
  it("locks a person out at one address after the failures allowed, and lets them in after the window", () => {
    let clock = 0;
    const guard = createSignInGuard({ maxFailures: 3, windowMs: 15 * MINUTE_MS, now: () => clock });
    for (let i = 0; i < 3; i += 1) {
      expect(() => guard.check("a@example.com", HERE)).not.toThrow();
      guard.failed("a@example.com", HERE);
      clock += MINUTE_MS;
    }
    expect(() => guard.check("a@example.com", HERE)).toThrow(
      "Too many failed sign-ins for this account from your address: try again in 12 minutes.",
    );
    // The same person from elsewhere, and another person, are not locked out by these failures.
    expect(() => guard.check("a@example.com", THERE)).not.toThrow();
    expect(() => guard.check("b@example.com", HERE)).not.toThrow();
    clock = 15 * MINUTE_MS + 1;
    expect(() => guard.check("a@example.com", HERE)).not.toThrow();
  });

  it("locks an address out that tries many accounts", () => {
    const guard = createSignInGuard({ maxFailures: 10, maxAddressFailures: 4, now: () => 0 });
    for (const person of ["a", "b", "c", "d"]) guard.failed(`${person}@example.com`, HERE);
    expect(() => guard.check("e@example.com", HERE)).toThrow(
      "Too many failed sign-ins from your address: try again in 15 minutes.",
    );
    expect(() => guard.check("e@example.com", THERE)).not.toThrow();
  });

  it("forgets a person's failures at an address at a right password", () => {
    const guard = createSignInGuard({ maxFailures: 2, now: () => 0 });
    guard.failed("a@example.com", HERE);
    guard.succeeded("a@example.com", HERE);
    guard.failed("a@example.com", HERE);
    expect(() => guard.check("a@example.com", HERE)).not.toThrow();
  });

  it("remembers at most maxKeys, the oldest forgotten first", () => {
    const guard = createSignInGuard({
      maxFailures: 1,
      maxAddressFailures: 100,
      maxKeys: 3,
      now: () => 0,
    });
    guard.failed("a@example.com", HERE);
    guard.failed("b@example.com", THERE);
    expect(() => guard.check("a@example.com", HERE)).not.toThrow();
    expect(() => guard.check("b@example.com", THERE)).toThrow();
  });
});

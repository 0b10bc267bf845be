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
      expect(() => guard.attempt("a@example.com", HERE)).not.toThrow();
      clock += MINUTE_MS;
    }
    expect(() => guard.attempt("a@example.com", HERE)).toThrow(
      "Too many failed sign-ins for this account from your address: try again in 12 minutes.",
    );
    // The same person from elsewhere, and another person, are not locked out by these failures.
    expect(() => guard.attempt("a@example.com", THERE)).not.toThrow();
    expect(() => guard.attempt("b@example.com", HERE)).not.toThrow();
    // Its last minute: said as one minute, not none.
    clock = 15 * MINUTE_MS - 1;
    expect(() => guard.attempt("a@example.com", HERE)).toThrow("try again in 1 minute.");
    // A failure exactly the window old is past: the first goes, and one attempt is let in.
    clock = 15 * MINUTE_MS;
    expect(() => guard.attempt("a@example.com", HERE)).not.toThrow();
    clock = 15 * MINUTE_MS + 1;
    expect(() => guard.attempt("a@example.com", HERE)).toThrow(/Too many failed sign-ins/);
  });

  it("locks an address out that tries many accounts", () => {
    const guard = createSignInGuard({ maxFailures: 10, maxAddressFailures: 4, now: () => 0 });
    for (const person of ["a", "b", "c", "d"]) guard.attempt(`${person}@example.com`, HERE);
    expect(() => guard.attempt("e@example.com", HERE)).toThrow(
      "Too many failed sign-ins from your address: try again in 15 minutes.",
    );
    expect(() => guard.attempt("e@example.com", THERE)).not.toThrow();
  });

  it("counts an attempt from its start: no more attempts begin at once than the limit", () => {
    const guard = createSignInGuard({ maxFailures: 3, now: () => 0 });
    // None of them over yet, as when their passwords are all being checked at once.
    const started = [0, 1, 2].map(() => guard.attempt("a@example.com", HERE));
    expect(started).toHaveLength(3);
    expect(() => guard.attempt("a@example.com", HERE)).toThrow(/Too many failed sign-ins/);
  });

  it("takes an attempt back that proved right, once", () => {
    const guard = createSignInGuard({ maxFailures: 2, maxAddressFailures: 2, now: () => 0 });
    guard.attempt("a@example.com", HERE);
    const right = guard.attempt("a@example.com", HERE);
    right.release();
    right.release();
    // One failure left at the person and at the address: one more attempt, not two.
    expect(() => guard.attempt("a@example.com", HERE)).not.toThrow();
    expect(() => guard.attempt("a@example.com", HERE)).toThrow(/Too many failed sign-ins/);
  });

  it("forgets a person's failures at an address at a completed sign-in", () => {
    const guard = createSignInGuard({ maxFailures: 2, now: () => 0 });
    guard.attempt("a@example.com", HERE);
    guard.attempt("a@example.com", HERE).succeeded();
    guard.attempt("a@example.com", HERE);
    expect(() => guard.attempt("a@example.com", HERE)).not.toThrow();
  });

  it("remembers at most maxKeys, the oldest forgotten first", () => {
    const guard = createSignInGuard({
      maxFailures: 1,
      maxAddressFailures: 100,
      maxKeys: 3,
      now: () => 0,
    });
    guard.attempt("a@example.com", HERE);
    // Its person's and its address's count: the fourth key, for which a@example.com's goes.
    guard.attempt("b@example.com", THERE);
    expect(() => guard.attempt("b@example.com", THERE)).toThrow();
    expect(() => guard.attempt("a@example.com", HERE)).not.toThrow();
  });

  it("forgets no key it counts again, however full its memory", () => {
    // The person's and the address's counts fill the memory: a failure is added to them.
    const guard = createSignInGuard({ maxFailures: 3, maxKeys: 2, now: () => 0 });
    for (let i = 0; i < 3; i += 1) guard.attempt("a@example.com", HERE);
    expect(() => guard.attempt("a@example.com", HERE)).toThrow(/Too many failed sign-ins/);
  });
});

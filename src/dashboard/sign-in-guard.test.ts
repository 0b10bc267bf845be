import { describe, expect, it } from "vitest";
import { MINUTE_MS } from "../domain/time.ts";
import { createSignInGuard } from "./sign-in-guard.ts";

describe("the sign-in guard", () => {
  it("locks a person out after the failures allowed in the window, and lets them in after it", () => {
    let clock = 0;
    const guard = createSignInGuard({ maxFailures: 3, windowMs: 15 * MINUTE_MS, now: () => clock });
    for (let i = 0; i < 3; i += 1) {
      expect(() => guard.check("a@example.com")).not.toThrow();
      guard.failed("a@example.com");
      clock += MINUTE_MS;
    }
    expect(() => guard.check("a@example.com")).toThrow(/try again in 12 minutes/);
    // Another person is not locked out by someone else's failures.
    expect(() => guard.check("b@example.com")).not.toThrow();
    clock = 15 * MINUTE_MS + 1;
    expect(() => guard.check("a@example.com")).not.toThrow();
  });

  it("forgets the failures at a right password", () => {
    const guard = createSignInGuard({ maxFailures: 2, now: () => 0 });
    guard.failed("a@example.com");
    guard.succeeded("a@example.com");
    guard.failed("a@example.com");
    expect(() => guard.check("a@example.com")).not.toThrow();
  });

  it("remembers at most maxPeople, the oldest forgotten first", () => {
    const guard = createSignInGuard({ maxFailures: 1, maxPeople: 2, now: () => 0 });
    guard.failed("a@example.com");
    guard.failed("b@example.com");
    guard.failed("c@example.com");
    expect(() => guard.check("a@example.com")).not.toThrow();
    expect(() => guard.check("c@example.com")).toThrow();
  });
});

import { describe, expect, it } from "vitest";
import { createInFlight } from "./in-flight.ts";

const deferred = () => {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

describe("createInFlight", () => {
  it("settles once the work begun before the call has, and not before", async () => {
    const inFlight = createInFlight();
    const first = deferred();
    const second = deferred();
    void inFlight.track(first.promise);
    inFlight.track(second.promise).catch(() => undefined);
    let settled = false;
    const waiting = inFlight.settled().then(() => {
      settled = true;
    });
    first.resolve();
    await first.promise;
    await Promise.resolve();
    expect(settled).toBe(false);
    // A failure counts as ended: the step after it goes on.
    second.reject(new Error("refused"));
    await waiting;
    expect(settled).toBe(true);
  });

  it("does not wait for work begun after the call", async () => {
    const inFlight = createInFlight();
    const waiting = inFlight.settled();
    void inFlight.track(new Promise<void>(() => undefined));
    await expect(waiting).resolves.toBeUndefined();
  });
});

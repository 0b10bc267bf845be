import { describe, expect, it } from "vitest";
import { drain } from "./drain.ts";

/** A step that waits until released, counting how often it ran. */
const heldSteps = () => {
  const releases: (() => void)[] = [];
  let steps = 0;
  return {
    steps: () => steps,
    step: () =>
      new Promise<void>((resolve) => {
        steps += 1;
        releases.push(resolve);
      }),
    /** Ends the step under way. */
    release: async () => {
      releases.shift()?.();
      // Let the run take its next step.
      for (let turn = 0; turn < 5; turn++) await Promise.resolve();
    },
  };
};

describe("drain", () => {
  it("runs one step at a time, and settles at once with nothing to do", async () => {
    const held = heldSteps();
    let work = 0;
    const run = drain(
      () => work > 0,
      async () => {
        work = 0;
        await held.step();
      },
    );
    await run();
    expect(held.steps()).toBe(0);
    work = 1;
    const first = run();
    const second = run();
    expect(held.steps()).toBe(1);
    await held.release();
    await first;
    // No work came during the step: the second call is settled too.
    await second;
    expect(held.steps()).toBe(1);
  });

  it("settles a call once a step begun after it is over, however long work keeps coming", async () => {
    const held = heldSteps();
    let queued = 1;
    const run = drain(
      () => queued > 0,
      async () => {
        queued = 0;
        await held.step();
      },
    );
    const settled: string[] = [];
    void run().then(() => settled.push("first"));
    // During the first step: more work, and a call that needs it done.
    queued = 1;
    void run().then(() => settled.push("second"));
    await held.release();
    expect(settled).toEqual(["first"]);
    // Work keeps coming during every step: the run goes on, and each call is still settled.
    for (let round = 0; round < 5; round++) {
      queued = 1;
      await held.release();
    }
    expect(settled).toEqual(["first", "second"]);
    expect(held.steps()).toBe(7);
  });

  it("rejects the calls a failed step served; a call made during it starts the next run", async () => {
    const held = heldSteps();
    let queued = 1;
    let fail = true;
    const run = drain(
      () => queued > 0,
      async () => {
        queued = 0;
        await held.step();
        if (fail) throw new Error("disk full");
      },
    );
    const first = run();
    queued = 1;
    const second = run();
    fail = true;
    await held.release();
    await expect(first).rejects.toThrow("disk full");
    fail = false;
    await held.release();
    await second;
    expect(held.steps()).toBe(2);
  });

  it("takes no step after a failed one until it is called again, though work is left", async () => {
    let steps = 0;
    const run = drain(
      () => true,
      async () => {
        steps += 1;
        throw new Error("store down");
      },
    );
    await expect(run()).rejects.toThrow("store down");
    // A caller's retry, with its own pause, is the next step: the run does not spin on a failure.
    for (let turn = 0; turn < 20; turn++) await Promise.resolve();
    expect(steps).toBe(1);
    await expect(run()).rejects.toThrow("store down");
    expect(steps).toBe(2);
  });
});

import { describe, expect, it } from "vitest";
import { backgroundJob } from "./background-job.ts";

describe("background job", () => {
  it("runs once at a time, and once more when asked during a run", async () => {
    let runs = 0;
    let active = 0;
    let overlapped = false;
    const job = backgroundJob(
      "test",
      async () => {
        active += 1;
        overlapped ||= active > 1;
        runs += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
        active -= 1;
      },
      60_000,
    );
    const first = job.trigger();
    void job.trigger();
    void job.trigger();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(runs).toBe(2);
    expect(overlapped).toBe(false);
    await job.stop();
  });

  it("answers a demand made during a run once the run after it is over", async () => {
    let finished = 0;
    const job = backgroundJob(
      "test",
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        finished += 1;
      },
      60_000,
    );
    const first = job.trigger();
    await new Promise((resolve) => setTimeout(resolve, 5));
    // The run under way may have begun before what this demand is about: it waits for the next.
    await job.trigger();
    expect(finished).toBe(2);
    await first;
    await job.stop();
  });

  it("starts nothing once stopped", async () => {
    let runs = 0;
    const job = backgroundJob(
      "test",
      async () => {
        runs += 1;
      },
      60_000,
    );
    await job.stop();
    await job.trigger();
    expect(runs).toBe(0);
  });
});

import { describe, expect, it, vi } from "vitest";
import { JOBS } from "../jobs/jobs.ts";
import { backgroundJob, startJob } from "./background-job.ts";

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

  it("runs on its interval until stopped", async () => {
    let runs = 0;
    const job = backgroundJob(
      "test",
      async () => {
        runs += 1;
      },
      10,
    );
    await vi.waitFor(() => expect(runs).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
    await job.stop();
    const stoppedAt = runs;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(runs).toBe(stoppedAt);
  });

  it("runs a job at start only when its row says so", async () => {
    for (const row of JOBS) {
      let runs = 0;
      // An interval no test waits out: a run is the start's.
      const job = startJob(row, async () => void runs++, 600_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
      await job.stop();
      expect(runs, row.id).toBe(row.embedded.atStart ? 1 : 0);
    }
    expect(JOBS.some((row) => row.embedded.atStart)).toBe(true);
    expect(JOBS.some((row) => !row.embedded.atStart)).toBe(true);
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

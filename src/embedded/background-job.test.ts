import { afterEach, describe, expect, it, vi } from "vitest";
import { JOBS } from "../jobs/jobs.ts";
import { backgroundJob, startJob } from "./background-job.ts";

/**
 * Work a test lets finish: each run waits on its own gate, and says when it has begun, so that
 * the tests wait on the runs themselves and never on the clock.
 */
const gatedWork = () => {
  const gates: Array<() => void> = [];
  const begun: Array<() => void> = [];
  const beginnings: Promise<void>[] = [];
  const started = (n: number) => {
    while (beginnings.length <= n) {
      beginnings.push(new Promise<void>((resolve) => begun.push(resolve)));
    }
    return beginnings[n] as Promise<void>;
  };
  let runs = 0;
  let active = 0;
  let overlapped = false;
  let finished = 0;
  const work = async () => {
    const n = runs;
    runs += 1;
    active += 1;
    overlapped ||= active > 1;
    await new Promise<void>((resolve) => {
      gates[n] = resolve;
      void started(n);
      begun[n]?.();
    });
    active -= 1;
    finished += 1;
  };
  return {
    work,
    /** Resolves once the nth run (from 0) has begun. */
    started,
    release: (n: number) => gates[n]?.(),
    runs: () => runs,
    finished: () => finished,
    overlapped: () => overlapped,
  };
};

describe("background job", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs once at a time, and once more when asked during a run", async () => {
    const gated = gatedWork();
    const job = backgroundJob("test", gated.work, 600_000);
    const first = job.trigger();
    void job.trigger();
    void job.trigger();
    await gated.started(0);
    expect(gated.runs()).toBe(1);
    gated.release(0);
    await first;
    // The demands made during the first run are answered by one more, not two.
    await gated.started(1);
    gated.release(1);
    await job.stop();
    expect(gated.runs()).toBe(2);
    expect(gated.finished()).toBe(2);
    expect(gated.overlapped()).toBe(false);
  });

  it("answers a demand made during a run once the run after it is over", async () => {
    const gated = gatedWork();
    const job = backgroundJob("test", gated.work, 600_000);
    const first = job.trigger();
    await gated.started(0);
    // The run under way may have begun before what this demand is about: it waits for the next.
    const demand = job.trigger().then(() => gated.finished());
    gated.release(0);
    await first;
    await gated.started(1);
    gated.release(1);
    expect(await demand).toBe(2);
    await job.stop();
  });

  it("runs on its interval until stopped", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    let runs = 0;
    const job = backgroundJob(
      "test",
      async () => {
        runs += 1;
      },
      10,
    );
    await vi.advanceTimersByTimeAsync(9);
    expect(runs).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(10);
    expect(runs).toBe(2);
    await job.stop();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toBe(2);
  });

  it("runs a job at start only when its row says so", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    for (const row of JOBS) {
      let runs = 0;
      // No interval passes (its timer is faked): a run is the start's.
      const job = startJob(row, async () => void runs++, 600_000);
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

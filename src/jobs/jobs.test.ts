import { describe, expect, it } from "vitest";
import { SWEEP_AGE_MS } from "../attribution/sweep.ts";
import { AWS_JOBS, JOBS, jobOf } from "./jobs.ts";

describe("the job table", () => {
  it("names each job once", () => {
    const ids = JOBS.map((job) => job.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("sweeps attributions as often as they must be old to be swept, on both runtimes", () => {
    const sweep = jobOf("attribution-sweep");
    expect(sweep.embedded.everyMs).toBe(SWEEP_AGE_MS);
    expect(sweep.aws.schedule).toEqual({ everyMs: SWEEP_AGE_MS });
  });

  it("runs on AWS only the jobs that have a schedule there; the rest say what does their work", () => {
    expect(AWS_JOBS.map((job) => job.id)).toEqual([
      "purge",
      "fx-rates",
      "attribution-sweep",
      "disabled-accounts",
    ]);
    for (const job of JOBS) {
      if (!("schedule" in job.aws)) expect(job.aws.instead.length).toBeGreaterThan(0);
    }
  });
});

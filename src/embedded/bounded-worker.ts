/**
 * A worker thread whose young generation is the one it is given, whatever the process's flags.
 * V8's flags are the process's, and a flag outranks a thread's `resourceLimits`: the young
 * generation `npm start` sizes for the requests' thread (`--max-semi-space-size`) would be every
 * thread's too, and kept however little of it a thread's short-lived objects use. So the flag is
 * unset first, which leaves the thread's own limit to decide. It stays unset: it sizes only heaps
 * made after it changes, so the requests' thread keeps the young generation it started with, and
 * a thread made later takes its own limit or V8's default.
 */
import { setFlagsFromString } from "node:v8";
import { Worker, type WorkerOptions } from "node:worker_threads";

export const boundedWorker = (
  entry: URL,
  youngGenerationMb: number,
  options: Omit<WorkerOptions, "resourceLimits"> = {},
): Worker => {
  setFlagsFromString("--max-semi-space-size=0");
  return new Worker(entry, {
    ...options,
    resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb },
  });
};

/**
 * A thread made by `boundedWorker` keeps the young generation it is given in a process started,
 * as `npm start` starts the service, with a large one for its main thread; and the main thread
 * keeps its own. Run in a process of its own: the flag is the process's.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const MB = 1024 * 1024;
const SEMI_SPACE_MB = 64;
const BOUND_MB = 16;

/** Makes short-lived objects, some kept a while, as a busy thread does; then its young generation's size. */
const churn = `
import { getHeapSpaceStatistics } from "node:v8";
let kept = [];
for (let i = 0; i < 3_000_000; i++) {
  kept.push({ i, text: "item " + i });
  if (kept.length > 200_000) kept = [];
}
export const youngGeneration = () =>
  getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
`;

describe("boundedWorker", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "bounded-worker-"));
    await writeFile(join(dir, "churn.mjs"), churn);
    await writeFile(
      join(dir, "thread.mjs"),
      `import { parentPort } from "node:worker_threads";
import { youngGeneration } from "./churn.mjs";
parentPort.postMessage(youngGeneration());
`,
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Sizes of the young generation in a process run with a large one: a thread's, then the main thread's. */
  const youngGenerations = async (makeThread: string) => {
    const module = fileURLToPath(new URL("./bounded-worker.ts", import.meta.url));
    const script = join(dir, `main-${makeThread.length}.mts`);
    await writeFile(
      script,
      `import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { boundedWorker } from ${JSON.stringify(module)};
const entry = new URL("./thread.mjs", import.meta.url);
const worker = ${makeThread};
const [thread] = await once(worker, "message");
await worker.terminate();
const { youngGeneration } = await import("./churn.mjs");
process.stdout.write(JSON.stringify({ thread, main: youngGeneration() }));
`,
    );
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [`--max-semi-space-size=${SEMI_SPACE_MB}`, "--import", "tsx", script],
      { cwd: fileURLToPath(new URL("../..", import.meta.url)) },
    );
    return JSON.parse(stdout) as { thread: number; main: number };
  };

  it("gives its thread the young generation asked for, and leaves the main thread's", async () => {
    const sizes = await youngGenerations(`boundedWorker(entry, ${BOUND_MB})`);
    expect(sizes.thread).toBeLessThanOrEqual(BOUND_MB * MB);
    // Past what V8 gives a thread by default: the flag still sizes the main thread's.
    expect(sizes.main).toBeGreaterThan(SEMI_SPACE_MB * MB);
  });

  it("where a plain worker's own limit gives way to the process's flag", async () => {
    const sizes = await youngGenerations(
      `new Worker(entry, { resourceLimits: { maxYoungGenerationSizeMb: ${BOUND_MB} } })`,
    );
    expect(sizes.thread).toBeGreaterThan(BOUND_MB * MB);
  });
});

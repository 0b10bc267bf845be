/**
 * The worker table: one row per queue-driven worker (./worker.ts says what a row holds). The
 * CDK app and the embedded runtime both build their queues and consumers from it, so a worker
 * exists on both runtimes or on neither. A new worker is a row here (naming what it uses, from
 * which its environment and grants on AWS are derived), its handler factory beside this file,
 * `lambdas/<id>.ts`, and its handler in the embedded wiring (src/embedded/attribution.ts),
 * which fails to compile until it names it.
 */
import type { Uses } from "../functions/uses.ts";
import { ATTRIBUTION_WORKER } from "./attribution.ts";
import type { MessageOf, WorkerDefinition } from "./worker.ts";

export const WORKERS = [ATTRIBUTION_WORKER] as const satisfies readonly (WorkerDefinition & {
  readonly uses: Uses;
})[];

export type WorkerId = (typeof WORKERS)[number]["id"];

/** The messages of the worker named `K`. */
export type WorkerMessage<K extends WorkerId> = MessageOf<
  Extract<(typeof WORKERS)[number], { id: K }>
>;

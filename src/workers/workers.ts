/**
 * The worker table: one row per queue-driven worker (./worker.ts says what a row holds). The
 * CDK app and the embedded runtime both build their queues and consumers from it, so a worker
 * exists on both runtimes or on neither. A new worker is a row here (naming what it uses, from
 * which its environment and grants on AWS are derived, and its composition) and its handler
 * factory beside this file.
 */

import * as z from "zod";
import type { HandlerRef } from "../functions/handler-ref.ts";
import type { Uses } from "../functions/uses.ts";
import { MAX_ATTEMPTS } from "../postbacks/retries.ts";
import { defineWorker, type MessageOf, type WorkerDefinition } from "./worker.ts";

/** The attribution worker (./attribution.ts). */
export const ATTRIBUTION_WORKER = defineWorker({
  id: "attribute",
  handler: "workers/attribution-worker.ts#attributionWorkerFunction",
  description: "Matches each new install to the touch that caused it, or finds it organic.",
  message: z.object({ appId: z.string(), serviceId: z.string() }),
  maxAttempts: 5,
  retryAfterSeconds: 30,
  batchSize: 10,
  // A job waits on the store and the disk: more at once keep a burst's queue short.
  concurrency: 32,
  // Unbounded, a burst's queue grows faster than it is matched (one process both takes
  // installs in and matches them) and the wait from the 202 grows with it; bounded at the
  // concurrency, installs are taken in more slowly and the last is matched no later. The
  // attribution benchmark's install-to-resolved figures: docs/benchmarks.md#attribution.
  maxBacklog: 32,
  // Each match takes about a tenth of a second: 50 functions of 10 messages clear a backlog of
  // thousands of installs a minute.
  maxConcurrency: 50,
  memoryMb: 512,
  timeoutSeconds: 30,
  uses: {
    tables: {
      apps: "get",
      installs: "match",
      touches: "match",
      attributions: "work",
      deletions: "lookup",
      postbackConfigs: "read",
      outbox: "enqueue",
    },
    streams: { attributions: "put", events: "put" },
    // An install's cost, when a CPI touch wins it, goes to the lake in USD too.
    rates: "read",
    // Each resolved install's postbacks and webhooks (src/postbacks/triggers.ts).
    queues: { postback: "send" },
    appleAds: "call",
  },
});

/** The postback worker (./postback-worker.ts): one attempt of one send of the outbox a message. */
export const POSTBACK_WORKER = defineWorker({
  id: "postback",
  handler: "workers/postback-worker.ts#postbackWorkerFunction",
  description:
    "Sends one postback or webhook of the outbox, logs the attempt, and queues the next one when it may succeed later: a partner's 15 minutes on, a webhook's over a day.",
  message: z.object({
    appId: z.string(),
    sendId: z.string(),
    // A webhook makes more attempts than a partner (../postbacks/retries.ts).
    attempt: z.number().int().min(1).max(MAX_ATTEMPTS),
  }),
  // Deliveries of one message (one attempt): a failure of the service's own (a store out of
  // reach), not a partner's, which the worker answers itself with a message for later.
  maxAttempts: 5,
  retryAfterSeconds: 60,
  batchSize: 10,
  // An attempt mostly waits on a partner's answer (10 s at most): many at once, and at most
  // half of them requests to one configuration (./postback-worker.ts), so a slow partner
  // leaves room to the rest.
  concurrency: 32,
  // No backlog bound: ingestion and attribution, which queue sends, never wait on partners.
  maxConcurrency: 20,
  memoryMb: 256,
  // A batch's attempts run side by side, each within 10 s.
  timeoutSeconds: 30,
  uses: {
    tables: {
      apps: "get",
      installs: "get",
      attributions: "get",
      deletions: "lookup",
      postbackConfigs: "read",
      outbox: "work",
      deliveryLog: "write",
    },
    queues: { postback: "send" },
    postbackSecrets: "open",
    settings: ["postbacksAllowLoopback"],
  },
});

export const WORKERS = [
  ATTRIBUTION_WORKER,
  POSTBACK_WORKER,
] as const satisfies readonly (WorkerDefinition & {
  readonly handler: HandlerRef;
  readonly uses: Uses;
})[];

export type WorkerId = (typeof WORKERS)[number]["id"];

/** The messages of the worker named `K`. */
export type WorkerMessage<K extends WorkerId> = MessageOf<
  Extract<(typeof WORKERS)[number], { id: K }>
>;

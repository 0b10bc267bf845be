/**
 * The table-stream workers: functions fed by a DynamoDB table's stream of new items, on AWS
 * only, where a write that must answer fast is the one write, and what follows from it is done
 * from the table's stream rather than in the request (lib/table-stream-workers.ts builds each
 * row's function, its event source with the row's filter, and a failure queue with an alarm).
 * The embedded runtime does each row's work its own way, which the row names (`embedded`).
 */
import type { TableId } from "../adapters/dynamodb/table-definitions.ts";
import type { HandlerRef } from "../functions/handler-ref.ts";
import type { Uses } from "../functions/uses.ts";

export interface TableStreamWorkerDefinition<Id extends string = string> {
  readonly id: Id;
  readonly handler: HandlerRef;
  readonly description: string;
  /** The table whose new items feed it. */
  readonly table: TableId;
  /** The new items it takes: each attribute named must hold this string. */
  readonly newItems: Readonly<Record<string, string>>;
  /** Items a function takes at once, and how long the event source gathers them at most. */
  readonly batchSize: number;
  readonly batchWindowSeconds: number;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly uses: Uses;
  /** What does this work on the embedded runtime. */
  readonly embedded: { readonly instead: string };
}

export const TABLE_STREAM_WORKERS = [
  {
    id: "tap-lake",
    handler: "workers/tap-lake.ts#tapLakeFunction",
    description: "Writes each tap the link host stored to the lake's touches stream.",
    table: "touches",
    // Taps only: the touches route puts a network's touches on the lake's stream itself (and
    // takes them back out of the store when the stream refuses them).
    newItems: { source: "link" },
    // A click is in the lake within a few seconds anyway (Firehose buffers minutes): larger
    // batches make fewer invocations and fuller Firehose records.
    batchSize: 500,
    batchWindowSeconds: 5,
    memoryMb: 256,
    timeoutSeconds: 60,
    // The rates: a tap's cost goes to the lake in USD too.
    uses: { streams: { touches: "put" }, rates: "read" },
    embedded: {
      instead:
        "the link host's click log (src/adapters/local-click-log/click-log.ts), which writes the touch store and the lake's stream itself",
    },
  },
] as const satisfies readonly TableStreamWorkerDefinition[];

export type TableStreamWorkerId = (typeof TABLE_STREAM_WORKERS)[number]["id"];

/**
 * The table-stream workers, one set of resources per row of src/workers/table-stream-workers.ts:
 * the function, fed by its table's stream of new items through an event source that lets only
 * the row's items through (so an expiry, an update or another kind of item invokes nothing),
 * and the queue where a batch that failed until its records were too old is named, with an
 * alarm on any message in it (lib/operations.ts watches the worker falling behind its stream).
 * The tables a row names are made with a stream of new images (lib/dynamodb-tables.ts).
 */
import { Duration } from "aws-cdk-lib";
import type { Alarm } from "aws-cdk-lib/aws-cloudwatch";
import type { Table } from "aws-cdk-lib/aws-dynamodb";
import { FilterCriteria, FilterRule, StartingPosition } from "aws-cdk-lib/aws-lambda";
import { DynamoEventSource, SqsDlq } from "aws-cdk-lib/aws-lambda-event-sources";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import type { TableId } from "../src/adapters/dynamodb/table-definitions.ts";
import type { TableStreamWorkerDefinition } from "../src/workers/table-stream-workers.ts";
import { type FunctionBinding, rowFunction } from "./api.ts";
import { failureQueue } from "./failure-queue.ts";
import { pascal } from "./naming.ts";
import type { EntryResolver, ServiceFunction } from "./service-function.ts";

/**
 * How long a failing batch is tried again (halved at each failure) before it is named in the
 * failure queue: a stream keeps its records 24 hours, and an outage of the worker's destination
 * (a Firehose quota, a throttled account) up to this long loses nothing.
 */
export const TABLE_STREAM_MAX_RECORD_AGE = Duration.hours(20);

export interface TableStreamWorker {
  readonly function: ServiceFunction;
  readonly failures: Queue;
  readonly failureAlarm: Alarm;
}

export interface TableStreamWorkersProps<W extends TableStreamWorkerDefinition> {
  readonly workers: readonly W[];
  readonly bindings: { readonly [K in W["id"]]: FunctionBinding };
  readonly tables: Readonly<Record<TableId, Table>>;
  readonly entryFor?: EntryResolver;
  readonly logRetention?: RetentionDays;
}

/** The event source's filter of a row: new items whose named attributes hold its strings. */
export const newItemsFilter = (worker: TableStreamWorkerDefinition) =>
  FilterCriteria.filter({
    eventName: FilterRule.isEqual("INSERT"),
    dynamodb: {
      NewImage: Object.fromEntries(
        Object.entries(worker.newItems).map(([name, value]) => [
          name,
          { S: FilterRule.isEqual(value) },
        ]),
      ),
    },
  });

export class TableStreamWorkers<W extends TableStreamWorkerDefinition> extends Construct {
  readonly workers: ReadonlyMap<W["id"], TableStreamWorker>;

  constructor(scope: Construct, id: string, props: TableStreamWorkersProps<W>) {
    super(scope, id);
    const workers = new Map<W["id"], TableStreamWorker>();
    for (const worker of props.workers) {
      const workerId: W["id"] = worker.id;
      workers.set(workerId, this.worker(worker, props.bindings[workerId], props));
    }
    this.workers = workers;
  }

  private worker(
    worker: W,
    binding: FunctionBinding,
    props: TableStreamWorkersProps<W>,
  ): TableStreamWorker {
    const scope = new Construct(this, pascal(worker.id));
    const { queue: failures, alarm: failureAlarm } = failureQueue(scope, {
      queueId: "Failures",
      alarmId: "FailuresAlarm",
      is: "the worker's failure destination",
      alarmDescription: `A batch of the ${worker.id} worker failed until its records were ${TABLE_STREAM_MAX_RECORD_AGE.toHumanString()} old: their place in the stream is named in the failure queue`,
    });
    const fn = rowFunction(scope, "Worker", worker, binding, props);
    fn.function.addEventSource(
      new DynamoEventSource(props.tables[worker.table], {
        // From the oldest record the stream holds (24 hours): a worker made after its table
        // starts with what is there.
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: worker.batchSize,
        maxBatchingWindow: Duration.seconds(worker.batchWindowSeconds),
        bisectBatchOnError: true,
        // No count of attempts (Lambda's default: until the records are too old), so that the
        // age alone says when a batch is given up.
        maxRecordAge: TABLE_STREAM_MAX_RECORD_AGE,
        onFailure: new SqsDlq(failures),
        filters: [newItemsFilter(worker)],
      }),
    );
    return { function: fn, failures, failureAlarm };
  }
}

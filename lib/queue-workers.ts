/**
 * The queue-driven workers, one set of resources per row of the worker table
 * (src/workers/workers.ts): an SQS queue, its dead-letter queue with an alarm on any message in
 * it, and its function fed by the queue with partial batch responses, so only the failed
 * messages come again. Both queues are encrypted with SQS-managed keys and refuse plain HTTP.
 */
import { Duration } from "aws-cdk-lib";
import type { Alarm } from "aws-cdk-lib/aws-cloudwatch";
import type { IRole } from "aws-cdk-lib/aws-iam";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { visibilityTimeoutSeconds, type WorkerDefinition } from "../src/workers/worker.ts";
import { type FunctionBinding, rowFunction } from "./api.ts";
import { failureQueue } from "./failure-queue.ts";
import { pascal } from "./naming.ts";
import type { EntryResolver, ServiceFunction } from "./service-function.ts";

export interface QueueWorker {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly function: ServiceFunction;
  /** Fires when a message has moved to the dead-letter queue: work that was never done. */
  readonly deadLetterAlarm: Alarm;
}

type Bindings<W extends WorkerDefinition> = { readonly [K in W["id"]]: FunctionBinding };

export interface QueueWorkersProps<W extends WorkerDefinition> {
  readonly workers: readonly W[];
  /**
   * One binding per worker: its function's environment, grants and data files. Given the
   * workers' queues when a worker sends to a queue of the set (its own, to try again later).
   */
  readonly bindings: Bindings<W> | ((queueOf: (worker: W["id"]) => Queue) => Bindings<W>);
  readonly entryFor?: EntryResolver;
  readonly logRetention?: RetentionDays;
  /** How long a message waits in a dead-letter queue before SQS drops it (at most 14 days). */
  readonly deadLetterRetention?: Duration;
}

export class QueueWorkers<W extends WorkerDefinition> extends Construct {
  readonly workers: ReadonlyMap<W["id"], QueueWorker>;

  constructor(scope: Construct, id: string, props: QueueWorkersProps<W>) {
    super(scope, id);
    // Every queue first: a worker's function may send to any of them.
    const queues = new Map<W["id"], Omit<QueueWorker, "function">>();
    for (const worker of props.workers) queues.set(worker.id, this.queues(worker, props));
    const queueOf = (worker: W["id"]): Queue => {
      const found = queues.get(worker);
      if (!found) throw new Error(`No queue-driven worker ${worker}`);
      return found.queue;
    };
    const bindings =
      typeof props.bindings === "function" ? props.bindings(queueOf) : props.bindings;
    const workers = new Map<W["id"], QueueWorker>();
    for (const worker of props.workers) {
      const id: W["id"] = worker.id;
      const made = queues.get(id);
      if (!made) throw new Error(`No queue-driven worker ${id}`);
      workers.set(id, {
        ...made,
        function: this.function(worker, made.queue, bindings[id], props),
      });
    }
    this.workers = workers;
  }

  /** The queue a worker reads, for the producers that feed it. */
  queueOf(worker: W["id"]): Queue {
    const found = this.workers.get(worker);
    if (!found) throw new Error(`No queue-driven worker ${worker}`);
    return found.queue;
  }

  /** Send messages to a worker's queue, and nothing else on it. */
  grantSend(role: IRole, worker: W["id"]): void {
    this.queueOf(worker).grantSendMessages(role);
  }

  private queues(worker: W, props: QueueWorkersProps<W>): Omit<QueueWorker, "function"> {
    const scope = new Construct(this, pascal(worker.id));
    const { queue: deadLetters, alarm: deadLetterAlarm } = failureQueue(scope, {
      queueId: "DeadLetters",
      alarmId: "DeadLettersAlarm",
      is: "the dead-letter queue of the worker's queue",
      alarmDescription: `Messages of the ${worker.id} worker moved to its dead-letter queue after ${worker.maxAttempts} attempts.`,
      ...(props.deadLetterRetention ? { retention: props.deadLetterRetention } : {}),
    });
    const queue = new Queue(scope, "Queue", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds(worker)),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: worker.maxAttempts },
    });
    return { queue, deadLetters, deadLetterAlarm };
  }

  private function(
    worker: W,
    queue: Queue,
    binding: FunctionBinding,
    props: QueueWorkersProps<W>,
  ): ServiceFunction {
    const scope = queue.node.scope;
    if (!(scope instanceof Construct)) throw new Error(`No scope for the ${worker.id} worker`);
    const fn = rowFunction(scope, "Worker", worker, binding, props);
    fn.function.addEventSource(
      new SqsEventSource(queue, {
        batchSize: worker.batchSize,
        maxConcurrency: worker.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    return fn;
  }
}

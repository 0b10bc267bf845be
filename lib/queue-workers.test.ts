import { Match, Template } from "aws-cdk-lib/assertions";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { AwsSolutionsChecks } from "cdk-nag";
import { beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { defineWorker } from "../src/workers/worker.ts";
import { QueueWorkers } from "./queue-workers.ts";
import { lambdaEntry } from "./service-function.ts";
import { actionsOf, statementsOfRole, testStack } from "./stack.test-support.ts";

const worker = defineWorker({
  id: "match-installs",
  description: "A worker of tests.",
  message: z.object({ serviceId: z.string() }),
  maxAttempts: 4,
  retryAfterSeconds: 30,
  batchSize: 5,
  maxConcurrency: 20,
  memoryMb: 512,
  timeoutSeconds: 20,
});

let template: Template;
let workers: QueueWorkers<typeof worker>;
let producer: Role;
const granted: string[] = [];

beforeAll(() => {
  const stack = testStack();
  workers = new QueueWorkers(stack, "Workers", {
    workers: [worker],
    bindings: {
      "match-installs": {
        environment: { TABLE: "installs" },
        grant: (role) => granted.push(role.node.path),
      },
    },
    // Bundling is skipped in tests; any existing entry stands in for the worker's.
    entryFor: () => lambdaEntry("openapi"),
  });
  producer = new Role(stack, "Producer", {
    assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
  });
  workers.grantSend(producer, "match-installs");
  template = Template.fromStack(stack);
});

const resolve = (value: unknown) => workers.queueOf("match-installs").stack.resolve(value);

describe("queue-driven workers", () => {
  it("give each worker an encrypted queue whose failed messages go to a dead-letter queue", () => {
    const found = workers.workers.get("match-installs");
    template.hasResourceProperties("AWS::SQS::Queue", {
      SqsManagedSseEnabled: true,
      // Six times the function's timeout, as AWS advises for a queue feeding a function.
      VisibilityTimeout: 120,
      RedrivePolicy: {
        deadLetterTargetArn: resolve(found?.deadLetters.queueArn),
        maxReceiveCount: 4,
      },
    });
    template.hasResourceProperties("AWS::SQS::Queue", {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    // enforceSSL: both queues refuse requests without TLS.
    template.resourcePropertiesCountIs(
      "AWS::SQS::QueuePolicy",
      {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: "Deny",
              Condition: { Bool: { "aws:SecureTransport": "false" } },
            }),
          ]),
        },
      },
      2,
    );
  });

  it("feed the worker's function with partial batch responses, in batches of its size, at most its concurrency at once", () => {
    const found = workers.workers.get("match-installs");
    template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      EventSourceArn: resolve(found?.queue.queueArn),
      FunctionName: resolve(found?.function.function.functionName),
      BatchSize: 5,
      ScalingConfig: { MaximumConcurrency: 20 },
      FunctionResponseTypes: ["ReportBatchItemFailures"],
    });
    template.hasResourceProperties("AWS::Lambda::Function", {
      Timeout: 20,
      MemorySize: 512,
      Environment: { Variables: Match.objectLike({ TABLE: "installs" }) },
    });
    expect(granted).toEqual([found?.function.role.node.path]);
  });

  it("alarm on any message in the dead-letter queue", () => {
    const found = workers.workers.get("match-installs");
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "ApproximateNumberOfMessagesVisible",
      Namespace: "AWS/SQS",
      Dimensions: [{ Name: "QueueName", Value: resolve(found?.deadLetters.queueName) }],
      Threshold: 1,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      Statistic: "Maximum",
    });
  });

  it("let a producer send to the queue and do nothing else with it", () => {
    const statements = statementsOfRole(template, producer);
    expect(statements.flatMap(actionsOf).sort()).toEqual([
      "sqs:GetQueueAttributes",
      "sqs:GetQueueUrl",
      "sqs:SendMessage",
    ]);
    expect(
      statements.every(
        (s) =>
          JSON.stringify(s.Resource) ===
          JSON.stringify(resolve(workers.queueOf("match-installs").queueArn)),
      ),
    ).toBe(true);
  });

  it("pass cdk-nag's AwsSolutions rules", () => {
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(
      workers.queueOf("match-installs").stack,
    );
    const findings = report.violations
      .filter((v) => v.ruleName.includes("SQS"))
      .map((v) => `${v.ruleName}: ${v.description}`);
    expect(findings).toEqual([]);
  });
});

import { Match, type Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { CLAIM_KEY_PREFIX } from "../src/adapters/dynamodb/table-definitions.ts";
import { SWEEP_AGE_MS } from "../src/attribution/sweep.ts";
import { ATTRIBUTION_WORKER } from "../src/workers/workers.ts";
import type { ServiceStack } from "./service-stack.ts";
import { actionsOf, asArray, sharedServiceStack, statementsOfRole } from "./stack.test-support.ts";

let stack: ServiceStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = sharedServiceStack());
});

/** `action on resource` for every grant of a role, logs and tracing left out. */
const grantsOf = (role: Parameters<typeof statementsOfRole>[1]) =>
  statementsOfRole(template, role).flatMap((statement) =>
    actionsOf(statement)
      .filter((action) => !/^(logs|xray):/.test(action))
      .flatMap((action) =>
        asArray(statement.Resource).map((resource) => `${action} on ${JSON.stringify(resource)}`),
      ),
  );

const arn = (value: unknown) => JSON.stringify(stack.resolve(value));

describe("attribution on AWS", () => {
  it("feeds the worker from a queue with a dead-letter queue, alarmed", () => {
    const worker = stack.workers.workers.get("attribute");
    if (!worker) throw new Error("no attribution worker");
    template.hasResourceProperties("AWS::SQS::Queue", {
      RedrivePolicy: {
        deadLetterTargetArn: stack.resolve(worker.deadLetters.queueArn),
        maxReceiveCount: ATTRIBUTION_WORKER.maxAttempts,
      },
    });
    template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      EventSourceArn: stack.resolve(worker.queue.queueArn),
      FunctionResponseTypes: ["ReportBatchItemFailures"],
    });
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "ApproximateNumberOfMessagesVisible",
      Dimensions: [{ Name: "QueueName", Value: stack.resolve(worker.deadLetters.queueName) }],
      Threshold: 1,
    });
  });

  it("lets the worker read what matching reads and write only the attribution, the lake, the outbox and its clicks' claims", () => {
    const worker = stack.workers.workers.get("attribute");
    if (!worker) throw new Error("no attribution worker");
    const grants = grantsOf(worker.function.role);
    const tables = stack.tables;
    for (const index of [
      tables.indexArn("touches", "byMaid"),
      tables.indexArn("touches", "byIp"),
      tables.indexArn("installs", "byIdfv"),
    ]) {
      expect(grants).toContain(`dynamodb:Query on ${arn(index)}`);
    }
    expect(grants).toContain(`dynamodb:UpdateItem on ${arn(tables.table.attributions.tableArn)}`);
    const writes = grants.filter((grant) => /dynamodb:(Put|Update|Delete|BatchWrite)/.test(grant));
    // A resolved install's sends are added to the outbox (a conditional put), never changed; the
    // winning click is claimed for the install, and let go if the install was purged meanwhile.
    expect(writes.sort()).toEqual(
      [
        `dynamodb:UpdateItem on ${arn(tables.table.attributions.tableArn)}`,
        `dynamodb:PutItem on ${arn(tables.table.outbox.tableArn)}`,
        `dynamodb:PutItem on ${arn(tables.table.touches.tableArn)}`,
        `dynamodb:DeleteItem on ${arn(tables.table.touches.tableArn)}`,
      ].sort(),
    );
    // The claim's put and delete reach claims only, never a touch.
    const claims = statementsOfRole(template, worker.function.role).filter(
      (statement) =>
        (actionsOf(statement).includes("dynamodb:PutItem") ||
          actionsOf(statement).includes("dynamodb:DeleteItem")) &&
        JSON.stringify(statement.Resource) === arn(tables.table.touches.tableArn),
    );
    expect(claims).toHaveLength(1);
    expect(claims[0]?.Condition).toEqual({
      "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [`${CLAIM_KEY_PREFIX}*`] },
    });
    const sends = grants.filter((grant) => grant.startsWith("sqs:SendMessage"));
    expect(sends).toEqual([
      `sqs:SendMessage on ${arn(stack.workers.queueOf("postback").queueArn)}`,
    ]);
    expect(grants.some((grant) => grant.startsWith("dynamodb:Scan"))).toBe(false);
    const firehose = grants.filter((grant) => grant.startsWith("firehose:"));
    expect(firehose.length).toBeGreaterThan(0);
    for (const grant of firehose) {
      expect(
        grant.endsWith(arn(stack.ingest.streams.attributions.attrArn)) ||
          grant.endsWith(arn(stack.ingest.streams.events.attrArn)),
        grant,
      ).toBe(true);
    }
  });

  it("sweeps unfinished attributions on a schedule, reading only the open index", () => {
    template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: `rate(${SWEEP_AGE_MS / 60_000} minutes)`,
      Targets: Match.arrayWith([
        Match.objectLike({
          Arn: stack.resolve(stack.attributionSweep.function.function.functionArn),
        }),
      ]),
    });
    const grants = grantsOf(stack.attributionSweep.function.role);
    expect(grants.filter((grant) => grant.startsWith("dynamodb:"))).toEqual([
      `dynamodb:Query on ${arn(stack.tables.indexArn("attributions", "open"))}`,
    ]);
    expect(grants.some((grant) => grant.startsWith("sqs:SendMessage"))).toBe(true);
  });

  it("lets the SDKs' read get an attribution and nothing more of it", () => {
    const fn = stack.api.routeFunctions.attribution;
    if (!fn) throw new Error("no attribution route");
    const grants = grantsOf(fn.role).filter((grant) => grant.includes("ttributions"));
    expect(grants).toEqual([expect.stringMatching(/^dynamodb:GetItem on /)]);
  });
});

import { Duration } from "aws-cdk-lib";
import { Match, type Template } from "aws-cdk-lib/assertions";
import { AwsSolutionsChecks } from "cdk-nag";
import { beforeAll, describe, expect, it } from "vitest";
import { ServiceTables } from "./dynamodb-tables.ts";
import { Lake } from "./lake.ts";
import { LakeStreams } from "./lake-streams.ts";
import { PurgeJob } from "./purge-job.ts";
import type { ServiceStack } from "./service-stack.ts";
import {
  actionsOf,
  FAILURE_DESTINATION,
  propertiesOf,
  sharedServiceStack,
  statementsOfRole,
  testStack,
} from "./stack.test-support.ts";

let stack: ServiceStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = sharedServiceStack());
});

const resolve = (value: unknown) => stack.resolve(value);

describe("purge job", () => {
  it("runs every 10 minutes on an EventBridge schedule, tried twice more on failure, then to its failure queue", () => {
    const fn = stack.purge.function.function;
    template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "rate(10 minutes)",
      State: "ENABLED",
      Targets: [{ Arn: resolve(fn.functionArn), Id: "Target0" }],
    });
    template.hasResourceProperties("AWS::Lambda::Permission", {
      Action: "lambda:InvokeFunction",
      FunctionName: resolve(fn.functionArn),
      Principal: "events.amazonaws.com",
      SourceArn: resolve(stack.purge.rule.ruleArn),
    });
    template.hasResourceProperties("AWS::Lambda::EventInvokeConfig", {
      FunctionName: resolve(fn.functionName),
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
  });

  it("waits out Firehose's buffer, never overlaps itself, and says how long a deletion takes", () => {
    const props = propertiesOf(
      template.toJSON().Resources[resolve(stack.purge.function.function.functionName).Ref],
    );
    expect(props.Timeout).toBe(540);
    expect(props.MemorySize).toBe(2048);
    expect(props.Environment).toEqual({
      Variables: {
        DELETIONS_TABLE: resolve(stack.tables.table.deletions.tableName),
        INSTALLS_TABLE: resolve(stack.tables.table.installs.tableName),
        CUSTOMER_USERS_TABLE: resolve(stack.tables.table.customerUsers.tableName),
        ATTRIBUTIONS_TABLE: resolve(stack.tables.table.attributions.tableName),
        TOUCHES_TABLE: resolve(stack.tables.table.touches.tableName),
        SNAPSHOTS_TABLE: resolve(stack.tables.table.snapshots.tableName),
        OUTBOX_TABLE: resolve(stack.tables.table.outbox.tableName),
        DELIVERY_LOG_TABLE: resolve(stack.tables.table.deliveryLog.tableName),
        LAKE_BUCKET: resolve(stack.lake.bucket.bucketName),
        RESULTS_BUCKET: resolve(stack.lake.resultsBucket.bucketName),
        // Firehose's 5-minute buffering plus a minute for the delivery.
        MIN_REQUEST_AGE_SECONDS: "360",
      },
    });
    expect(stack.purge.completionBound.toMinutes()).toBe(25);
  });

  it("refuses a schedule no longer than Firehose's buffering, or a timeout as long as it", () => {
    const build = (props: { schedule?: Duration; timeout?: Duration }) => {
      const scope = testStack();
      const lake = new Lake(scope, "Lake");
      const ingest = new LakeStreams(scope, "Ingest", {
        lake,
        bufferInterval: Duration.minutes(10),
      });
      return new PurgeJob(scope, "Purge", {
        tables: new ServiceTables(scope, "Tables"),
        lake,
        streamBufferInterval: ingest.bufferInterval,
        ...props,
      });
    };
    expect(() => build({})).toThrow(/must exceed Firehose's buffering interval \(600 s\)/);
    expect(() => build({ schedule: Duration.minutes(15), timeout: Duration.minutes(15) })).toThrow(
      /shorter than its schedule/,
    );
    const job = build({ schedule: Duration.minutes(15) });
    expect(job.minRequestAge.toSeconds()).toBe(660);
    expect(job.completionBound.toMinutes()).toBe(11 + 15 + 14);
  });

  it("grants exactly the purge's operations, each on its own table, index or prefix", () => {
    const { tables, lake } = stack;
    const statements = statementsOfRole(template, stack.purge.function.role).filter((s) =>
      actionsOf(s).some((a) => a.startsWith("dynamodb:") || a.startsWith("s3:")),
    );
    const objects = (bucket: typeof lake.bucket, prefix: string) =>
      resolve(bucket.arnForObjects(prefix));
    expect(statements).toEqual([
      {
        Effect: "Allow",
        Action: "dynamodb:Query",
        Resource: [
          resolve(`${tables.table.deletions.tableArn}/index/open`),
          resolve(`${tables.table.customerUsers.tableArn}/index/byInstall`),
          resolve(`${tables.table.snapshots.tableArn}/index/byApp`),
          resolve(`${tables.table.outbox.tableArn}/index/byInstall`),
          resolve(`${tables.table.deliveryLog.tableArn}/index/byInstall`),
        ],
      },
      // A full tombstones item makes room by the app's requests listed long enough.
      {
        Effect: "Allow",
        Action: "dynamodb:Query",
        Resource: resolve(`${tables.table.deletions.tableArn}/index/byApp`),
      },
      {
        Effect: "Allow",
        Action: "dynamodb:UpdateItem",
        Resource: resolve(tables.table.deletions.tableArn),
      },
      {
        Effect: "Allow",
        Action: "dynamodb:GetItem",
        Resource: resolve(tables.table.deletions.tableArn),
        Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["app#*"] } },
      },
      // The app's pass a run stopped, by its key's prefix only: never a request.
      {
        Effect: "Allow",
        Action: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"],
        Resource: resolve(tables.table.deletions.tableArn),
        Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["pass#*"] } },
      },
      // Whether a request's install was ever stored (none: no lake pass), then the install;
      // the install's attribution, which names the click whose claim it lets go.
      {
        Effect: "Allow",
        Action: ["dynamodb:GetItem", "dynamodb:DeleteItem"],
        Resource: [
          resolve(tables.table.installs.tableArn),
          resolve(tables.table.attributions.tableArn),
        ],
      },
      {
        Effect: "Allow",
        Action: "dynamodb:DeleteItem",
        Resource: [
          resolve(tables.table.customerUsers.tableArn),
          resolve(tables.table.outbox.tableArn),
          resolve(tables.table.deliveryLog.tableArn),
        ],
      },
      {
        Effect: "Allow",
        Action: "dynamodb:PutItem",
        Resource: resolve(tables.table.customerUsers.tableArn),
        Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["#purged#*"] } },
      },
      {
        Effect: "Allow",
        Action: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"],
        Resource: resolve(tables.table.touches.tableArn),
        Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["claim#*"] } },
      },
      {
        Effect: "Allow",
        Action: "s3:ListBucketVersions",
        Resource: resolve(lake.bucket.bucketArn),
        Condition: {
          StringLike: {
            "s3:prefix": [
              "events/*",
              "firehose-errors/events/*",
              "attributions/*",
              "firehose-errors/attributions/*",
              "sessions/*",
              "firehose-errors/sessions/*",
            ],
          },
        },
      },
      {
        Effect: "Allow",
        Action: ["s3:GetObject", "s3:GetObjectVersion", "s3:PutObject", "s3:DeleteObjectVersion"],
        Resource: [
          objects(lake.bucket, "events/*"),
          objects(lake.bucket, "firehose-errors/events/*"),
          objects(lake.bucket, "attributions/*"),
          objects(lake.bucket, "firehose-errors/attributions/*"),
          objects(lake.bucket, "sessions/*"),
          objects(lake.bucket, "firehose-errors/sessions/*"),
        ],
      },
      {
        Effect: "Allow",
        Action: "s3:DeleteObject",
        Resource: objects(lake.resultsBucket, "athena/*"),
      },
    ]);
  });

  it("has no wildcard action, no scan, and nothing beyond its logs and traces", () => {
    const all = statementsOfRole(template, stack.purge.function.role);
    const actions = all.flatMap(actionsOf);
    expect(actions.filter((a) => a.includes("*"))).toEqual([]);
    expect(actions.filter((a) => /Scan|Batch/.test(a))).toEqual([]);
    // Three puts, each by its key's prefix: the saved passes of the deletions table, the marks
    // of purged customer user mappings, and a deleted twin's claim on a click handed to the
    // click's own device.
    const writes = all.filter((statement) => actionsOf(statement).includes("dynamodb:PutItem"));
    expect(writes.map((statement) => [statement.Resource, statement.Condition])).toEqual([
      [
        resolve(stack.tables.table.deletions.tableArn),
        { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["pass#*"] } },
      ],
      [
        resolve(stack.tables.table.customerUsers.tableArn),
        { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["#purged#*"] } },
      ],
      [
        resolve(stack.tables.table.touches.tableArn),
        { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["claim#*"] } },
      ],
    ]);
    // Four reads: the tombstones items and the saved passes of the deletions table, each by
    // its key's prefix, an install and its attribution by their keys, and a click's claim.
    const reads = all.filter((statement) => actionsOf(statement).includes("dynamodb:GetItem"));
    expect(reads.map((statement) => [statement.Resource, statement.Condition])).toEqual([
      [
        resolve(stack.tables.table.deletions.tableArn),
        { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["app#*"] } },
      ],
      [
        resolve(stack.tables.table.deletions.tableArn),
        { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["pass#*"] } },
      ],
      [
        [
          resolve(stack.tables.table.installs.tableArn),
          resolve(stack.tables.table.attributions.tableArn),
        ],
        undefined,
      ],
      [
        resolve(stack.tables.table.touches.tableArn),
        { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["claim#*"] } },
      ],
    ]);
    const others = actions.filter((a) => !a.startsWith("dynamodb:") && !a.startsWith("s3:"));
    expect(new Set(others.map((a) => a.split(":")[0]))).toEqual(new Set(["logs", "xray", "sqs"]));
    // SQS: only sending a failed run to its failure queue.
    expect(new Set(others.filter((a) => a.startsWith("sqs:")))).toEqual(FAILURE_DESTINATION);
  });

  it("passes cdk-nag's AWS Solutions checks", () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    // Logical ids follow construct paths: the job's resources all start with "Purge".
    const atPurge = report.violations.filter((v) =>
      v.violatingResources.some((r) => r.resourceLogicalId?.startsWith("Purge")),
    );
    expect(atPurge).toEqual([]);
    expect(report.success).toBe(true);
  });
});

/**
 * A Lambda function of this service: `lambdas/<name>.ts` bundled by esbuild as ESM for Node 22
 * on arm64, with its own role (no AWS managed policy: it may write only its own log group),
 * its own log group with a retention, and X-Ray tracing.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Duration } from "aws-cdk-lib";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Architecture, LoggingFormat, Runtime, Tracing } from "aws-cdk-lib/aws-lambda";
import { NodejsFunction, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { acknowledge, acknowledgeWildcardResource } from "./nag.ts";

export const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Resolves a function name to its entry file. Tests may point it elsewhere. */
export type EntryResolver = (name: string) => string;

/** `lambdas/<name>.ts` in this project: route id X is `lambdas/X.ts`. */
export const lambdaEntry: EntryResolver = (name) =>
  fileURLToPath(new URL(`../lambdas/${name}.ts`, import.meta.url));

/** Node 22: LTS, supported by Lambda, and what the bundle targets. */
export const FUNCTION_RUNTIME = Runtime.NODEJS_22_X;

export interface ServiceFunctionProps {
  /** `lambdas/<name>.ts`, exporting `handler`. */
  readonly name: string;
  readonly memoryMb: number;
  readonly timeout: Duration;
  readonly environment: Record<string, string>;
  readonly entryFor?: EntryResolver;
  readonly logRetention?: RetentionDays;
}

export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const entry = (props.entryFor ?? lambdaEntry)(props.name);
    if (!existsSync(entry)) throw new Error(`Lambda entry ${entry} does not exist`);

    const logGroup = new LogGroup(this, "Logs", {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    this.role = new Role(this, "Role", {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
      description: `Runs lambdas/${props.name}.ts`,
    });
    logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, "Function", {
      entry,
      handler: "handler",
      runtime: FUNCTION_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb,
      timeout: props.timeout,
      environment: props.environment,
      role: this.role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      tracing: Tracing.ACTIVE,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: fileURLToPath(new URL("../package-lock.json", import.meta.url)),
      bundling: {
        format: OutputFormat.ESM,
        target: "node22",
        mainFields: ["module", "main"],
        // The SDK version is the one the code was tested with, not the runtime's.
        bundleAwsSDK: true,
        // Unminified with names kept: stack traces stay readable without source maps, which
        // would need NODE_OPTIONS outside the environment contract.
        minify: false,
        keepNames: true,
        // CommonJS dependencies bundled into ESM still call require().
        banner:
          "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
    });

    acknowledgeWildcardResource(
      this.role,
      "*",
      "X-Ray PutTraceSegments and PutTelemetryRecords support no resource-level permissions (added by active tracing).",
    );
    acknowledge(
      this.function,
      "AwsSolutions-L1",
      "Pinned to Node.js 22 (LTS), the version the bundle targets and the project tests on; moving to a newer runtime is a deliberate change.",
    );
  }
}

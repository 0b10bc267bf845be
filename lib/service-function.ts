/**
 * A Lambda function of this service: its entry (written from its manifest row by
 * lambdas/entries.ts) bundled by esbuild as ESM for Node 22
 * on arm64, with its own role (no AWS managed policy: it may write only its own log group),
 * its own log group with a retention, and X-Ray tracing. Data files a function reads at
 * start-up are copied next to its bundle, under /var/task.
 */
import { existsSync } from "node:fs";
import { basename, isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Duration } from "aws-cdk-lib";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import {
  Architecture,
  type CfnFunction,
  LoggingFormat,
  Runtime,
  Tracing,
} from "aws-cdk-lib/aws-lambda";
import { NodejsFunction, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import type { BuildOptions } from "esbuild";
import { writeEntry } from "../lambdas/entries.ts";
import { acknowledge, acknowledgeWildcardResource } from "./nag.ts";
import { DEFAULT_SETTINGS } from "./settings.ts";

export const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Resolves a function name to its entry file. Tests may point it elsewhere. */
export type EntryResolver = (name: string) => string;

/** A function's entry, written from its manifest row. */
export const lambdaEntry: EntryResolver = (name) => writeEntry(name);

/** Where Lambda unpacks a function's asset (LAMBDA_TASK_ROOT). */
export const TASK_ROOT = "/var/task";

/**
 * A file of this project shipped in a function's asset: copied after bundling to the asset's
 * root under its own name, so the function reads it at `bundledPath(file)`.
 */
export type BundledFile = string;

/** Where a bundled file is on the function's file system. */
export const bundledPath = (file: BundledFile): string => `${TASK_ROOT}/${basename(file)}`;

/** A file's path relative to the project root, which is what bundling copies from. */
export const projectFile = (path: string | URL): BundledFile => {
  const absolute = typeof path === "string" ? path : fileURLToPath(path);
  const relativePath = relative(PROJECT_ROOT, absolute);
  if (relativePath.startsWith("..") || isAbsolute(relativePath)) {
    throw new Error(`${absolute} is outside the project, so bundling cannot copy it`);
  }
  return relativePath;
};

const shellQuote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

/** The afterBundling commands: `cp` each file to the asset's root (locally or in Docker). */
const copyCommands = (files: readonly BundledFile[], inputDir: string, outputDir: string) =>
  files.map(
    (file) =>
      `cp ${shellQuote(join(inputDir, file))} ${shellQuote(join(outputDir, basename(file)))}`,
  );

/** Node 22: LTS, supported by Lambda, and what the bundle targets. */
export const FUNCTION_RUNTIME = Runtime.NODEJS_22_X;

/**
 * Every function's bundle, as esbuild's API spells it: NodejsFunction's `bundling` below is
 * written from it (NodejsFunction adds `--bundle --platform=node` itself, and makes the AWS SDK
 * external when `bundleAwsSDK` is false), and the bench builds the same bundles with it.
 */
export const LAMBDA_BUILD_OPTIONS = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  mainFields: ["module", "main"],
  // The AWS SDK comes from the Lambda runtime (CDK's default), which keeps every bundle under
  // 1 MB: bundled, the SDK alone would be most of the export function (bundle sizes:
  // docs/benchmarks.md#ingestion). The code uses only
  // long-stable calls of the DynamoDB, S3, Athena, Firehose and KMS clients.
  external: ["@aws-sdk/*"],
  // Minified for size and cold starts, but with names kept so stack traces still name functions
  // and classes. No source maps: they would double the asset and need
  // NODE_OPTIONS=--enable-source-maps, outside the environment contract.
  minify: true,
  keepNames: true,
  sourcemap: false,
  // CommonJS dependencies bundled into ESM still call require().
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  // NodejsFunction runs esbuild from the project root (projectRoot below).
  absWorkingDir: PROJECT_ROOT,
  logLevel: "silent",
} as const satisfies BuildOptions;

export interface ServiceFunctionProps {
  /** The function's id in the manifest. */
  readonly name: string;
  readonly memoryMb: number;
  readonly timeout: Duration;
  readonly environment: Record<string, string>;
  readonly entryFor?: EntryResolver;
  readonly logRetention?: RetentionDays;
  /** Project files (see `projectFile`) to ship next to the bundle, at `bundledPath(file)`. */
  readonly assets?: readonly BundledFile[];
}

export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const entry = (props.entryFor ?? lambdaEntry)(props.name);
    if (!existsSync(entry)) throw new Error(`Lambda entry ${entry} does not exist`);
    const assets = props.assets ?? [];
    for (const file of assets) {
      if (!existsSync(join(PROJECT_ROOT, file))) {
        throw new Error(`The ${props.name} function ships ${file}, which does not exist`);
      }
    }
    const names = assets.map((file) => basename(file));
    // The bundle itself is index.mjs; every file lands in the same folder.
    const clash = names.find((n, i) => [...names.slice(0, i), "index.mjs"].includes(n));
    if (clash) throw new Error(`The ${props.name} function would ship two files named ${clash}`);

    const logGroup = new LogGroup(this, "Logs", {
      retention: props.logRetention ?? DEFAULT_SETTINGS.logRetention,
    });
    this.role = new Role(this, "Role", {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
      description: `Runs the ${props.name} function`,
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
        target: LAMBDA_BUILD_OPTIONS.target,
        mainFields: [...LAMBDA_BUILD_OPTIONS.mainFields],
        bundleAwsSDK: false,
        minify: LAMBDA_BUILD_OPTIONS.minify,
        keepNames: LAMBDA_BUILD_OPTIONS.keepNames,
        sourceMap: LAMBDA_BUILD_OPTIONS.sourcemap,
        banner: LAMBDA_BUILD_OPTIONS.banner.js,
        ...(assets.length > 0 && {
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (inputDir, outputDir) => copyCommands(assets, inputDir, outputDir),
          },
        }),
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

  /**
   * Keeps this much of the account's concurrency for the function alone (0: none), which is
   * also as much as it may ever use: no other function's burst can take it away.
   */
  reserveConcurrency(count: number): void {
    if (!Number.isInteger(count) || count < 0) {
      throw new Error(`The ${this.node.id} function's reserved concurrency must be a whole number`);
    }
    if (count === 0) return;
    (this.function.node.defaultChild as CfnFunction).reservedConcurrentExecutions = count;
  }
}

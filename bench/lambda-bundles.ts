/**
 * Each Lambda function's JS as the CDK ships it, and its cold import. The esbuild options
 * mirror lib/service-function.ts (NodejsFunction's `bundling` there, plus what NodejsFunction
 * adds itself: `--bundle --platform=node`, and no externals because `bundleAwsSDK` is true).
 * They are copied, not imported: that file builds them inline in the construct and imports
 * aws-cdk-lib, so keep the two in step when either changes.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type BuildOptions, build } from "esbuild";
import type { z } from "zod";
import { defaultCountryDatabase } from "../src/adapters/geoip/country-resolver.ts";
import {
  attributeEnv,
  attributionEnv,
  attributionSweepEnv,
  authorizerEnv,
  configEnv,
  deletionsEnv,
  exportEnv,
  fxRatesEnv,
  ingestEnv,
  linksEnv,
  openapiEnv,
  purgeEnv,
  touchesEnv,
  wellKnownEnv,
} from "../src/config/aws-env.ts";
import {
  LINK_HOST_ROUTES,
  type LinkHostRouteId,
  ROUTES,
  type RouteId,
} from "../src/http/routes.ts";
import { WORKERS, type WorkerId } from "../src/workers/workers.ts";

const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** lib/service-function.ts's bundling, as the esbuild JS API spells it. */
export const LAMBDA_BUILD_OPTIONS = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  mainFields: ["module", "main"],
  // bundleAwsSDK: true, so nothing is external.
  // As lib/service-function.ts: the AWS SDK comes from the Lambda runtime.
  external: ["@aws-sdk/*"],
  minify: true,
  keepNames: true,
  sourcemap: false,
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  // NodejsFunction runs esbuild from the project root (projectRoot there).
  absWorkingDir: PROJECT_ROOT,
  logLevel: "silent",
} as const satisfies BuildOptions;

/** Entries that are not routes: the authorizer, the scheduled jobs, the queue-driven workers. */
export type NonRouteFunction = "authorizer" | "purge" | "fx-rates" | "attribution-sweep" | WorkerId;

export type FunctionName = RouteId | LinkHostRouteId | NonRouteFunction;

/** Which environment schema each entry parses at start-up (lambdas/*.ts), every one listed. */
const FUNCTION_ENV_SCHEMAS: { readonly [K in FunctionName]: z.ZodObject } = {
  config: configEnv,
  "delete-install": deletionsEnv,
  "deletion-status": deletionsEnv,
  installs: ingestEnv,
  events: ingestEnv,
  "s2s-events": ingestEnv,
  export: exportEnv,
  openapi: openapiEnv,
  touches: touchesEnv,
  "create-link": linksEnv,
  "list-links": linksEnv,
  "get-link": linksEnv,
  "update-link": linksEnv,
  click: touchesEnv,
  "apple-app-site-association": wellKnownEnv,
  assetlinks: wellKnownEnv,
  attribution: attributionEnv,
  attribute: attributeEnv,
  "attribution-sweep": attributionSweepEnv,
  authorizer: authorizerEnv,
  purge: purgeEnv,
  "fx-rates": fxRatesEnv,
};

/** The data files the ingestion functions ship and read at start-up, here from the project. */
const DATA_FILES: Record<string, string> = {
  FX_RATES_FILE: join(PROJECT_ROOT, "data/ecb-eurofxref-hist.csv"),
  GEOIP_DB_FILE: defaultCountryDatabase(),
};

/**
 * Dummy values for every variable an entry requires (read from its schema, so a new variable
 * needs no change here); data-file variables point at the real files.
 */
export const functionEnv = (name: FunctionName): Record<string, string> => {
  const schema = FUNCTION_ENV_SCHEMAS[name];
  const env: Record<string, string> = {};
  for (const [variable, field] of Object.entries(schema.shape)) {
    if (field.safeParse(undefined).success) continue; // optional or defaulted
    const file = DATA_FILES[variable];
    if (!file && variable.endsWith("_FILE")) {
      throw new Error(`${name}: no real file known for ${variable}; add it to DATA_FILES`);
    }
    const dummy = variable.endsWith("_URL")
      ? "https://bench.example.com"
      : `bench-${variable.toLowerCase().replaceAll("_", "-")}`;
    env[variable] = file ?? dummy;
  }
  const parsed = schema.safeParse(env);
  if (!parsed.success)
    throw new Error(`${name}: dummy environment rejected: ${parsed.error.message}`);
  return env;
};

const NON_ROUTE_FUNCTIONS: readonly NonRouteFunction[] = [
  "authorizer",
  "purge",
  "fx-rates",
  "attribution-sweep",
  ...WORKERS.map((worker) => worker.id),
];

export const FUNCTION_NAMES: readonly FunctionName[] = [
  ...ROUTES.map((route) => route.id),
  ...LINK_HOST_ROUTES.map((route) => route.id),
  ...NON_ROUTE_FUNCTIONS,
];

const STREAMING = new Set<string>(ROUTES.filter((r) => r.streaming).map((r) => r.id));

export interface BundleResult {
  readonly name: FunctionName;
  readonly file: string;
  readonly bytes: number;
  readonly warnings: number;
}

export const bundleFunction = async (name: FunctionName, outDir: string): Promise<BundleResult> => {
  const file = join(outDir, name, "index.mjs");
  const result = await build({
    ...LAMBDA_BUILD_OPTIONS,
    mainFields: [...LAMBDA_BUILD_OPTIONS.mainFields],
    external: [...LAMBDA_BUILD_OPTIONS.external],
    entryPoints: [join(PROJECT_ROOT, "lambdas", `${name}.ts`)],
    outfile: file,
  });
  return { name, file, bytes: (await stat(file)).size, warnings: result.warnings.length };
};

export interface ImportTiming {
  /** From the start of the entry's `import()` to its end, in the child. */
  readonly importMs: number;
  /** From spawn to exit: Node's own start-up, the import and the exit. */
  readonly processMs: number;
}

/**
 * Imports a bundle in a fresh `node`, with only the environment Lambda would give it (dummy
 * values) and, for a streaming function, a stub of the runtime's `awslambda` global.
 */
export const timeImport = async (bundle: BundleResult): Promise<ImportTiming> => {
  const stub = STREAMING.has(bundle.name)
    ? "globalThis.awslambda = { streamifyResponse: (h) => h, HttpResponseStream: { from: (s) => s } };"
    : "";
  const script = `${stub}
const started = performance.now();
const entry = await import(${JSON.stringify(pathToFileURL(bundle.file).href)});
const importMs = performance.now() - started;
if (typeof entry.handler !== "function") throw new Error("no handler export");
console.log(JSON.stringify({ importMs }));`;
  const started = performance.now();
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    env: {
      PATH: process.env.PATH ?? "",
      AWS_REGION: "eu-west-1",
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      ...functionEnv(bundle.name),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // A bundle whose import leaves the event loop busy would never exit on its own.
  const timeout = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const [code] = await once(child, "exit").finally(() => clearTimeout(timeout));
  const processMs = performance.now() - started;
  if (code !== 0) {
    // The last Error line, not the minified source line Node prints above it.
    const reason = stderr.split("\n").findLast((line) => /^\w*Error\b/.test(line)) ?? "";
    throw new Error(`import failed (exit ${code}): ${reason.slice(0, 300)}`);
  }
  const { importMs } = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
    importMs: number;
  };
  return { importMs, processMs };
};

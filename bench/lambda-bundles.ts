/**
 * Each Lambda function's JS as the CDK ships it, and its cold import. The functions are the
 * manifest's (src/functions/manifest.ts) and the esbuild options lib/service-function.ts's
 * (LAMBDA_BUILD_OPTIONS, which NodejsFunction's bundling there is written from).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { writeEntry } from "../lambdas/entries.ts";
import { LAMBDA_BUILD_OPTIONS } from "../lib/service-function.ts";
import { FUNCTION_IDS, FUNCTIONS, type FunctionId, functionOf } from "../src/functions/manifest.ts";
import { sampleEnv } from "../src/functions/sample-env.ts";

export { LAMBDA_BUILD_OPTIONS };

export type FunctionName = FunctionId;

/** A valid environment for an entry, from its manifest row. */
export const functionEnv = (name: FunctionName): Record<string, string> =>
  sampleEnv(functionOf(name).uses);

export const FUNCTION_NAMES: readonly FunctionName[] = FUNCTION_IDS;

const STREAMING = new Set<string>(FUNCTIONS.filter((f) => f.streaming).map((f) => f.id));

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
    entryPoints: [writeEntry(name)],
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

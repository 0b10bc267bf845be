/**
 * `npm run test:localstack`: the black-box suite (test/integration/black-box/) against the
 * stack deployed to LocalStack.
 *
 *   1. checks that LocalStack answers at LOCALSTACK_ENDPOINT (else one line and exit 2, at once);
 *   2. deploys the stack with cdklocal, leaving out what LocalStack's free plan lacks
 *      (`-c lakeQueries=false -c linkHost=false -c dashboard=false`, lib/settings.ts), the outputs to a file;
 *   3. checks that the admin CLI reaches the deployed tables (`attribution apps list`);
 *   4. runs the suite with ATTRIBUTION_TEST_TARGET=localstack, which provisions its own apps and
 *      keys with the CLI and names each test it skips with the reason;
 *   5. destroys the stack (unless --keep), whatever the suite's result;
 *   6. prints what was not run on LocalStack and why, and exits with the suite's status.
 *
 * Arguments: --keep leaves the stack deployed; --skip-deploy tests a stack deployed before,
 * with --outputs <file>; anything after `--` goes to vitest (a file, -t <name>, …).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CAPABILITIES, cliEnvOf, readStackOutputs } from "../support/target-env.ts";

export const USAGE =
  "usage: npm run test:localstack [-- [--keep] [--skip-deploy --outputs <file>] [-- <vitest args>]]";

/** What LocalStack must be, in one line: printed when it is not there. */
export const NEEDS =
  "test:localstack needs a running LocalStack: set LOCALSTACK_ENDPOINT (e.g. http://localhost:4566) to one started with LOCALSTACK_AUTH_TOKEN (docs/testing.md, LocalStack)";

export interface Options {
  readonly keep: boolean;
  readonly skipDeploy: boolean;
  readonly outputs: string | undefined;
  readonly vitestArgs: readonly string[];
}

/** The command's arguments, or the reason they are wrong. */
export const parseArgs = (args: readonly string[]): Options | { error: string } => {
  let keep = false;
  let skipDeploy = false;
  let outputs: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      if (skipDeploy && !outputs) return { error: "--skip-deploy needs --outputs <file>" };
      return { keep, skipDeploy, outputs, vitestArgs: args.slice(i + 1) };
    }
    if (arg === "--keep") keep = true;
    else if (arg === "--skip-deploy") skipDeploy = true;
    else if (arg === "--outputs") {
      outputs = args[++i];
      if (!outputs || outputs.startsWith("--")) return { error: "--outputs needs a file" };
    } else return { error: `unknown argument ${arg}` };
  }
  if (skipDeploy && !outputs) return { error: "--skip-deploy needs --outputs <file>" };
  if (outputs && !skipDeploy) return { error: "--outputs is for --skip-deploy" };
  return { keep, skipDeploy, outputs, vitestArgs: [] };
};

/**
 * Why LocalStack cannot be used, or undefined when its health check answers. Bounded to 300 ms
 * (a local LocalStack answers in milliseconds), so that without LocalStack the command ends at
 * once.
 */
export const unreachable = async (
  env: NodeJS.ProcessEnv,
  timeoutMs = 300,
): Promise<string | undefined> => {
  const endpoint = env.LOCALSTACK_ENDPOINT;
  if (!endpoint) return "LOCALSTACK_ENDPOINT is not set";
  let url: URL;
  try {
    url = new URL("/_localstack/health", endpoint);
  } catch {
    return `LOCALSTACK_ENDPOINT=${endpoint} is not a URL`;
  }
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return `${url} answered ${response.status}`;
    await response.arrayBuffer();
    return undefined;
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    return `${url} did not answer (${cause instanceof Error ? cause.message : String(cause)})`;
  }
};

/**
 * The AWS variables every step is run with: LocalStack's one endpoint for every service (S3 on
 * its virtual-host name, as cdklocal needs), its test credentials and a region.
 */
export const localstackEnv = (env: NodeJS.ProcessEnv): Record<string, string> => {
  const endpoint = new URL(env.LOCALSTACK_ENDPOINT ?? "http://localhost:4566");
  const local = ["localhost", "127.0.0.1", "localhost.localstack.cloud"].includes(
    endpoint.hostname,
  );
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? "us-east-1";
  const base = endpoint.origin;
  return {
    LOCALSTACK_ENDPOINT: base,
    AWS_ENDPOINT_URL: base,
    AWS_ENDPOINT_URL_S3:
      env.AWS_ENDPOINT_URL_S3 ??
      (local
        ? `${endpoint.protocol}//s3.localhost.localstack.cloud:${endpoint.port || 4566}`
        : base),
    AWS_ACCESS_KEY_ID: "test",
    AWS_SECRET_ACCESS_KEY: "test",
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    CDK_DEFAULT_ACCOUNT: "000000000000",
    CDK_DEFAULT_REGION: region,
  };
};

/** The settings the stack is deployed with here: what LocalStack's free plan lacks, left out. */
export const DEPLOY_CONTEXT = [
  "-c",
  "lakeQueries=false",
  "-c",
  "linkHost=false",
  "-c",
  "dashboard=false",
  // Destroyed at the end of the run.
  "-c",
  "terminationProtection=false",
] as const;

const run = (command: string, args: readonly string[], env: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    console.log(`\n$ ${command} ${args.join(" ")}`);
    const child = spawn(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });

const must = async (step: string, code: Promise<number>) => {
  if ((await code) !== 0) throw new Error(`${step} failed`);
};

/** The integration test files that run on the embedded runtime only: they need its insides. */
const embeddedOnlyFiles = () =>
  readdirSync(new URL("../integration/", import.meta.url))
    .filter((name) => name.endsWith(".test.ts"))
    .map((name) => `test/integration/${name}`);

const report = () => {
  console.log("\nNot run on LocalStack:");
  for (const [capability, reasons] of Object.entries(CAPABILITIES)) {
    const reason = (reasons as { localstack?: string }).localstack;
    if (reason) console.log(`  tests that need ${capability}: ${reason}`);
  }
  console.log(
    `  ${embeddedOnlyFiles().join(", ")}: these drive the embedded runtime's insides (its data folder, stores, streams and processes), not a deployed stack`,
  );
};

const main = async (): Promise<number> => {
  const options = parseArgs(process.argv.slice(2));
  if ("error" in options) {
    console.error(`${options.error}\n${USAGE}`);
    return 2;
  }
  const why = await unreachable(process.env);
  if (why) {
    console.error(`${NEEDS}: ${why}`);
    return 2;
  }
  const env = localstackEnv(process.env);
  const work = mkdtempSync(join(tmpdir(), "attribution-localstack-"));
  const outputs = options.outputs ?? join(work, "outputs.json");
  let status = 1;
  try {
    if (!options.skipDeploy) {
      await must(
        "cdklocal bootstrap",
        run("npx", ["cdklocal", "bootstrap", ...DEPLOY_CONTEXT], env),
      );
      await must(
        "cdklocal deploy",
        run(
          "npx",
          [
            "cdklocal",
            "deploy",
            ...DEPLOY_CONTEXT,
            "--require-approval",
            "never",
            "--outputs-file",
            outputs,
          ],
          env,
        ),
      );
    }
    const targetEnv = {
      ...env,
      ATTRIBUTION_TEST_TARGET: "localstack",
      ATTRIBUTION_TEST_OUTPUTS: outputs,
    };
    // The admin CLI reaches the deployed tables before any test provisions through it.
    const cliEnv = { ...env, ...cliEnvOf(readStackOutputs(outputs), env.LOCALSTACK_ENDPOINT) };
    await must(
      "attribution apps list on the deployed tables",
      run(process.execPath, ["bin/attribution.js", "apps", "list"], cliEnv),
    );
    status = await run(
      "npx",
      ["vitest", "run", "test/integration/black-box", "--reporter=verbose", ...options.vitestArgs],
      targetEnv,
    );
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
  } finally {
    if (!options.keep && !options.skipDeploy) {
      const destroyed = await run(
        "npx",
        ["cdklocal", "destroy", ...DEPLOY_CONTEXT, "--force"],
        env,
      ).catch(() => 1);
      if (destroyed !== 0) {
        console.error("cdklocal destroy failed: the stack may still be deployed in LocalStack");
        status = status || 1;
      }
    } else if (options.keep) {
      console.log(`\nThe stack stays deployed; its outputs: ${outputs}`);
    }
    if (!options.keep && !options.outputs) rmSync(work, { recursive: true, force: true });
  }
  report();
  return status;
};

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main();
}

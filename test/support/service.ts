/** The service as its own process, as `npm start` runs it, for tests and the benchmark. */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import * as z from "zod";

const CLI = new URL("../../bin/attribution.js", import.meta.url).pathname;
const run = promisify(execFile);

/**
 * The Node flags of package.json's start script (`node <flags> bin/attribution.js start`), so
 * the tests and the benchmarks run the service as `npm start` does.
 */
export const START_FLAGS = (() => {
  const manifest = z
    .object({ scripts: z.object({ start: z.string() }) })
    .parse(JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")));
  const words = manifest.scripts.start.split(/\s+/);
  const cli = words.indexOf("bin/attribution.js");
  if (words[0] !== "node" || cli < 0) {
    throw new Error(`package.json's start script is not "node … bin/attribution.js start"`);
  }
  return words.slice(1, cli);
})();

export interface Service {
  readonly child: ChildProcess;
  readonly url: string;
  /** What it printed so far (its banner goes on after the line that names its URL). */
  readonly output: () => string;
}

/** A Node script in its own process; resolves once it prints "listening on <url>". */
export const spawnListening = async (
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<Service> => {
  const child = spawn(process.execPath, [...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) =>
      reject(new Error(`${args.join(" ")} exited with ${code}: ${output}`)),
    );
  });
  return { child, url, output: () => output };
};

/** `npm start` on free ports; `env` adds settings (ATTRIBUTION_TRUST_PROXY and the like). */
export const startService = (dataDir: string, env: Record<string, string> = {}): Promise<Service> =>
  spawnListening(
    [...START_FLAGS, CLI, "start", "--port", "0", "--link-port", "0", "--data-dir", dataDir],
    env,
  );

/** Memory figures of a process (VmHWM, VmRSS, RssAnon…) in bytes, from Linux's /proc. */
export const memoryOf = async <Field extends string>(
  pid: number | undefined,
  fields: readonly Field[],
): Promise<Record<Field, number>> => {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const bytes = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return Object.fromEntries(fields.map((field) => [field, bytes(field)])) as Record<Field, number>;
};

/** A process's peak resident memory (VmHWM). */
export const peakMemory = async (pid: number | undefined): Promise<number> =>
  (await memoryOf(pid, ["VmHWM"])).VmHWM;

/** Ctrl-C, then the exit code. */
export const stopService = async (child: ChildProcess): Promise<number | null> => {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = once(child, "exit");
  child.kill("SIGINT");
  const [code] = await exited;
  return code;
};

/** Runs an `attribution` command against a data folder; resolves with its standard output. */
export const cli = async (dataDir: string, ...args: string[]): Promise<string> =>
  cliWithEnv({}, dataDir, ...args);

/** The same, with extra environment variables. */
export const cliWithEnv = async (
  env: Record<string, string>,
  dataDir: string,
  ...args: string[]
): Promise<string> =>
  (
    await run(process.execPath, [CLI, ...args, "--data-dir", dataDir], {
      env: { ...process.env, ...env },
    })
  ).stdout;

/** `attribution apps create` for an Android app; resolves with its SDK and server keys. */
export const createAppWithCli = async (
  dataDir: string,
  appId: string,
  name: string,
): Promise<{ sdk: string; server: string }> => {
  const stdout = await cli(
    dataDir,
    "apps",
    "create",
    "--app-id",
    appId,
    "--name",
    name,
    "--platform",
    "android",
    "--json",
  );
  const { keys } = JSON.parse(stdout) as { keys: { kind: string; key: string }[] };
  const key = (kind: string) => keys.find((k) => k.kind === kind)?.key ?? "";
  return { sdk: key("sdk"), server: key("server") };
};

/** The service as its own process, as `npm start` runs it, for tests and the benchmark. */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { promisify } from "node:util";

const CLI = new URL("../../bin/attribution.js", import.meta.url).pathname;
const run = promisify(execFile);

export interface Service {
  readonly child: ChildProcess;
  readonly url: string;
}

export const startService = async (dataDir: string): Promise<Service> => {
  const child = spawn(process.execPath, [CLI, "start", "--port", "0", "--data-dir", dataDir], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`service exited with ${code}: ${output}`)));
  });
  return { child, url };
};

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

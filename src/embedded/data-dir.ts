/**
 * The data folder of the embedded runtime. Its layout mirrors the AWS resources:
 * `dynamodb/` (the tables), `touches/`, `installs/`, `attributions/`, `outbox/` and
 * `delivery-log/` (those tables', each in a store of its own), `clicks/`
 * (the link host's click log), `lake/` (laid out like the lake bucket), `wal/` (the delivery
 * stream's write-ahead files), `snapshots/` (materialised exports), `queues/` (the workers'
 * queues), `pages/` (export pages being written), `duckdb-tmp/` (what an export's query
 * spills), `fx/` (imported exchange rates), `keys/` (the master key that wraps the
 * apps' private keys), `starting`, which names a service on its way to listening,
 * `runtime.json`, which tells other processes (the CLI) where a running service listens, and
 * `admin-changes`, which tells the service that the CLI changed an app or a key.
 */
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import * as z from "zod";
import { isProcessAlive } from "./process-alive.ts";

/**
 * Makes the data folder, for its owner alone (0700): its stores hold password hashes, TOTP
 * secrets, keys and every app's data, and a file's own mode, which each store sets as it will,
 * guards nothing in a folder another user cannot enter. A folder that was there already keeps
 * its mode, which the owner chose: the answer says when other users may enter it, for a warning.
 */
export const makePrivateDataDir = async (dataDir: string): Promise<{ openToOthers: boolean }> => {
  const made = await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (made !== undefined) return { openToOthers: false };
  return {
    openToOthers: process.platform !== "win32" && ((await stat(dataDir)).mode & 0o077) !== 0,
  };
};

export const dataPaths = (dataDir: string) => ({
  dynamodb: join(dataDir, "dynamodb"),
  lake: join(dataDir, "lake"),
  wal: join(dataDir, "wal"),
  // The link host's click log: each tap's click, until the touch store and the lake hold it.
  clicks: join(dataDir, "clicks"),
  // The touch store (LevelDB): touches and address sightings, for matching.
  touches: join(dataDir, "touches"),
  // Installs, each install's attribution, and each postback's send (LevelDB): read and written
  // by every install on its way through.
  installs: join(dataDir, "installs"),
  attributions: join(dataDir, "attributions"),
  outbox: join(dataDir, "outbox"),
  // Every postback's attempts (LevelDB), written by each attempt.
  deliveryLog: join(dataDir, "delivery-log"),
  snapshots: join(dataDir, "snapshots"),
  // One folder queue per queue-driven worker (the SQS queues of AWS).
  queues: join(dataDir, "queues"),
  // Export pages DuckDB writes, each unlinked as soon as it is opened to be sent.
  pages: join(dataDir, "pages"),
  // Where DuckDB spills what does not fit its memory limit (a large window's sort).
  duckdbTemp: join(dataDir, "duckdb-tmp"),
  // Newer ECB reference rates than the shipped table, imported with `attribution rates import`.
  fxRates: join(dataDir, "fx", "eurofxref-hist.csv"),
  // The master key that wraps the apps' private keys; back it up apart from the data.
  masterKey: join(dataDir, "keys", "master.key"),
  // The process id of a service opening the folder's stores, until it writes runtime.json.
  startingFile: join(dataDir, "starting"),
  runtimeFile: join(dataDir, "runtime.json"),
  // Appended to by the CLI after it changes apps or keys (./admin-changes.ts).
  adminChanges: join(dataDir, "admin-changes"),
});

const runtimeInfo = z.object({
  pid: z.number(),
  url: z.string(),
  /** The link host's URL. */
  linkUrl: z.string(),
  /**
   * The base its links are named on (ATTRIBUTION_LINK_BASE_URL, else the link host's URL): the
   * CLI's links take it from here, as the API's do, whatever the CLI's own shell sets.
   */
  linkBaseUrl: z.string(),
  dynamodbEndpoint: z.string(),
  /** What the DynamoDB endpoint asks of every request (./local-dynamodb.ts). */
  dynamodbToken: z.string(),
  /** Where the CLI reaches the stores this process holds open (./held-stores.ts). */
  heldStores: z.object({ url: z.string(), token: z.string() }),
  /** Whose X-Forwarded-For it believes (ATTRIBUTION_TRUST_PROXY): every peer, none, or these. */
  trustProxy: z.union([z.boolean(), z.array(z.string())]),
  /**
   * Whether postbacks may go to loopback addresses (ATTRIBUTION_POSTBACKS_ALLOW_LOOPBACK): the
   * CLI's `partners` commands, which check and send in their own process, take it from here.
   */
  postbacksAllowLoopback: z.boolean(),
});
export type RuntimeInfo = z.infer<typeof runtimeInfo>;

// Only for this user: the tokens of the local DynamoDB endpoint and of the held stores are in
// it, and either opens the service's data to whoever reads them.
export const writeRuntimeInfo = (dataDir: string, info: RuntimeInfo) =>
  writeFile(dataPaths(dataDir).runtimeFile, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });

export const removeRuntimeInfo = (dataDir: string) =>
  rm(dataPaths(dataDir).runtimeFile, { force: true });

/** The running service of this data folder, if its process is still alive. */
export const readRuntimeInfo = async (dataDir: string): Promise<RuntimeInfo | undefined> => {
  const text = await readFile(dataPaths(dataDir).runtimeFile, "utf8").catch(() => undefined);
  if (!text) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Being written.
    return undefined;
  }
  const parsed = runtimeInfo.safeParse(json);
  return parsed.success && isProcessAlive(parsed.data.pid) ? parsed.data : undefined;
};

/**
 * Marks the folder as opened by a service that does not listen yet: until it does, another
 * process that opened the stores too would find them locked, half way.
 */
export const markStarting = (dataDir: string) =>
  writeFile(dataPaths(dataDir).startingFile, `${process.pid}\n`);

export const clearStarting = (dataDir: string) =>
  rm(dataPaths(dataDir).startingFile, { force: true });

/** The process id of another service that is opening this folder, if one is. */
export const startingService = async (dataDir: string): Promise<number | undefined> => {
  const text = await readFile(dataPaths(dataDir).startingFile, "utf8").catch(() => "");
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isProcessAlive(pid)
    ? pid
    : undefined;
};

/** How long a command waits for a starting service to listen. */
export const STARTING_WAIT_MS = 60_000;

/**
 * The running service of this data folder, as `readRuntimeInfo`, but a service still opening
 * the folder is waited for (a command started with `npm start` finds it, not its locks).
 */
export const runningService = async (
  dataDir: string,
  waitMs = STARTING_WAIT_MS,
): Promise<RuntimeInfo | undefined> => {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const running = await readRuntimeInfo(dataDir);
    if (running) return running;
    const starting = await startingService(dataDir);
    // A service writes its runtime file before it clears its mark: read again, once no mark
    // is left, for one that began to listen meanwhile.
    if (starting === undefined) return readRuntimeInfo(dataDir);
    if (Date.now() >= deadline) {
      throw new Error(
        `The service on ${dataDir} (process ${starting}) is still starting: try again once it listens.`,
      );
    }
    await sleep(100);
  }
};

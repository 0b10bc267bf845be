/**
 * A PostgreSQL server of Debian's package for one benchmark run: a cluster made in a temporary
 * folder, listening on a Unix socket there only, stopped and removed at the end. Run as the
 * `postgres` user when the benchmark runs as root (PostgreSQL refuses root). Undefined when the
 * machine has no PostgreSQL (`apt-get install postgresql`).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface Postgres {
  /** The folder of its socket: `host` for a client. */
  readonly socketDir: string;
  readonly port: number;
  readonly user: string;
  /** Its processes' CPU seconds so far (the postmaster and every backend). */
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
}

/** Where Debian installs the server's programs, newest version first; PATH first of all. */
const binDir = async (): Promise<string | undefined> => {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  const versions = await readdir("/usr/lib/postgresql").catch(() => []);
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest ? join("/usr/lib/postgresql", newest, "bin") : undefined;
};

const processStat = async (pid: string) => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { ppid: fields[1], cpu: (Number(fields[11]) + Number(fields[12])) / 100 };
};

export const startPostgres = async (): Promise<Postgres | undefined> => {
  const bin = await binDir();
  if (!bin) return undefined;
  const dir = await mkdtemp(join(tmpdir(), "bench-postgres-"));
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? "postgres" : undefined;
  const user = owner ?? (process.env.USER || "postgres");
  if (owner) {
    const { stdout } = await run("id", ["-u", owner]);
    const { stdout: group } = await run("id", ["-g", owner]);
    await chown(dir, Number(stdout), Number(group));
  }
  await chmod(dir, 0o777);
  const as = (program: string, args: string[]) =>
    owner
      ? run("runuser", ["-u", owner, "--", join(bin, program), ...args])
      : run(join(bin, program), args);
  const port = 15_432 + Math.floor(Math.random() * 1_000);
  await as("initdb", ["-D", data, "-A", "trust", "-U", user, "--no-sync"]);
  await as("pg_ctl", [
    "-D",
    data,
    "-w",
    "-l",
    join(dir, "server.log"),
    "-o",
    `-k ${dir} -p ${port} -c listen_addresses='' -c fsync=on -c synchronous_commit=on`,
    "start",
  ]);
  const postmaster = (await readFile(join(data, "postmaster.pid"), "utf8")).split("\n")[0] ?? "";
  return {
    socketDir: dir,
    port,
    user,
    async cpuSeconds() {
      let total = (await processStat(postmaster)).cpu;
      for (const pid of await readdir("/proc")) {
        if (!/^\d+$/.test(pid)) continue;
        const stat = await processStat(pid);
        if (stat.ppid === postmaster) total += stat.cpu;
      }
      return total;
    },
    async stop() {
      await as("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
};

/**
 * Files a command writes at an `-o` path, made whole or not at all. The bytes go to a hidden
 * temporary file in the output's folder (the same file system, so the rename is atomic) that
 * replaces the output only once complete: a file already at the path stays as it was until
 * then, and an export that stops part of the way leaves neither a truncated file that looks
 * complete (a CSV cut after a whole row) nor its temporary files. Stopped by Ctrl-C or SIGTERM,
 * whose default ends the process before any `finally` runs, the command removes them itself and
 * ends with the signal's conventional code (130, 143).
 */
import { randomBytes } from "node:crypto";
import { rmSync, type WriteStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { finished } from "node:stream/promises";

const SIGNALS = { SIGINT: 130, SIGTERM: 143 } as const;
type Signal = keyof typeof SIGNALS;

/** What to undo should the process be stopped now, newest last. */
const cleanUps = new Set<() => void>();

const stopped = (signal: Signal) => {
  for (const cleanUp of [...cleanUps].reverse()) {
    try {
      cleanUp();
    } catch {
      // One that fails leaves the others to do.
    }
  }
  process.exit(SIGNALS[signal]);
};

/**
 * Runs `cleanUp` (synchronously: the process ends straight after) should a SIGINT or SIGTERM
 * come before the returned function is called. The handlers are the process's only while
 * something is to clean up, so the signals' defaults hold otherwise.
 */
export const onInterrupt = (cleanUp: () => void): (() => void) => {
  if (cleanUps.size === 0) {
    for (const signal of Object.keys(SIGNALS) as Signal[]) process.on(signal, stopped);
  }
  cleanUps.add(cleanUp);
  return () => {
    if (!cleanUps.delete(cleanUp) || cleanUps.size > 0) return;
    for (const signal of Object.keys(SIGNALS) as Signal[]) process.off(signal, stopped);
  };
};

/** A hidden name beside `output` that no other run picks: `.events.csv.3f9a…partial`. */
const besideOutput = (output: string, suffix: string) =>
  join(dirname(output), `.${basename(output)}.${randomBytes(6).toString("hex")}.${suffix}`);

/** Why a file or folder beside `output` could not be made, named as the output's. */
const cannotWrite = (output: string, error: unknown) =>
  new Error(
    `Cannot write ${output} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): is its folder there, and writable?`,
    { cause: error },
  );

/**
 * Refuses an output that names a folder (`-o .`, `-o out/`) before anything is written or asked
 * of the service: its temporary file would go beside the folder, in its parent, and the rename
 * onto a folder fails only once the whole export is written.
 */
export const mustNameAFile = async (output: string) => {
  const folder =
    /[/\\]$/.test(output) ||
    (await stat(output).then(
      (found) => found.isDirectory(),
      () => false,
    ));
  if (folder) throw new Error(`Cannot write ${output}: it is a folder; name a file in it with -o.`);
};

/**
 * Whatever `use` makes at `path` (a file or a folder) removed once it is done, or fails, or the
 * process is stopped. The path is registered before it is made: a signal between the two finds
 * nothing to remove rather than something it did not know of.
 */
const removedAfter = async <T>(path: string, use: () => Promise<T>): Promise<T> => {
  const forget = onInterrupt(() => rmSync(path, { recursive: true, force: true }));
  try {
    return await use();
  } finally {
    await rm(path, { recursive: true, force: true });
    forget();
  }
};

/**
 * Calls `write` with a temporary file's path beside `output`, then renames it onto `output`:
 * `output` holds what `write` wrote once it resolves, and is untouched if it fails. The file is
 * made (empty) before `write` is called, so a folder that does not exist or may not be written
 * is named as the output's rather than as a temporary file's.
 */
export const writeOutputFile = async <T>(
  output: string,
  write: (path: string) => Promise<T>,
): Promise<T> => {
  await mustNameAFile(output);
  const path = besideOutput(output, "partial");
  return removedAfter(path, async () => {
    await open(path, "wx").then(
      (file) => file.close(),
      (error: unknown) => {
        throw cannotWrite(output, error);
      },
    );
    const result = await write(path);
    await rename(path, output);
    return result;
  });
};

/** A hidden folder beside `output` for the pieces it is made of, removed however `use` ends. */
export const withScratchFolder = async <T>(
  output: string,
  use: (folder: string) => Promise<T>,
): Promise<T> => {
  await mustNameAFile(output);
  const folder = besideOutput(output, "pages");
  return removedAfter(folder, async () => {
    await mkdir(folder).catch((error: unknown) => {
      throw cannotWrite(output, error);
    });
    return use(folder);
  });
};

/**
 * Closes a file stream that will not be finished. A write still under way when it is destroyed
 * ends in an error event, which without a listener would end the process: what it would say
 * (the stream is destroyed) is what the caller did, not news.
 */
export const abandon = async (out: WriteStream): Promise<void> => {
  out.on("error", () => {});
  out.destroy();
  await finished(out).catch(() => undefined);
};

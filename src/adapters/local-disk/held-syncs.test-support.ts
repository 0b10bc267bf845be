/**
 * Every file handle's `sync` or `datasync` of a file, each call held until released: the page
 * cache alone survives a kill -9, so only a held sync shows whether an answer waits for the disk.
 */
import { type FileHandle, open, rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, vi } from "vitest";

/** For `vi.waitFor` on what a released sync leads to: a loaded machine may take seconds. */
export const PATIENT = { timeout: 10_000, interval: 5 } as const;

export interface HeldSyncs {
  /** Files' syncs held so far. */
  readonly calls: () => number;
  /** Lets the oldest sync held go on. */
  readonly releaseOne: () => void;
  /** Lets every sync go on, from now on, and puts the method back. */
  readonly restore: () => void;
}

/** `scratchDir`: where a probe file is opened, for the prototype all handles share. */
export const holdSyncs = async (
  method: "sync" | "datasync",
  scratchDir: string,
): Promise<HeldSyncs> => {
  const probePath = join(scratchDir, ".sync-probe");
  const probe = await open(probePath, "w");
  const handles = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  await rm(probePath);
  const real = handles[method];
  const held: (() => void)[] = [];
  let holding = true;
  let calls = 0;
  const spy = vi.spyOn(handles, method).mockImplementation(async function (this: FileHandle) {
    // A folder's sync (a new file's name) goes by: the files' syncs are the ones counted.
    if (holding && (await this.stat()).isFile()) {
      calls += 1;
      await new Promise<void>((resolve) => held.push(resolve));
    }
    return real.call(this);
  });
  return {
    calls: () => calls,
    releaseOne: () => held.shift()?.(),
    restore: () => {
      holding = false;
      for (const release of held.splice(0)) release();
      spy.mockRestore();
    },
  };
};

/**
 * Checks that `answer` (of a write made with every sync held) waits for the first file sync:
 * unsettled while it is held, settled once it is let go.
 */
export const expectAnsweredAfterSync = async (
  syncs: HeldSyncs,
  answer: Promise<unknown>,
): Promise<void> => {
  let answered = false;
  const settled = answer.then(() => {
    answered = true;
  });
  await vi.waitFor(() => expect(syncs.calls()).toBe(1), PATIENT);
  await sleep(20);
  expect(answered).toBe(false);
  syncs.releaseOne();
  await settled;
  expect(answered).toBe(true);
};

/**
 * A command run in-process, as its tests run it: against the embedded stores of a data folder
 * of the test file's own, with what it prints caught.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, vi } from "vitest";

/** The lines `run` printed with console.log, which reach no terminal. */
export const printedBy = async (run: () => Promise<unknown>): Promise<string[]> => {
  const lines: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => {
    lines.push(String(line));
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return lines;
};

/**
 * A data folder made before the file's tests, by `prepare` (its printing caught), and removed
 * after them; `dataDir` is set once the tests run.
 */
export const useDataDir = (prefix: string, prepare: (dataDir: string) => Promise<unknown>) => {
  const folder = { dataDir: "" };
  beforeAll(async () => {
    folder.dataDir = await mkdtemp(join(tmpdir(), prefix));
    await printedBy(() => prepare(folder.dataDir));
  }, 60_000);
  afterAll(async () => {
    await rm(folder.dataDir, { recursive: true, force: true });
  });
  return folder;
};

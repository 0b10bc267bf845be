/**
 * The rate table of the embedded runtime: a file in the data folder, the one `attribution rates
 * import` writes and the refresh from the ECB's feed keeps current. A new table replaces the
 * file by a rename, so a reader never sees half of one.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { RatesTable } from "../../ports/rates.ts";

export const fileRatesTable = (path: string): RatesTable => ({
  async read() {
    try {
      return await readFile(path, "utf8");
    } catch (error) {
      if (error instanceof Error && "code" in error && error.code === "ENOENT") return undefined;
      throw error;
    }
  },
  async write(csvText) {
    await mkdir(dirname(path), { recursive: true });
    const staged = `${path}.${process.pid}.tmp`;
    await writeFile(staged, csvText);
    await rename(staged, path);
  },
});

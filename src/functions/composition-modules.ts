/**
 * Imports a composition's module by its path under `src/`, as its row names it. From the
 * sources, that path is the module's file; the CLI's bundle holds no file by path, so its build
 * (bin/build-cli.ts) puts in this module's place one that imports each module the function
 * manifest and the job table name.
 */
const SRC = new URL("../", import.meta.url);

export const importCompositionModule = (path: string): Promise<Record<string, unknown>> =>
  import(new URL(path, SRC).href);

/**
 * Builds the CLI's bundle (bin/cli-bundle.js says when it is used): src/cli/main.ts and the
 * commands it loads lazily, each a chunk of its own so a command still loads only its own
 * code, the packages it uses included. Beside it, the sources it was built from and
 * the time the build started: a source changed after that makes the CLI run from the sources.
 * Run at `npm install` (the `prepare` script) and by `npm run build:cli`.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { BUNDLE_DIR, BUNDLE_INPUTS } from "./cli-bundle.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The packages a command reaches that stay in node_modules: those with native code (DuckDB,
 * LevelDB, esbuild's binary, which the dashboard's build runs), and dynalite, which requires its
 * own files by computed paths. */
const NATIVE_OR_DYNAMIC = ["@duckdb/*", "classic-level", "esbuild", "dynalite"];

/** Writes the bundle into `dir` (two folders below the project, as the sources are). */
export const buildCli = async (dir: URL = BUNDLE_DIR): Promise<void> => {
  const builtAt = Date.now();
  const outdir = fileURLToPath(dir);
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: { main: "src/cli/main.ts" },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // The packages are bundled too: resolving and loading their hundreds of files one by one
    // was much of a command's start. Those left to node_modules load native code, or their
    // own files by computed paths.
    external: NATIVE_OR_DYNAMIC,
    // The CommonJS packages' `require` of Node's own modules, in an ESM bundle.
    banner: {
      js: 'import { createRequire as bundleRequire } from "node:module"; const require = bundleRequire(import.meta.url);',
    },
    metafile: true,
    logLevel: "warning",
  });
  // The project's own sources, and the lockfile for the packages: an install that changes a
  // package rewrites it (and builds the bundle again, as the `prepare` script).
  const inputs = [
    ...Object.keys(metafile.inputs).filter((input) => !input.startsWith("node_modules/")),
    "package-lock.json",
  ].sort();
  await writeFile(new URL(BUNDLE_INPUTS, dir), `${JSON.stringify({ builtAt, inputs })}\n`);
};

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildCli();

/**
 * Builds the CLI's bundle (bin/cli-bundle.js says when it is used): src/cli/main.ts and the
 * commands it loads lazily, each a chunk of its own so a command still loads only its own
 * code, with the packages left to node_modules. Beside it, the sources it was built from and
 * the time the build started: a source changed after that makes the CLI run from the sources.
 * Run at `npm install` (the `prepare` script) and by `npm run build:cli`.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { BUNDLE_DIR, BUNDLE_INPUTS } from "./cli-bundle.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

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
    packages: "external",
    metafile: true,
    logLevel: "warning",
  });
  const inputs = Object.keys(metafile.inputs).sort();
  await writeFile(new URL(BUNDLE_INPUTS, dir), `${JSON.stringify({ builtAt, inputs })}\n`);
};

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildCli();

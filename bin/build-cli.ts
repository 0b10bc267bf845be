/**
 * Builds the CLI's bundle (bin/cli-bundle.js says when it is used): src/cli/main.ts and the
 * commands it loads lazily, each a chunk of its own so a command still loads only its own
 * code, the packages it uses included. Beside it, the sources it was built from and
 * the time the build started: a source changed after that makes the CLI run from the sources.
 * Run at `npm install` (the `prepare` script) and by `npm run build:cli`.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { extname, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Loader, type Plugin } from "esbuild";
import { parseHandlerRef } from "../src/functions/handler-ref.ts";
import { FUNCTIONS } from "../src/functions/manifest.ts";
import { JOBS } from "../src/jobs/jobs.ts";
import { BUNDLE_DIR, BUNDLE_INPUTS } from "./cli-bundle.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Every composition's module, as the rows name them: those of the functions and the jobs. */
const compositionPaths = (): string[] => {
  const refs = [
    ...FUNCTIONS.flatMap((row) =>
      row.kind === "route-group" ? row.routes.map((route) => route.handler) : [row.handler],
    ),
    ...JOBS.flatMap((job) => ("handler" in job ? [job.handler] : [])),
  ];
  return [...new Set(refs.map((ref) => parseHandlerRef(ref).path))].sort();
};

/**
 * The service loads each row's composition by its path (src/functions/composition-modules.ts):
 * in the bundle, a module that imports each by name, so that each is a chunk of the bundle.
 */
const bundledCompositions: Plugin = {
  name: "compositions",
  setup(build) {
    build.onLoad({ filter: /[/\\]src[/\\]functions[/\\]composition-modules\.ts$/ }, () => {
      const cases = compositionPaths().map(
        (path) =>
          `    case ${JSON.stringify(path)}: return import(${JSON.stringify(`../${path}`)});`,
      );
      return {
        contents: [
          "export const importCompositionModule = (path) => {",
          "  switch (path) {",
          ...cases,
          '    default: return Promise.reject(new Error(path + ": no composition of the CLI\'s bundle"));',
          "  }",
          "};",
        ].join("\n"),
        loader: "js",
      };
    });
  },
};

const LOADERS: Record<string, Loader> = { ".ts": "ts", ".tsx": "tsx", ".mjs": "js", ".js": "js" };

/**
 * A source's `import.meta.url` is its own file's, as when it runs from the sources: the files it
 * finds beside it (the local store's thread, the dashboard's build) are where they were. The
 * bundle is two folders below the project, so the file is at the same path from it.
 */
const sourceUrls: Plugin = {
  name: "source-urls",
  setup(build) {
    build.onLoad({ filter: /\.(ts|tsx|mjs|js)$/ }, async (args) => {
      if (args.path.includes("node_modules")) return undefined;
      const source = await readFile(args.path, "utf8");
      if (!source.includes("import.meta.url")) return undefined;
      const fromBundle = `../../${relative(ROOT, args.path).replaceAll("\\", "/")}`;
      return {
        contents: source.replaceAll(
          "import.meta.url",
          `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`,
        ),
        loader: LOADERS[extname(args.path)] ?? "js",
      };
    });
  },
};

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
    plugins: [bundledCompositions, sourceUrls],
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

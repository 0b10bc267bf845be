/**
 * Builds the dashboard: bundles src/main.tsx (Preact, TSX) and the stylesheet it imports into
 * dist/app.js and dist/app.css, minified, and writes dist/index.html naming both with a content
 * hash in the query, so a browser never keeps a stale bundle, and copies the favicon. Run at `npm install` (the
 * `prepare` script) and by `npm run build:dashboard`.
 */
import { createHash } from "node:crypto";
import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { dashboardDist } from "./dist-path.ts";

const here = path.dirname(fileURLToPath(import.meta.url));

const shortHash = (content: Uint8Array): string =>
  createHash("sha256").update(content).digest("hex").slice(0, 12);

export async function buildDashboard(): Promise<void> {
  await rm(dashboardDist, { recursive: true, force: true });
  await mkdir(dashboardDist, { recursive: true });
  await build({
    entryPoints: { app: path.join(here, "src", "main.tsx") },
    outdir: dashboardDist,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: ["es2022"],
    jsx: "automatic",
    jsxImportSource: "preact",
    define: { "process.env.NODE_ENV": '"production"' },
    legalComments: "eof",
    logLevel: "warning",
  });
  const [js, css, template] = await Promise.all([
    readFile(path.join(dashboardDist, "app.js")),
    readFile(path.join(dashboardDist, "app.css")),
    readFile(path.join(here, "src", "index.html"), "utf8"),
  ]);
  const html = template.replace("%JS_HASH%", shortHash(js)).replace("%CSS_HASH%", shortHash(css));
  await writeFile(path.join(dashboardDist, "index.html"), html);
  await copyFile(path.join(here, "src", "favicon.svg"), path.join(dashboardDist, "favicon.svg"));
}

const runDirectly =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (runDirectly) {
  const started = performance.now();
  await buildDashboard();
  console.log(
    `dashboard built in ${Math.round(performance.now() - started)} ms: ${path.relative(process.cwd(), dashboardDist) || "."}`,
  );
}

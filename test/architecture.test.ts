/**
 * The import graph's rules, read from the sources with a TypeScript parser (oxc's): no import
 * circle in src, lib or lambdas; the domain (src/domain, and the exported record's definition
 * in src/record) imports nothing of the project outside it; a port (src/ports) imports only
 * the domain and other ports; only the folders that hold the tables of functions and their
 * compositions (and the runtimes that wire them) import src/functions or src/jobs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSync, Visitor } from "oxc-parser";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const FOLDERS = ["src", "lib", "lambdas"];

const sourceFiles = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });

/**
 * Each file's imports of other project files, as paths from the root: import and export
 * declarations (type-only ones too), `import()` and `require()` of a string, `import x =
 * require()`, types named by `import("…")`, and modules a `declare module "…"` augments.
 */
const importsOf = (file: string): string[] => {
  const { program, errors } = parseSync(file, readFileSync(join(ROOT, file), "utf8"));
  if (errors.length > 0) throw new Error(`${file} does not parse: ${errors[0]?.message}`);
  const names: string[] = [];
  const add = (source: { type: string; value?: unknown } | null | undefined) => {
    if (source?.type === "Literal" && typeof source.value === "string") names.push(source.value);
  };
  new Visitor({
    ImportDeclaration: (node) => add(node.source),
    ExportNamedDeclaration: (node) => add(node.source),
    ExportAllDeclaration: (node) => add(node.source),
    ImportExpression: (node) => add(node.source),
    TSImportType: (node) => add(node.source),
    TSImportEqualsDeclaration: (node) => {
      if (node.moduleReference.type === "TSExternalModuleReference") {
        add(node.moduleReference.expression);
      }
    },
    TSModuleDeclaration: (node) => add(node.id),
    CallExpression: (node) => {
      if (node.callee.type === "Identifier" && node.callee.name === "require")
        add(node.arguments[0]);
    },
  }).visit(program);
  return names
    .filter((name) => name.startsWith("."))
    .map((name) => relative(ROOT, resolve(ROOT, dirname(file), name)));
};

/** The lowest layer: pure definitions and rules, no port, adapter or runtime. */
const DOMAIN = ["src/domain", "src/record"];

const FILES = FOLDERS.flatMap(sourceFiles);
const GRAPH = new Map(FILES.map((file) => [file, importsOf(file)]));

/** The strongly connected components of more than one file, or of a file importing itself. */
const circles = (): string[][] => {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of GRAPH.get(file) ?? []) {
      if (!GRAPH.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || GRAPH.get(file)?.includes(file)) found.push(component.sort());
    }
  };
  for (const file of GRAPH.keys()) if (!index.has(file)) visit(file);
  return found;
};

/** The imports of files under `layer` that reach outside `allowed`. */
const reachingOutside = (layer: string, allowed: readonly string[]): string[] =>
  [...GRAPH]
    .filter(([file]) => file.startsWith(`${layer}/`))
    .flatMap(([file, targets]) =>
      targets
        .filter((target) => !allowed.some((folder) => target.startsWith(`${folder}/`)))
        .map((target) => `${file} -> ${target}`),
    );

describe("the import graph", () => {
  it("reads the project's files", () => {
    expect(GRAPH.size).toBeGreaterThan(100);
  });

  it("has no circle in src, lib or lambdas", () => {
    expect(circles()).toEqual([]);
  });

  it("keeps the domain free of every other layer", () => {
    for (const layer of DOMAIN) expect(reachingOutside(layer, DOMAIN)).toEqual([]);
  });

  it("lets a port import only the domain and other ports", () => {
    expect(reachingOutside("src/ports", [...DOMAIN, "src/ports"])).toEqual([]);
  });

  it("keeps compositions beside their rows: no domain folder imports src/functions or src/jobs", () => {
    // The tables' folders and the runtimes that wire them; adapters and configuration read the
    // tables' definitions (a handler's reference, a job's interval), never a composition.
    const composing = [
      "src/adapters",
      "src/config",
      "src/functions",
      "src/jobs",
      "src/workers",
      "src/http",
      "src/aws",
      "src/embedded",
      "src/cli",
    ];
    const offending = [...GRAPH]
      .filter(
        ([file]) => file.startsWith("src/") && !composing.some((f) => file.startsWith(`${f}/`)),
      )
      .flatMap(([file, targets]) =>
        targets
          .filter((target) => target.startsWith("src/functions/") || target.startsWith("src/jobs/"))
          .map((target) => `${file} -> ${target}`),
      );
    expect(offending).toEqual([]);
  });
});

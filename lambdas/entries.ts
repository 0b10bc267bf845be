/**
 * The Lambda entries, written from the manifest (src/functions/manifest.ts): each function's
 * entry imports its row's composition, the store of each table its row uses and the provider
 * of each other kind of dependency (src/aws/providers.ts), and hands them to the AWS wrapper of
 * its kind. A route group's entry imports each of its routes' compositions and hands them all to
 * one wrapper, which routes each request to its route's. Nothing else imports them, so a bundle
 * holds only what its row names, and a new function is its row, its contract and its handler:
 * its entry follows.
 *
 * The CDK app (lib/service-function.ts), the bundles test and the bench write them into
 * `lambdas/.entries/`, which is not kept.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TABLE_DEFINITIONS, type TableId } from "../src/adapters/dynamodb/table-definitions.ts";
import { NON_TABLE_KINDS, providerOf } from "../src/aws/providers.ts";
import { type HandlerRef, parseHandlerRef } from "../src/functions/handler-ref.ts";
import { type FunctionKind, type FunctionRow, functionOf } from "../src/functions/manifest.ts";

/** Where the entries are written. */
export const ENTRIES_DIR = fileURLToPath(new URL("./.entries/", import.meta.url));

/** The AWS wrapper of each kind of function (src/aws/lambda*.ts). */
const WRAPPERS: Record<FunctionKind, HandlerRef> = {
  route: "aws/lambda.ts#lambda",
  "route-group": "aws/lambda-routes.ts#lambdaRoutes",
  "link-route": "aws/lambda.ts#lambda",
  authorizer: "aws/lambda.ts#lambda",
  worker: "aws/lambda-worker.ts#lambdaWorker",
  "table-stream": "aws/lambda-table-stream.ts#lambdaTableStream",
  job: "aws/lambda-job.ts#lambdaJob",
};

/** The TypeScript source of a function's entry. */
export const entrySource = (row: FunctionRow): string => {
  const imports = new Map<string, Set<string>>();
  const owners = new Map<string, string>();
  const use = (ref: HandlerRef): string => {
    const { path, name } = parseHandlerRef(ref);
    const owner = owners.get(name);
    if (owner !== undefined && owner !== path) {
      throw new Error(`${row.id}: ${name} is exported by both ${owner} and ${path}`);
    }
    owners.set(name, path);
    imports.set(path, (imports.get(path) ?? new Set()).add(name));
    return name;
  };
  const wrapper = use(WRAPPERS[row.kind]);
  const composition =
    row.kind === "route-group"
      ? `[${row.routes.map((route) => use(route.handler)).join(", ")}]`
      : use(row.handler);
  const tables = Object.keys(row.uses.tables ?? {}).map(
    (table) => `${table}: ${use(TABLE_DEFINITIONS[table as TableId].store)}`,
  );
  const providers = NON_TABLE_KINDS.filter((kind) => row.uses[kind] !== undefined).map(
    (kind) => `${kind}: ${use(providerOf(kind, row.uses))}`,
  );
  const parts = [...(tables.length > 0 ? [`tables: { ${tables.join(", ")} }`] : []), ...providers];
  const importLines = [...imports]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, names]) => `import { ${[...names].sort().join(", ")} } from "../../src/${path}";`);
  return [
    `// The ${row.kind === "route-group" ? "route group" : row.kind} ${row.id} on AWS, written by lambdas/entries.ts from its manifest row.`,
    ...importLines,
    "",
    `export const handler = await ${wrapper}(${composition}, { ${parts.join(", ")} });`,
    "",
  ].join("\n");
};

/** Writes a function's entry (only when it changed, so bundling caches hold) and returns its path. */
export const writeEntry = (id: string): string => {
  const file = join(ENTRIES_DIR, `${id}.ts`);
  const source = entrySource(functionOf(id as Parameters<typeof functionOf>[0]));
  let current: string | undefined;
  try {
    current = readFileSync(file, "utf8");
  } catch {
    current = undefined;
  }
  if (current !== source) {
    mkdirSync(ENTRIES_DIR, { recursive: true });
    writeFileSync(file, source);
  }
  return file;
};

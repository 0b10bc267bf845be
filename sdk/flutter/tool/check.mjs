// The checks this machine can make of the Flutter package, which has no Dart SDK here: every
// Dart file parses as Dart 3 (tree-sitter's grammar), and the rules written out on the Dart
// side (the EventType wire values, the log level bounds and default) are the shared
// conformance vectors' rules. Prints one line per check and a closing `N passed, N failed`.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Language, Parser } from "web-tree-sitter";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const conformance = join(root, "..", "conformance");
const vectors = (file) => JSON.parse(readFileSync(join(conformance, file), "utf8"));

await Parser.init();
const dart = await Language.load(
  createRequire(import.meta.url).resolve("tree-sitter-wasms/out/tree-sitter-dart.wasm"),
);
const parser = new Parser();
parser.setLanguage(dart);

const results = [];
const check = (name, problems) => {
  results.push(problems.length === 0);
  console.log(`${problems.length === 0 ? "ok  " : "FAIL"} ${name}`);
  for (const problem of problems) console.log(`       ${problem}`);
};

/** Syntax errors of a tree: its ERROR and MISSING nodes, with line and column. */
const syntaxErrors = (tree, file) => {
  const found = [];
  const visit = (node) => {
    if (node.type === "ERROR" || node.isMissing) {
      const { row, column } = node.startPosition;
      const what = node.isMissing
        ? `missing ${node.type}`
        : `unexpected '${node.text.slice(0, 40)}'`;
      found.push(`${file}:${row + 1}:${column + 1}: ${what}`);
      return;
    }
    if (node.hasError) for (const child of node.children) visit(child);
  };
  visit(tree.rootNode);
  return found;
};

const dartFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return dartFiles(path);
    return entry.name.endsWith(".dart") ? [path] : [];
  });

const sources = new Map();
for (const path of [...dartFiles(join(root, "lib")), ...dartFiles(join(root, "test"))]) {
  const file = relative(root, path);
  const text = readFileSync(path, "utf8");
  sources.set(file, { text, tree: parser.parse(text) });
  check(`${file} parses as Dart`, syntaxErrors(sources.get(file).tree, file));
}

/** The named declarations of a file's tree whose node type is `type`. */
const declarations = (file, type) => {
  const found = [];
  const visit = (node) => {
    if (node.type === type) found.push(node);
    for (const child of node.namedChildren) visit(child);
  };
  visit(sources.get(file).tree.rootNode);
  return found;
};

// EventType: the enum's cases in the vectors' order, and the extension's wire value for each.
const eventTypes = vectors("event-types.json").eventTypes;
const eventFile = join("lib", "src", "event_type.dart");
const [enumNode] = declarations(eventFile, "enum_declaration");
const cases = enumNode
  ? declarations(eventFile, "enum_constant").map((node) => node.text.trim())
  : [];
check(
  "EventType has the vectors' Flutter cases, in their order",
  JSON.stringify(cases) === JSON.stringify(eventTypes.map((t) => t.flutter))
    ? []
    : [`cases ${cases.join(", ")}`],
);
const [extension] = declarations(eventFile, "extension_declaration");
const wire = new Map(
  [...(extension?.text ?? "").matchAll(/EventType\.(\w+)\s*=>\s*'([A-Z_]+)'/g)].map((m) => [
    m[1],
    m[2],
  ]),
);
check(
  "EventTypeExtension.name gives each case's wire value",
  eventTypes
    .filter((t) => wire.get(t.flutter) !== t.wire)
    .map((t) => `${t.flutter}: ${wire.get(t.flutter)} instead of ${t.wire}`),
);

// Log levels: the bounds configure checks and its default.
const levels = vectors("log-levels.json");
const plugin = sources.get(join("lib", "src", "service_plugin.dart"))?.text ?? "";
const constant = (name) => Number(new RegExp(`${name}\\s*=\\s*(-?\\d+)`).exec(plugin)?.[1]);
const values = levels.levels.map((level) => level.value);
check("configure takes log levels 0 to 3, as the vectors do", [
  ...(constant("_minLogLevel") === Math.min(...values) ? [] : ["_minLogLevel differs"]),
  ...(constant("_maxLogLevel") === Math.max(...values) ? [] : ["_maxLogLevel differs"]),
  ...levels.invalid
    .filter((value) => value >= constant("_minLogLevel") && value <= constant("_maxLogLevel"))
    .map((value) => `${value} is invalid in the vectors but within the bounds`),
]);
check(
  "configure's logLevel defaults to the vectors' Flutter default",
  constant("int logLevel") === levels.default.flutter ? [] : ["the default differs"],
);

const passed = results.filter(Boolean).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exitCode = passed === results.length ? 0 : 1;

// Parses one Swift file for check.mjs, in a worker thread of its own: the grammar's scanner
// keeps state from one parse to the next in the same WebAssembly instance (after a first parse,
// no raw string `#"…"#` scans again), so every file gets a fresh instance. The main thread
// compiled both WebAssembly modules once and sends them; the tree goes back as plain objects:
// type, range, position, flags and children with their field names.
import { readFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { Language, Parser } from "web-tree-sitter";

const { runtime, swift, swiftBytes, path } = workerData;
await Parser.init({
  instantiateWasm: (imports, done) => {
    WebAssembly.instantiate(runtime, imports).then((instance) => done(instance, runtime));
    return {};
  },
});
// The grammar's bytes are what the language loads: they instantiate the module already made.
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = (source, imports) =>
  source === swiftBytes
    ? instantiate(swift, imports).then((instance) => ({ module: swift, instance }))
    : instantiate(source, imports);
const language = await Language.load(swiftBytes);
WebAssembly.instantiate = instantiate;
const parser = new Parser();
parser.setLanguage(language);
const tree = parser.parse(readFileSync(path, "utf8"));
const plain = (node) => ({
  type: node.type,
  named: node.isNamed,
  start: node.startIndex,
  end: node.endIndex,
  row: node.startPosition.row,
  column: node.startPosition.column,
  missing: node.isMissing,
  error: node.hasError,
  children: node.children.map((child, index) => ({
    ...plain(child),
    field: node.fieldNameForChild(index),
  })),
});
parentPort?.postMessage(plain(tree.rootNode));

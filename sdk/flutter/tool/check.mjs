// The checks this machine can make of the Flutter package, which has no Dart SDK here: every
// Dart file parses as Dart 3 (tree-sitter's grammar); the rules written out on the Dart side
// (the EventType wire values, the log level bounds and default, the drop reasons, error kinds
// and deep link kinds, the direct links kept for a listener) are the shared conformance
// vectors' rules; ServicePlugin has every member
// of docs/sdks.md's Flutter column with its types; every channel method the Dart side invokes is
// handled by the Android plugin (which reads only argument keys Dart sends) and named by the iOS
// plugin, and every call they make back is handled by Dart with the keys it reads; both of
// Dart's link calls tell the native SDK of the link; the iOS plugin hands the link that opens the
// app to the iOS SDK as an application and a scene delegate, clears only the SDK listeners its
// engine set (and those when the engine goes away, published so that the engine tells it) and
// sends the configure completion's refusal to the error stream; the iOS SDK declares each member
// the iOS plugin uses; pubspec.yaml's platforms, classes and version are the plugins'; the
// Android library's SDK levels, versions, dependencies and permissions are the Kotlin SDK's,
// whose sources and R8 rules are where android/build.gradle finds them, and android/build.gradle
// assigns its properties with `=` and applies the Kotlin Gradle plugin only where AGP's
// built-in Kotlin does not compile; CHANGELOG.md's newest entry is pubspec.yaml's version;
// waitForTrackingAuthorization's bounds are the iOS SDK's, checked in Dart before the channel,
// its timeout handed to the iOS SDK and nothing held on Android; no channel call lets a
// MissingPluginException (web, desktop) reach the app; every public member of ServicePlugin has
// its own doc comment; the README's quick start is a whole Dart file; the plugin and its example
// include flutter_lints' rules, which each declares. Prints one line per check and a closing
// `N passed, N failed`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Language, Parser } from "web-tree-sitter";
import { syntaxErrors } from "../../syntax-errors.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const conformance = join(root, "..", "conformance");
/** A file's text, or "" when it does not exist. */
const read = (path) => (existsSync(path) ? readFileSync(path, "utf8") : "");
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

const dartFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return dartFiles(path);
    return entry.name.endsWith(".dart") ? [path] : [];
  });

const sources = new Map();
for (const path of [
  ...dartFiles(join(root, "lib")),
  ...dartFiles(join(root, "test")),
  ...dartFiles(join(root, "example", "lib")),
]) {
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

// The example app (example/lib/main.dart) and the README's snippets call ServicePlugin: each
// member they name is one the plugin declares, static, so that neither drifts from the API.
const exampleFile = join("example", "lib", "main.dart");
const pluginText = sources.get(join("lib", "src", "service_plugin.dart"))?.text ?? "";
const readmeDart = [...read(join(root, "README.md")).matchAll(/```dart\n([\s\S]*?)```/g)]
  .map((m) => m[1])
  .join("\n");
const calledMembers = (text) => [
  ...new Set([...text.matchAll(/ServicePlugin\.(\w+)/g)].map((m) => m[1])),
];
const undeclared = (names) =>
  names.filter(
    (name) =>
      !new RegExp(
        `static\\b[^;{=]*?\\b(get\\s+)?${name}\\b\\s*[({=]|static[^;{(]*\\bget\\s+${name}\\b`,
      ).test(pluginText),
  );
const exampleCalls = calledMembers(sources.get(exampleFile)?.text ?? "");
check(
  `the example app calls only ServicePlugin members the plugin declares (${exampleCalls.length})`,
  [
    ...(sources.has(exampleFile) ? [] : [`${exampleFile} is missing`]),
    ...(exampleCalls.includes("configure") ? [] : ["the example does not configure the SDK"]),
    ...undeclared(exampleCalls).map(
      (name) => `${exampleFile}: ServicePlugin.${name} is not declared`,
    ),
  ],
);
// The README's quick start (the first Dart snippet under "## Use") is a whole Dart file, as an
// app developer pastes it into lib/main.dart: it parses with no statement outside a function,
// and its main binds Flutter before configure, which a channel call needs.
{
  const readme = read(join(root, "README.md"));
  const use = readme.slice(readme.indexOf("\n## Use\n"));
  const quickStart = /```dart\n([\s\S]*?)```/.exec(use)?.[1] ?? "";
  const mainBody = /Future<void> main\(\) async \{([\s\S]*?)\n\}/.exec(quickStart)?.[1] ?? "";
  check("the README's quick start is a whole Dart file whose main binds Flutter, then configures", [
    ...(quickStart ? [] : ["README.md has no Dart snippet under ## Use"]),
    ...syntaxErrors(parser.parse(quickStart), "README.md quick start"),
    ...(/^import 'package:service_attribution\/service_attribution\.dart';$/m.test(quickStart)
      ? []
      : ["it does not import package:service_attribution/service_attribution.dart"]),
    ...(mainBody.indexOf("WidgetsFlutterBinding.ensureInitialized()") >= 0 &&
    mainBody.indexOf("WidgetsFlutterBinding.ensureInitialized()") <
      mainBody.indexOf("await ServicePlugin.configure(")
      ? []
      : ["its main does not call WidgetsFlutterBinding.ensureInitialized() before configure"]),
  ]);
}
const readmeCalls = calledMembers(readmeDart);
check(
  `the README's Dart snippets call only ServicePlugin members the plugin declares (${readmeCalls.length})`,
  undeclared(readmeCalls).map((name) => `README.md: ServicePlugin.${name} is not declared`),
);
// The attribution keys the example shows are the attribution route's: its contract names each
// (`src/http/contracts/install-attribution.ts`), backticked.
const attributionContract = read(
  join(root, "..", "..", "src", "http", "contracts", "install-attribution.ts"),
);
const shownKeys = [
  ...new Set(
    [...(sources.get(exampleFile)?.text ?? "").matchAll(/_attribution!\['(\w+)'\]/g)].map(
      (m) => m[1],
    ),
  ),
];
check(
  `the example reads only attribution keys the attribution route names (${shownKeys.join(", ")})`,
  [
    ...(shownKeys.length === 0 ? ["the example reads no attribution key"] : []),
    ...shownKeys
      .filter((key) => !attributionContract.includes(`\`${key}\``))
      .map((key) => `${exampleFile}: '${key}' is no key of the attribution's map`),
  ],
);
check(
  "example/pubspec.yaml takes the plugin from this folder",
  /service_attribution:\s*\n\s+path:\s*\.\.\/?\s*\n/.test(
    read(join(root, "example", "pubspec.yaml")),
  )
    ? []
    : ["example/pubspec.yaml does not depend on service_attribution by `path: ../`"],
);
// The lints `flutter create --template=plugin` sets up, for `flutter analyze` where Flutter is:
// each package (the plugin, the example) includes Flutter's set, which it resolves from its own
// dev dependencies.
check(
  "analysis_options.yaml includes package:flutter_lints, which each pubspec declares",
  ["", "example"].flatMap((folder) => {
    const at = (file) => join(folder, file);
    const options = read(join(root, folder, "analysis_options.yaml"));
    const pubspecText = read(join(root, folder, "pubspec.yaml"));
    const devDependencies = /^dev_dependencies:\n((?:(?: .*)?\n)*)/m.exec(pubspecText)?.[1] ?? "";
    return [
      ...(!options
        ? [`there is no ${at("analysis_options.yaml")}`]
        : /^include:\s*package:flutter_lints\/flutter\.yaml\s*$/m.test(options)
          ? []
          : [`${at("analysis_options.yaml")} does not include package:flutter_lints/flutter.yaml`]),
      ...(/^ {2}flutter_lints:\s*\S/m.test(devDependencies)
        ? []
        : [`${at("pubspec.yaml")} has no flutter_lints among its dev_dependencies`]),
    ];
  }),
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

// Listeners, consent and delivery (docs/sdks.md): every name of the table's Flutter column is
// a static member of ServicePlugin with the types the table gives, and the wire values the Dart
// side decodes (drop reasons, error kinds, deep link kinds) are the conformance files'.
const docs = read(join(root, "..", "..", "docs", "sdks.md"));
const section = docs.slice(docs.indexOf("## Listeners, consent and delivery"));
const tableRows = section
  .split("\n")
  .filter((line) => line.startsWith("|"))
  .map((line) => line.split("|").map((cell) => cell.trim()));
const flutterColumn = tableRows[0]?.findIndex((cell) => cell.startsWith("Flutter")) ?? -1;
/** What the table's Flutter column asks of ServicePlugin: one entry per backticked member. */
const asked = [];
for (const row of tableRows.slice(2)) {
  // The cell's names come before its tests (`<br>test: …`).
  const cell = (row[flutterColumn] ?? "").split("<br>")[0]?.trim() ?? "";
  const getter = /^`(\w+)`:\s*`([^`]+)`$/.exec(cell);
  if (getter) {
    asked.push({ name: getter[1], getterType: getter[2] });
    continue;
  }
  for (const span of cell.matchAll(/`(\w+)\(([^`]*?)\)(?::\s*([^`]+))?`/g)) {
    asked.push({ name: span[1], params: span[2], returns: span[3] });
  }
}
const compact = (text) => text.replace(/\s+/g, "");
/** A static member's declaration: its return type and parameter list, or undefined. */
const member = (name) => {
  const match = new RegExp(`static\\s+([\\w<>?, ]+?)\\s+${name}\\(`).exec(plugin);
  if (!match) return undefined;
  return { returns: match[1], params: argumentsText(plugin, match.index + match[0].length) };
};
check(
  "ServicePlugin has every member of docs/sdks.md's Flutter column, with its types",
  flutterColumn < 0 || asked.length < 10
    ? [`docs/sdks.md's table gives ${asked.length} Flutter members`]
    : asked.flatMap((want) => {
        if (want.getterType) {
          const found = new RegExp(`static\\s+([\\w<>?, ]+?)\\s+get\\s+${want.name}\\b`).exec(
            plugin,
          );
          return found && compact(found[1]) === compact(want.getterType)
            ? []
            : [`${want.name}: no static getter of type ${want.getterType}`];
        }
        const found = member(want.name);
        if (!found) return [`${want.name}: no static method`];
        const problems = [];
        if (want.returns && compact(found.returns) !== compact(want.returns)) {
          problems.push(`${want.name} returns ${found.returns}, not ${want.returns}`);
        }
        // Each parameter the table names (`Uri`, `bool`, `bool? gdprApplies`) is declared so.
        const ours = compact(found.params);
        for (const param of want.params
          .replace(/[{}]/g, "")
          .split(",")
          .map((p) => p.trim())) {
          if (!param) continue;
          if (!ours.includes(compact(param))) problems.push(`${want.name}: no parameter ${param}`);
        }
        if (want.params.includes("{") !== found.params.trim().startsWith("{")) {
          problems.push(`${want.name}: named parameters differ from the table's`);
        }
        return problems;
      }),
);

const listenersFile = join("lib", "src", "listeners.dart");
const listenersText = sources.get(listenersFile)?.text ?? "";
/** The wire values of an extension's `get wire` switch: Dart case name to wire string. */
const wireOf = (enumName) => {
  const extension = new RegExp(`extension \\w+ on ${enumName} \\{([\\s\\S]*?)\\n\\}`).exec(
    listenersText,
  )?.[1];
  return new Map(
    [
      ...(extension ?? "").matchAll(new RegExp(`${enumName}\\.(\\w+)\\s*=>\\s*'([a-z_]+)'`, "g")),
    ].map((m) => [m[1], m[2]]),
  );
};
/** The cases of a Dart enum, in order. */
const casesOf = (enumName) => {
  const body = new RegExp(`enum ${enumName} \\{([\\s\\S]*?)\\n\\}`).exec(listenersText)?.[1] ?? "";
  return [...body.replace(/\/\/\/.*$/gm, "").matchAll(/^\s*(\w+),?\s*$/gm)].map((m) => m[1]);
};
const delivery = vectors("delivery.json");
const listenerVectors = vectors("listeners.json");
// The deep link kinds in the order the description names them (direct, then deferred).
const deepLinkKinds = [
  ...new Set(
    [...listenerVectors.direct, ...listenerVectors.deferred]
      .map((vector) => vector.deepLink?.kind)
      .filter(Boolean),
  ),
];
for (const [enumName, want, source] of [
  ["ServiceDropReason", Object.keys(delivery.dropReasons), "delivery.json's dropReasons"],
  ["ServiceErrorKind", Object.keys(delivery.errorKinds), "delivery.json's errorKinds"],
  ["ServiceDeepLinkKind", deepLinkKinds, "listeners.json's deep link kinds"],
]) {
  const wires = wireOf(enumName);
  const cases = casesOf(enumName);
  check(`${enumName}'s wire values are ${source}, in order`, [
    ...(JSON.stringify(cases.map((c) => wires.get(c))) === JSON.stringify(want)
      ? []
      : [`cases ${cases.join(", ")} give ${cases.map((c) => wires.get(c)).join(", ")}`]),
  ]);
}
// Direct links handed over before onDeepLink has a listener: listeners.json's bound, the
// oldest dropped for the newest, and the Dart test that runs it.
const listenersTest = read(join(root, "test", "listeners_test.dart"));
check("direct links wait for a listener as listeners.json says: the most recent, in order", [
  ...(constant("_maxPendingDirectLinks") === listenerVectors.maxPendingDirectLinks
    ? []
    : [
        `_maxPendingDirectLinks is ${constant("_maxPendingDirectLinks")}, listeners.json's maxPendingDirectLinks ${listenerVectors.maxPendingDirectLinks}`,
      ]),
  // The bound counts direct links alone, and only a direct link makes room (the oldest direct
  // one), as in the native SDKs: taps never push out the deferred link waiting with them.
  ...(/_pendingLinks\.add\(link\);\s*bool isDirect\(ServiceDeepLink pending\) => pending\.kind == ServiceDeepLinkKind\.direct;\s*if \(_pendingLinks\.where\(isDirect\)\.length > _maxPendingDirectLinks\) \{\s*_pendingLinks\.removeAt\(_pendingLinks\.indexWhere\(isDirect\)\);/.test(
    plugin,
  )
    ? []
    : [
        "_deliverLink does not keep the most recent direct links, the oldest direct one dropped, the deferred one never",
      ]),
  ...(listenersTest.includes("a deferred link waiting for a listener is not pushed out")
    ? []
    : ["listeners_test.dart does not test that direct links never push out the deferred one"]),
  ...(/for \(final link in pending\) \{\s*_deepLinks\.add\(link\);/.test(plugin)
    ? []
    : ["onDeepLink's first listener does not get every waiting link, in order"]),
  ...(listenersTest.includes("['maxPendingDirectLinks']")
    ? []
    : ["listeners_test.dart does not test listeners.json's maxPendingDirectLinks"]),
]);

// The fields docs/sdks.md gives ServiceError and ServiceDeepLink, each a field of the Dart class
// that its fromChannel reads under the same key.
const classBody = (name) => {
  const start = listenersText.indexOf(`final class ${name} `);
  return start < 0 ? "" : listenersText.slice(start, listenersText.indexOf("\n}\n", start));
};
/** The backticked names of a docs/sdks.md sentence, what its parentheses say left out. */
const docFields = (sentence) =>
  [...(sentence ?? "").replace(/\([^)]*\)/g, "").matchAll(/`(\w+)`/g)].map((m) => m[1]);
const errorFields = docFields(
  /`ServiceError` \(iOS[^)]*\) carries\s+([\s\S]*?)\.\s/.exec(section)?.[1],
);
const deepLinkFields = docFields(/`ServiceDeepLink` carries\s+([\s\S]*?)\.\s/.exec(section)?.[1]);
for (const [name, fields] of [
  ["ServiceError", errorFields],
  ["ServiceDeepLink", deepLinkFields],
]) {
  const body = classBody(name);
  check(
    `${name} has docs/sdks.md's fields, each read from the channel under its name`,
    fields.length < 4
      ? [`docs/sdks.md names ${fields.length} fields of ${name}`]
      : fields.flatMap((field) => [
          ...(new RegExp(`final [\\w<>?, ]+ ${field};`).test(body) ? [] : [`no field ${field}`]),
          ...(body.includes(`arguments['${field}']`) ? [] : [`fromChannel never reads '${field}'`]),
        ]),
  );
}

// The method channel: every method the Dart side invokes is handled by each native side, which
// reads only argument keys that the Dart side sends with it.
const invoked = new Map();
const invocations = [...plugin.matchAll(/\.invokeMethod\b/g)];
const unnamed = [];
for (const match of invocations) {
  const call = /^\.invokeMethod(?:<[^(]*?>)?\(\s*'(\w+)'/.exec(plugin.slice(match.index));
  if (!call) {
    unnamed.push(`${plugin.slice(match.index, match.index + 60).split("\n")[0]}...`);
    continue;
  }
  const args = argumentsText(plugin, match.index + call[0].length);
  const keys = [...args.matchAll(/'(\w+)'\s*:/g)].map((m) => m[1]);
  invoked.set(call[1], new Set([...(invoked.get(call[1]) ?? []), ...keys]));
}
check(
  "the Dart side names each channel method with a string literal",
  invocations.length === 0 ? ["no invokeMethod call found"] : unnamed,
);

// Where no native side answers (web, desktop: the plugin has Android and iOS sides only) every
// channel call ends in a MissingPluginException, which must not stop the app (configure is
// awaited in main) nor leave an event lost without a word: each call goes through `_native`
// under its own method's name (null, with a warning), or is made in a function that catches
// MissingPluginException itself; the Dart tests run each call with no native side.
{
  /** The text of the static member that holds `index`: from its declaration to the next one's. */
  const memberAt = (index) => {
    const starts = [...plugin.matchAll(/\n {2}(?:\/\/\/[^\n]*\n {2})*static /g)].map(
      (m) => m.index,
    );
    const from = starts.filter((start) => start < index).at(-1) ?? 0;
    const to = starts.find((start) => start > index) ?? plugin.length;
    return plugin.slice(from, to);
  };
  const unguarded = [];
  for (const match of plugin.matchAll(/_channel\s*\.invokeMethod(?:<[^(]*?>)?\(\s*'(\w+)'/g)) {
    const before = plugin.slice(0, match.index);
    const wrapped = /_native\(\s*'(\w+)',\s*$/.exec(before);
    if (wrapped) {
      if (wrapped[1] !== match[1]) {
        unguarded.push(`${match[1]}: goes through _native as '${wrapped[1]}'`);
      }
      continue;
    }
    if (!/\bon MissingPluginException\b/.test(memberAt(match.index))) {
      unguarded.push(`${match[1]}: neither through _native nor in a function that catches it`);
    }
  }
  const dartTest = read(join(root, "test", "service_plugin_test.dart"));
  check("no channel call lets a MissingPluginException (web, desktop) reach the app", [
    ...unguarded,
    ...(/static Future<T\?> _native<T>\(String method, Future<T\?> call\) async \{\s*try \{\s*return await call;\s*\} on MissingPluginException \{/.test(
      plugin,
    )
      ? []
      : ["_native does not answer null for a MissingPluginException"]),
    ...(/group\('with no native side/.test(dartTest) &&
    /setMockMethodCallHandler\(channel, null\)/.test(dartTest)
      ? []
      : ["service_plugin_test.dart does not run the calls with no native side"]),
  ]);
}

// Every public member of ServicePlugin carries its own doc comment, directly above it: a
// comment that ends above a private helper documents the helper, and the public member under
// it shows none in the app's editor (as sendEvent's once did, above _isBlank).
{
  const lines = plugin.split("\n");
  const undocumented = [];
  let publicMembers = 0;
  lines.forEach((line, index) => {
    if (!/^ {2}static /.test(line)) return;
    const ends = ["(", " =>", " ="].map((end) => line.indexOf(end)).filter((at) => at >= 0);
    const head = ends.length ? line.slice(0, Math.min(...ends)) : line;
    const name = /(\w+)\s*$/.exec(head)?.[1];
    if (!name || name.startsWith("_")) return;
    publicMembers++;
    let above = index - 1;
    while (above >= 0 && /^\s*@/.test(lines[above])) above--;
    if (!/^\s*\/\/\//.test(lines[above] ?? "")) undocumented.push(`${name} (line ${index + 1})`);
  });
  check(
    `every public member of ServicePlugin (${publicMembers}) has its own doc comment directly above it`,
    [
      ...(publicMembers < 10 ? [`only ${publicMembers} public static members found`] : []),
      ...undocumented.map((name) => `${name} has none`),
    ],
  );
}

/** The text of a call's remaining arguments, from `start` to its closing parenthesis. */
function argumentsText(text, start) {
  let depth = 1;
  let quote = null;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0) return text.slice(start, i);
    }
  }
  return text.slice(start);
}

const kotlin = await Language.load(
  createRequire(import.meta.url).resolve("tree-sitter-wasms/out/tree-sitter-kotlin.wasm"),
);
const kotlinParser = new Parser();
kotlinParser.setLanguage(kotlin);
const androidFile = join(
  "android",
  "src",
  "main",
  "kotlin",
  "com",
  "service",
  "attribution",
  "flutter",
  "ServiceAttributionPlugin.kt",
);
const androidText = readFileSync(join(root, androidFile), "utf8");
const androidTree = kotlinParser.parse(androidText);
check(`${androidFile} parses as Kotlin`, syntaxErrors(androidTree, androidFile));
/** Each method the Android side's `when (call.method)` handles, with the argument keys it reads. */
const handled = new Map();
const visitKotlin = (node) => {
  if (
    node.type === "when_expression" &&
    /call\.method/.test(node.child(1)?.text ?? node.text.slice(0, 30))
  ) {
    for (const entry of node.namedChildren.filter((n) => n.type === "when_entry")) {
      const conditions = entry.namedChildren.filter((n) => n.type === "when_condition");
      const keys = [...entry.text.matchAll(/call\.argument<[^(]*?>\(\s*"(\w+)"\s*\)/g)].map(
        (m) => m[1],
      );
      for (const condition of conditions) {
        const literal = /^"(\w+)"$/.exec(condition.text.trim());
        if (literal) handled.set(literal[1], keys);
      }
    }
  }
  for (const child of node.namedChildren) visitKotlin(child);
};
visitKotlin(androidTree.rootNode);
check("every method the Dart side invokes is handled by the Android plugin", [
  ...[...invoked.keys()].filter((method) => !handled.has(method)).map((m) => `${m} is not handled`),
  ...[...handled].flatMap(([method, keys]) =>
    invoked.has(method)
      ? keys
          .filter((key) => !invoked.get(method).has(key))
          .map((key) => `${method}: reads ${key}, which Dart never sends`)
      : [],
  ),
]);

const swiftFile = join(
  "ios",
  "service_attribution",
  "Sources",
  "service_attribution",
  "ServiceAttributionPlugin.swift",
);
/** The Android side's JVM tests, which several checks read. */
const kotlinTestFile = join(
  "android",
  "src",
  "test",
  "kotlin",
  "com",
  "service",
  "attribution",
  "flutter",
  "ServiceAttributionPluginTest.kt",
);
const swiftTestFile = join(
  "ios",
  "service_attribution",
  "Tests",
  "service_attributionTests",
  "ServiceAttributionPluginTests.swift",
);
if (existsSync(join(root, swiftFile))) {
  const swift = await Language.load(
    createRequire(import.meta.url).resolve("tree-sitter-wasms/out/tree-sitter-swift.wasm"),
  );
  const swiftParser = new Parser();
  swiftParser.setLanguage(swift);
  const swiftTree = swiftParser.parse(readFileSync(join(root, swiftFile), "utf8"));
  check(`${swiftFile} parses as Swift`, syntaxErrors(swiftTree, swiftFile));
  // The XCTests of the iOS side, which run where Xcode is: parsed here.
  check(
    `${swiftTestFile} parses as Swift`,
    existsSync(join(root, swiftTestFile))
      ? syntaxErrors(swiftParser.parse(read(join(root, swiftTestFile))), swiftTestFile)
      : [`${swiftTestFile} is missing`],
  );
  const literals = new Set();
  const visitSwift = (node) => {
    if (node.type === "line_string_literal" && node.namedChildCount === 1) {
      literals.add(node.namedChildren[0].text);
    }
    for (const child of node.namedChildren) visitSwift(child);
  };
  visitSwift(swiftTree.rootNode);
  check(
    "every method the Dart side invokes is named by the iOS plugin",
    [...invoked.keys()].filter((method) => !literals.has(method)).map((m) => `${m} is not named`),
  );
} else {
  console.log(`skip ${swiftFile} is not in the repository: its methods are not checked`);
}

// The iOS plugin compiles nowhere here: each member of the iOS SDK it uses
// (`ServiceAttribution.x`) is at least declared, public and static, in sdk/ios's sources.
const iosSources = join(root, "..", "ios", "Sources");
const swiftPluginText = read(join(root, swiftFile));
if (existsSync(iosSources) && swiftPluginText) {
  const swiftFilesOf = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return swiftFilesOf(path);
      return entry.name.endsWith(".swift") ? [path] : [];
    });
  const iosText = swiftFilesOf(iosSources)
    .map((path) => readFileSync(path, "utf8"))
    .join("\n");
  const used = [
    ...new Set([...swiftPluginText.matchAll(/\bServiceAttribution\.(\w+)/g)].map((m) => m[1])),
  ];
  check(
    "every member of the iOS SDK the iOS plugin uses is declared public static in sdk/ios",
    used
      .filter((name) => !new RegExp(`public static (?:func|var|let) ${name}\\b`).test(iosText))
      .map((name) => `ServiceAttribution.${name} is not declared`),
  );
}

/**
 * The body of the function whose declaration `signature` matches, from its `{` to its `}`; a
 * signature ending at its parameters' `(` has them skipped first (Dart's named ones are in braces).
 */
const bodyOf = (text, signature) => {
  const match = signature.exec(text);
  if (!match) return undefined;
  let from = match.index + match[0].length;
  if (match[0].endsWith("(")) from += argumentsText(text, from).length + 1;
  const open = text.indexOf("{", from);
  return open < 0 ? undefined : `{${argumentsText(text, open + 1)}}`;
};
/** A pattern of a declaration's words, any whitespace between them. */
const declared = (words) =>
  new RegExp(
    words
      .trim()
      .split(/\s+/)
      .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("\\s*"),
  );

// The link that opened the app reaches the native SDK, which sends it with a new install
// (`open_url`, whose click attributes the install): from Dart's handleUniversalLink as from its
// handleDeepLink (Android has no other way to it), and on iOS from UIKit itself, through the
// application delegate and, with the UIScene lifecycle (Flutter's default from 3.41, where
// UIKit calls no application delegate for links), the scene delegate.
{
  const tellsNative = (method) => {
    const body = bodyOf(plugin, new RegExp(`static Future<[\\w<>?]+> ${method}\\(`)) ?? "";
    const helpers = [...body.matchAll(/\b(_\w+)\(/g)].map((m) =>
      bodyOf(plugin, new RegExp(`static Future<void> ${m[1]}\\(`)),
    );
    return [body, ...helpers].some((text) =>
      /invokeMethod<void>\(\s*'handleDeepLink',\s*<String, Object\?>\{\s*'url':/.test(text ?? ""),
    );
  };
  check(
    "handleUniversalLink and handleDeepLink tell the native SDK of the link (a new install's open_url)",
    ["handleUniversalLink", "handleDeepLink"]
      .filter((method) => !tellsNative(method))
      .map((method) => `${method} makes no native handleDeepLink call with the url`),
  );
}
// waitForTrackingAuthorization: the Dart side refuses a timeout outside the iOS SDK's bounds
// before any channel call and sends it in seconds; the iOS plugin hands it to the iOS SDK, and
// the Android plugin answers at once, holding nothing (Android has no ATT); both sides' tests
// call it.
{
  const body = bodyOf(plugin, /static Future<void> waitForTrackingAuthorization\(/) ?? "";
  const dartBound = (name) =>
    Number(new RegExp(`${name} = Duration\\(seconds: (\\d+)\\)`).exec(plugin)?.[1]);
  const iosLimits = /trackingWaitLimits: ClosedRange<TimeInterval> = (\d+)\.\.\.(\d+)/.exec(
    read(join(iosSources, "ServiceAttribution", "Core", "SdkCore.swift")),
  );
  const swiftCase =
    /case "waitForTrackingAuthorization":([\s\S]*?)\n\s*case "/.exec(swiftPluginText)?.[1] ?? "";
  const kotlinTest = read(join(root, kotlinTestFile));
  const dartTest = read(join(root, "test", "service_plugin_test.dart"));
  check(
    "waitForTrackingAuthorization: the iOS SDK's bounds checked in Dart first, the timeout handed to the iOS SDK, nothing held on Android",
    [
      ...(!iosLimits
        ? ["sdk/ios's SdkCore has no trackingWaitLimits"]
        : dartBound("_minTrackingWait") === Number(iosLimits[1]) &&
            dartBound("_maxTrackingWait") === Number(iosLimits[2])
          ? []
          : [
              `Dart's bounds ${dartBound("_minTrackingWait")} to ${dartBound("_maxTrackingWait")} s are not the iOS SDK's ${iosLimits[1]} to ${iosLimits[2]}`,
            ]),
      ...(/timeout < _minTrackingWait \|\| timeout > _maxTrackingWait\) \{\s*throw ArgumentError/.test(
        body,
      ) && body.indexOf("throw ArgumentError") < body.indexOf("invokeMethod")
        ? []
        : ["the Dart side does not refuse a timeout out of bounds with an ArgumentError first"]),
      ...(/'timeoutSeconds': timeout\.inMicroseconds \/ Duration\.microsecondsPerSecond/.test(body)
        ? []
        : ["the Dart side does not send the timeout in seconds"]),
      ...(/arguments\["timeoutSeconds"\]/.test(swiftCase) &&
      /ServiceAttribution\.waitForTrackingAuthorization\(timeout: seconds\)/.test(swiftCase)
        ? []
        : ["the iOS plugin does not hand timeoutSeconds to the iOS SDK"]),
      ...(/"waitForTrackingAuthorization" -> result\.success\(null\)/.test(androidText)
        ? []
        : ["the Android plugin does not answer success at once"]),
      ...(/group\('waitForTrackingAuthorization'/.test(dartTest)
        ? []
        : ["service_plugin_test.dart does not test it"]),
      ...(/engine\.success\("waitForTrackingAuthorization"/.test(kotlinTest) &&
      kotlinTest.indexOf('engine.success("waitForTrackingAuthorization"') <
        kotlinTest.indexOf('engine.success("configure"')
        ? []
        : ["ServiceAttributionPluginTest does not call it before configure"]),
    ],
  );
}
if (swiftPluginText) {
  const handlers = [
    [
      "application(_:continue:restorationHandler:)",
      "func application( _ application: UIApplication, continue userActivity: NSUserActivity, restorationHandler: @escaping ([Any]) -> Void ) -> Bool",
      "userActivity",
    ],
    [
      "application(_:open:options:)",
      "func application( _ application: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any] = [:] ) -> Bool",
      "url",
    ],
    [
      "scene(_:willConnectTo:options:)",
      "func scene( _ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions? ) -> Bool",
      "userActivities",
    ],
    [
      "scene(_:continue:)",
      "func scene(_ scene: UIScene, continue userActivity: NSUserActivity) -> Bool",
      "userActivity",
    ],
    [
      "scene(_:openURLContexts:)",
      "func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) -> Bool",
      "URLContexts",
    ],
  ];
  const noted = (body) =>
    /ServiceAttribution\.handle(?:UniversalLink|DeepLink)\(/.test(body) ||
    (/noteOpening\(/.test(body) &&
      /ServiceAttribution\.handleUniversalLink\(userActivity\)/.test(swiftPluginText) &&
      /ServiceAttribution\.handleDeepLink\(url\)/.test(swiftPluginText));
  check(
    "the iOS plugin hands the link that opens the app to the iOS SDK, as an application and as a scene delegate",
    [
      ...(/class ServiceAttributionPlugin: NSObject, FlutterPlugin, FlutterSceneLifeCycleDelegate\b/.test(
        swiftPluginText,
      )
        ? []
        : ["the plugin is no FlutterSceneLifeCycleDelegate"]),
      ...["addApplicationDelegate", "addSceneDelegate"]
        .filter((add) => !new RegExp(`registrar\\.${add}\\(instance\\)`).test(swiftPluginText))
        .map((add) => `register(with:) does not call registrar.${add}`),
      ...handlers.flatMap(([name, signature, given]) => {
        const body = bodyOf(swiftPluginText, declared(`public ${signature}`));
        if (!body) return [`no public ${name}`];
        return [
          ...(noted(body) && body.includes(given)
            ? []
            : [`${name} does not hand ${given} to the iOS SDK`]),
          ...(/return false\s*\}$/.test(body)
            ? []
            : [`${name} does not leave the link to the app (return false)`]),
        ];
      }),
      ...(/urlContexts/.test(bodyOf(swiftPluginText, declared(`public ${handlers[2][1]}`)) ?? "")
        ? []
        : ["scene(_:willConnectTo:options:) does not hand the launch's URLs"]),
    ],
  );

  // The SDK's listeners are one per process: they call the plugin whose stream listened last,
  // and a plugin that stops (its engine going away included) gives its place back to the one
  // before it, as the Android side does: an engine's `listen(false)` or its end must not
  // silence another engine's streams. A FlutterEngine calls detachFromEngineForRegistrar: only
  // on the values its registrars published (FlutterEngine's dealloc), so register(with:)
  // publishes the plugin, else its detachFromEngine(for:) never runs.
  const registerBody =
    bodyOf(
      swiftPluginText,
      declared("public static func register(with registrar: FlutterPluginRegistrar)"),
    ) ?? "";
  const listenBody =
    bodyOf(swiftPluginText, declared("private func listen(_ name: String?, _ listening: Bool)")) ??
    "";
  const detachBody = bodyOf(
    swiftPluginText,
    declared("public func detachFromEngine(for registrar: FlutterPluginRegistrar)"),
  );
  check(
    "the iOS plugin calls the engine that listened last, and gives a stopped or ended one's place back to the one before it",
    [
      ...(/plugins\.removeAll\s*\{\s*\$0\s*===\s*self\s*\}/.test(listenBody) &&
      /if\s+listening\s*\{\s*plugins\.append\(self\)\s*\}/.test(listenBody) &&
      /let\s+told\s*=\s*plugins\.last/.test(listenBody) &&
      /if\s*!listening\s*&&\s*told\s*===\s*before\s*\{\s*return\s*\}/.test(listenBody)
        ? []
        : [
            "listen(_:_:) does not keep the listening plugins in order, calling the last and giving a stopped one's place back to the one before it",
          ]),
      ...(!detachBody
        ? ["no public detachFromEngine(for:)"]
        : /listen\(name, false\)/.test(detachBody) && /listenerNames/.test(detachBody)
          ? []
          : ["detachFromEngine(for:) does not clear the listeners its engine set"]),
      ...(/registrar\.publish\(instance\)/.test(registerBody)
        ? []
        : [
            "register(with:) does not publish the plugin (registrar.publish): the engine never calls its detachFromEngine(for:)",
          ]),
    ],
  );

  // The iOS SDK says it refused to start (no service address, a key rejected on GET /v1/config,
  // an app extension) only to the configure completion: the plugin passes one, and sends the
  // refusal to the Dart side's error stream as a `configuration` error, kept for a stream that
  // listens later.
  const configureCase = /case "configure":([\s\S]*?)\n\s*case "/.exec(swiftPluginText)?.[1] ?? "";
  const refusalBody =
    bodyOf(swiftPluginText, declared("static func refusalMap(_ error: Error) -> [String: Any]?")) ??
    "";
  check(
    "the iOS plugin sends the SDK's refusal to start (the configure completion) and every error told before a Dart error stream listens to the first that does",
    [
      ...(/completion:\s*\w+/.test(configureCase) && !/completion:\s*nil\b/.test(configureCase)
        ? []
        : ["configure passes the iOS SDK no completion"]),
      ...(/\.authentication\(let statusCode\)\?:\s*code = statusCode/.test(refusalBody) &&
      /\.missingBaseURL\?/.test(refusalBody) &&
      /"kind": ServiceError\.Kind\.configuration\.rawValue/.test(refusalBody)
        ? []
        : [
            "refusalMap does not make a configuration error of a rejected key and of a missing address",
          ]),
      ...(/Self\.tellError\(refusal\)/.test(configureCase) &&
      /pendingErrors\.append\(error\)/.test(swiftPluginText) &&
      /callDart\("onError", error\)/.test(swiftPluginText)
        ? []
        : ["a refusal is not sent on onError, or not kept for a later listener"]),
      // As on Android: the SDK's error listener set from the plugin's registration on (the iOS
      // SDK tells at once, and keeps for no later listener, the events a stop() before configure
      // drops, which the Android side tells at configure) and again at configure, what it hears
      // while no Dart stream listens kept (the 10 most recent) for the first that does.
      ...(/if !configureCalled \{ ServiceAttribution\.onError = errorRelay \}/.test(registerBody) &&
      /ServiceAttribution\.onError = Self\.errorRelay/.test(configureCase) &&
      /if pendingErrors\.count >= maxPendingErrors \{ pendingErrors\.removeFirst\(\) \}/.test(
        swiftPluginText,
      ) &&
      /static let maxPendingErrors = 10/.test(swiftPluginText) &&
      !/ServiceAttribution\.onError = nil/.test(swiftPluginText)
        ? []
        : [
            "an error told before the Dart error stream listens is lost (the relay is not set from the plugin's registration and configure on, or cleared when no stream listens)",
          ]),
    ],
  );
}

// On iOS the conversion values are evaluated in the iOS SDK's own sendEvent: the plugin's
// `sendEvent` must hand each event to it, and the SDK's enqueue must evaluate what it queues.
if (existsSync(iosSources) && swiftPluginText) {
  const sendCase = /case "sendEvent":([\s\S]*?)\n\s*case "/.exec(swiftPluginText)?.[1] ?? "";
  const sdkCore = read(join(iosSources, "ServiceAttribution", "Core", "SdkCore.swift"));
  // One event goes through the batch's enqueue, which evaluates each of its drafts.
  const enqueueOne =
    /private func enqueue\(_ draft: Draft\)[\s\S]*?\n {4}\}\n/.exec(sdkCore)?.[0] ?? "";
  const enqueue =
    /private func enqueue\(_ drafts: \[Draft\]\)[\s\S]*?\n {4}\}\n/.exec(sdkCore)?.[0] ?? "";
  check(
    "on iOS every event from Dart reaches the iOS SDK's sendEvent, which evaluates the conversion value schema",
    [
      ...(/ServiceAttribution\.sendEvent\(type, name: name, parameters:/.test(sendCase)
        ? []
        : ["the plugin's sendEvent does not call ServiceAttribution.sendEvent"]),
      ...(/return enqueue\(\[draft\]\)/.test(enqueueOne) &&
      /drafts\.forEach \{ evaluateConversion\(\$0\) \}/.test(enqueue)
        ? []
        : ["sdk/ios's SdkCore.enqueue does not evaluate the conversion value schema"]),
    ],
  );
}

// The other way: each call the native sides make to the Dart side (`onAttribution`,
// `onDeepLink`, `onError`) is handled by the Dart side's handler; the listener names the Dart
// side's `listen` sends are the native sides'; the keys of the maps they send are the ones the
// Dart side's fromChannel reads.
const dartHandles = new Set(
  [
    ...(/_onNativeCall\(MethodCall call\)[\s\S]*?\n {2}\}\n/.exec(plugin)?.[0] ?? "").matchAll(
      /case '(\w+)':/g,
    ),
  ].map((m) => m[1]),
);
const dartListeners = [...plugin.matchAll(/static const String _\w+Listener = '(\w+)';/g)].map(
  (m) => m[1],
);
const nativeCalls = (text, pattern) => new Set([...text.matchAll(pattern)].map((m) => m[1]));
const fromAndroid = nativeCalls(androidText, /toDart\("(\w+)"/g);
const fromIos = nativeCalls(read(join(root, swiftFile)), /callDart\("(\w+)"/g);
/** The keys of a native `channelMap` for a type, in the Kotlin or Swift text. */
const mapKeys = (text, start) => {
  const from = text.indexOf(start);
  if (from < 0) return [];
  // To the blank line after the function.
  const end = text.indexOf("\n\n", from);
  const body = text.slice(from, end < 0 ? undefined : end);
  return [...body.matchAll(/"(\w+)"\s*(?:to|:)/g)].map((m) => m[1]);
};
const readsOf = (name) => [...classBody(name).matchAll(/arguments\['(\w+)'\]/g)].map((m) => m[1]);
check("each call the native sides make to the Dart side is handled there, with the keys it reads", [
  ...(dartHandles.size === 0 ? ["no case in _onNativeCall"] : []),
  ...[...fromAndroid, ...fromIos]
    .filter((method) => !dartHandles.has(method))
    .map((method) => `${method} is not handled by the Dart side`),
  ...[...dartHandles]
    .filter((method) => !fromAndroid.has(method) || !fromIos.has(method))
    .map((method) => `${method} is not sent by both native sides`),
  ...dartListeners.flatMap((name) => [
    ...(androidText.includes(`"${name}"`) ? [] : [`the Android side has no listener ${name}`]),
    ...(read(join(root, swiftFile)).includes(`case "${name}":`)
      ? []
      : [`the iOS side has no listener ${name}`]),
  ]),
  ...[
    [
      "ServiceDeepLink",
      "fun channelMap(link: DeepLink)",
      "static func channelMap(_ deepLink: ServiceDeepLink)",
    ],
    [
      "ServiceError",
      "fun channelMap(error: ServiceError)",
      "static func channelMap(_ error: ServiceError)",
    ],
  ].flatMap(([name, kotlinStart, swiftStart]) => {
    const reads = readsOf(name).sort().join(", ");
    return [
      ["Android", mapKeys(androidText, kotlinStart)],
      ["iOS", mapKeys(read(join(root, swiftFile)), swiftStart)],
    ]
      .filter(([, keys]) => keys.sort().join(", ") !== reads)
      .map(
        ([side, keys]) =>
          `the ${side} side sends ${name} as ${keys.join(", ")}; Dart reads ${reads}`,
      );
  }),
]);

// pubspec.yaml: both platforms, each naming a class its side declares.
const pubspec = readFileSync(join(root, "pubspec.yaml"), "utf8");
const platform = (name) =>
  new RegExp(`\\n {6}${name}:\\n((?: {8}.*\\n?)+)`).exec(pubspec)?.[1] ?? "";
const pluginClass = (name) => /pluginClass:\s*(\w+)/.exec(platform(name))?.[1];
check("pubspec.yaml declares the android and ios platforms", [
  ...(pluginClass("android") ? [] : ["android has no pluginClass"]),
  ...(pluginClass("ios") ? [] : ["ios has no pluginClass"]),
]);
check("the android pluginClass is the Android plugin's package and class", [
  ...(/package:\s*com\.service\.attribution\.flutter\b/.test(platform("android")) &&
  /^package com\.service\.attribution\.flutter$/m.test(androidText)
    ? []
    : ["package differs"]),
  ...(new RegExp(`\\bclass ${pluginClass("android")}\\b`).test(androidText)
    ? []
    : ["class differs"]),
]);
const pubspecVersion = /^version:\s*(\S+)/m.exec(pubspec)?.[1];
check(
  "the Android plugin reports pubspec.yaml's version",
  /const val VERSION = "([^"]+)"/.exec(androidText)?.[1] === pubspecVersion
    ? []
    : [`VERSION is not ${pubspecVersion}`],
);
// CHANGELOG.md, which pub (and pub.dev's score) expects beside pubspec.yaml: its newest entry,
// the first `## ` heading, is the version pubspec.yaml gives.
const changelog = read(join(root, "CHANGELOG.md"));
check("CHANGELOG.md's newest entry is pubspec.yaml's version", [
  ...(!changelog
    ? ["there is no CHANGELOG.md"]
    : /^## (?:\[)?v?([\w.+-]+?)(?:\])?(?:\s|$)/m.exec(changelog)?.[1] === pubspecVersion
      ? []
      : [`its first ## heading is not ${pubspecVersion}`]),
]);
const dartChannel = /MethodChannel\('([^']+)'\)/.exec(plugin)?.[1];
const swiftText = read(join(root, swiftFile));
check("each side names the Dart side's method channel", [
  ...(/const val CHANNEL = "([^"]+)"/.exec(androidText)?.[1] === dartChannel
    ? []
    : ["the Android plugin's differs"]),
  ...(!swiftText || /channelName = "([^"]+)"/.exec(swiftText)?.[1] === dartChannel
    ? []
    : ["the iOS plugin's differs"]),
]);
if (swiftText) {
  check("the iOS plugin and its podspec report pubspec.yaml's version", [
    ...(/WrapperInfo\([^)]*version:\s*"([^"]+)"/.exec(swiftText)?.[1] === pubspecVersion
      ? []
      : ["the plugin's differs"]),
    ...(/s\.version\s*=\s*'([^']+)'/.exec(
      read(join(root, "ios", "service_attribution.podspec")),
    )?.[1] === pubspecVersion
      ? []
      : ["the podspec's differs"]),
  ]);
}
// The iOS SDK's pod the plugin's podspec depends on is the one the repository's root declares.
const rootPodspec = read(join(root, "..", "..", "ServiceAttribution.podspec"));
check("ios/service_attribution.podspec depends on the ServiceAttribution pod's version", [
  ...(/s\.version\s*=\s*'([^']+)'/.exec(rootPodspec)?.[1] ===
  /s\.dependency\s+'ServiceAttribution',\s*'([^']+)'/.exec(
    read(join(root, "ios", "service_attribution.podspec")),
  )?.[1]
    ? []
    : ["the versions differ, or ServiceAttribution.podspec is not at the repository's root"]),
]);
if (existsSync(join(root, swiftFile))) {
  check(
    "the ios pluginClass is the iOS plugin's class",
    new RegExp(`\\bclass ${pluginClass("ios")}\\b`).test(
      readFileSync(join(root, swiftFile), "utf8"),
    )
      ? []
      : [`no class ${pluginClass("ios")} in ${swiftFile}`],
  );
}

// The Android library: its SDK levels are the Kotlin SDK's, and its manifest declares the
// network and every permission the Kotlin SDK's manifest declares.
const kotlinSdk = join(root, "..", "kotlin");
const gradle = read(join(root, "android", "build.gradle"));
const kotlinBuild = [
  read(join(kotlinSdk, "gradle", "libs.versions.toml")),
  read(join(kotlinSdk, "build.gradle.kts")),
].join("\n");
/** The Kotlin SDK's value of a level (`minSdk = 26`, or `minSdk = "26"` in the version catalog). */
const kotlinLevel = (name) =>
  Number(
    new RegExp(`^\\s*(?:android-)?${name}(?:Version)?\\s*=\\s*"?(\\d+)"?`, "mi").exec(
      kotlinBuild,
    )?.[1],
  );
const flutterLevel = (name) =>
  Number(new RegExp(`^\\s*${name}(?:Version)?\\s*=?\\s*(\\d+)`, "m").exec(gradle)?.[1]);
for (const name of ["minSdk", "compileSdk"]) {
  const theirs = kotlinLevel(name);
  check(
    `android/build.gradle's ${name} is the Kotlin SDK's (${Number.isNaN(theirs) ? "none found" : theirs})`,
    Number.isNaN(theirs)
      ? [`sdk/kotlin/gradle/libs.versions.toml and build.gradle.kts name no ${name}`]
      : flutterLevel(name) === theirs
        ? []
        : [`android/build.gradle has ${flutterLevel(name)}`],
  );
}
const robolectricSdk = Number(
  /^sdk=(\d+)$/m.exec(
    read(join(root, "android", "src", "test", "resources", "robolectric.properties")),
  )?.[1],
);
check(
  "the JVM tests run on android/build.gradle's compileSdk (robolectric.properties)",
  robolectricSdk === flutterLevel("compileSdk") ? [] : [`sdk=${robolectricSdk}`],
);
const catalog = read(join(kotlinSdk, "gradle", "libs.versions.toml"));
/** A version of the Kotlin SDK's catalog ([versions]), or undefined while it has none. */
const catalogVersion = (name) => new RegExp(`^${name}\\s*=\\s*"([^"]+)"`, "m").exec(catalog)?.[1];
if (catalog) {
  check(
    "android/build.gradle's Kotlin and Android Gradle plugins are the Kotlin SDK's catalog's",
    [
      ["the Kotlin Gradle plugin", /kotlin_version\s*=\s*'([\w.-]+)'/, "kotlin"],
      ["the Android Gradle plugin", /com\.android\.tools\.build:gradle:([\w.-]+)/, "agp"],
    ].flatMap(([what, pattern, name]) => {
      const ours = pattern.exec(gradle)?.[1];
      return ours === catalogVersion(name)
        ? []
        : [`${what}: ${ours} instead of ${catalogVersion(name)}`];
    }),
  );
  check(
    "android/build.gradle compiles for the Kotlin SDK's language and standard library",
    [
      [
        "coreLibrariesVersion",
        /coreLibrariesVersion\s*=\s*'([\w.-]+)'/,
        catalogVersion("kotlinStdlib"),
      ],
      [
        "languageVersion",
        /languageVersion\.set\([\w.]+\.KOTLIN_(\d+)_(\d+)\)/,
        catalogVersion("kotlinLanguage"),
      ],
      [
        "apiVersion",
        /apiVersion\.set\([\w.]+\.KOTLIN_(\d+)_(\d+)\)/,
        catalogVersion("kotlinLanguage"),
      ],
    ].flatMap(([what, pattern, wanted]) => {
      const match = pattern.exec(gradle);
      const ours = match ? match.slice(1).join(".") : undefined;
      return wanted && ours === wanted ? [] : [`${what}: ${ours} instead of ${wanted}`];
    }),
  );
  // The SDK is compiled from its sources, so its dependencies are the plugin's: each
  // `implementation(libs.…)` of sdk/kotlin/build.gradle.kts, at the catalog's version.
  /** A catalog library alias (`kotlinx-coroutines-core`) as `group:name:version`. */
  const library = (alias) => {
    const line = new RegExp(`^${alias}\\s*=\\s*\\{([^}]*)\\}`, "m").exec(catalog)?.[1] ?? "";
    const module = /module\s*=\s*"([^"]+)"/.exec(line)?.[1];
    const version = catalogVersion(/version\.ref\s*=\s*"([^"]+)"/.exec(line)?.[1] ?? "");
    return module && version ? `${module}:${version}` : undefined;
  };
  const sdkDependencies = [
    ...read(join(kotlinSdk, "build.gradle.kts")).matchAll(/^\s*implementation\(libs\.([\w.]+)\)/gm),
  ].map((m) => m[1].replaceAll(".", "-"));
  const wanted = sdkDependencies.map((alias) => [alias, library(alias)]);
  check(
    "android/build.gradle declares the Kotlin SDK's dependencies at its catalog's versions",
    sdkDependencies.length === 0
      ? ["sdk/kotlin/build.gradle.kts has no implementation(libs.…) dependency"]
      : wanted.flatMap(([alias, coordinates]) =>
          !coordinates
            ? [`${alias} is not in the catalog`]
            : gradle.includes(`implementation '${coordinates}'`)
              ? []
              : [`no implementation '${coordinates}'`],
        ),
  );
}
/** android/build.gradle without its `//` comments. */
const gradleCode = gradle.replace(/\/\/[^\n]*/g, "");
// The Kotlin SDK's sources and R8 rules, where android/build.gradle finds them in a checkout
// (its `kotlinSdk`, relative to android/): the plugin builds nothing without them.
const kotlinSdkPath = /def kotlinSdk = file\('([^']+)'\)/.exec(gradle)?.[1];
check(
  "android/build.gradle finds the Kotlin SDK's sources and R8 rules in the checkout",
  !kotlinSdkPath
    ? ["android/build.gradle names no kotlinSdk folder"]
    : [
        ...(join(root, "android", kotlinSdkPath) === kotlinSdk
          ? []
          : [`${kotlinSdkPath} is not sdk/kotlin`]),
        ...[...gradle.matchAll(/"\$kotlinSdk\/([\w./-]+)"/g)]
          .map((m) => m[1])
          .filter((path) => !existsSync(join(kotlinSdk, path)))
          .map((path) => `sdk/kotlin/${path} does not exist`),
        ...(/srcDirs[^\n]*"\$kotlinSdk\/src\/main\/kotlin"/.test(gradle)
          ? []
          : ["the SDK's src/main/kotlin is not among the sources"]),
      ],
);
// Without sdk/kotlin beside it (a package archive), android/build.gradle depends on the SDK's
// published artifact instead: at the coordinates of sdk/kotlin's publishing block (its groupId
// and artifactId) and the catalog's sdk version, which the sources in the checkout are.
{
  const publication = read(join(kotlinSdk, "build.gradle.kts"));
  const groupId = /^\s*groupId = "([^"]+)"$/m.exec(publication)?.[1];
  const artifactId = /^\s*artifactId = "([^"]+)"$/m.exec(publication)?.[1];
  const published = `${groupId}:${artifactId}:${catalogVersion("sdk")}`;
  const declared = [
    ...gradleCode.matchAll(/implementation '([\w.-]+:attribution-sdk:[^']*)'/g),
  ].map((m) => m[1]);
  check(
    `android/build.gradle falls back on the Kotlin SDK's publication (${published}) without its sources`,
    [
      ...(groupId && artifactId && catalogVersion("sdk")
        ? []
        : [
            "sdk/kotlin/build.gradle.kts's publishing block or the catalog's sdk version is missing",
          ]),
      ...(declared.length === 1 && declared[0] === published
        ? []
        : [`android/build.gradle declares ${declared.join(", ") || "no attribution-sdk"}`]),
      ...(/def kotlinSdkSources = file\("\$kotlinSdk\/src\/main\/kotlin"\)\.isDirectory\(\)/.test(
        gradleCode,
      ) &&
      /if \(kotlinSdkSources\) \{[\s\S]*?\} else \{\s*implementation '[^']*attribution-sdk:/.test(
        gradleCode,
      )
        ? []
        : ["the artifact is not the fallback of a checkout without the SDK's sources"]),
    ],
  );
}
// Gradle's assignment form for properties: `namespace 'x'` and `compileSdk 34` (Groovy's
// `name value`) are deprecated from Gradle 8.14 and removed in Gradle 10.
check(
  "android/build.gradle assigns its properties with =",
  [
    ...gradleCode.matchAll(
      /^\s*(group|version|namespace|compileSdk|minSdk|targetSdk|sourceCompatibility|targetCompatibility|coreLibrariesVersion)\s+(?!=)\S.*$/gm,
    ),
  ].map((m) => `${m[0].trim()}`),
);
// Built by an AGP 9 app's built-in Kotlin, or by the Kotlin Gradle plugin under AGP 8 and under
// AGP 9 with built-in Kotlin off, as Flutter's built-in Kotlin migration guide for plugin
// authors has it: the Kotlin Gradle plugin applied only where AGP does not compile Kotlin
// itself, the top-level `kotlin { compilerOptions }` and no `kotlinOptions` (which built-in
// Kotlin lacks); the sources named as Kotlin folders, which built-in Kotlin reads.
const kgpApplications = [
  ...gradleCode.matchAll(/apply plugin:\s*'(?:kotlin-android|org\.jetbrains\.kotlin\.android)'/g),
];
const conditionalKgp =
  /if \(!builtInKotlin\) \{\s*apply plugin: 'kotlin-android'\s*\}/.test(gradleCode) &&
  /def builtInKotlin = agpMajor >= 9 &&/.test(gradleCode) &&
  /findProperty\('android\.builtInKotlin'\)/.test(gradleCode) &&
  /def agpMajor = com\.android\.Version\.ANDROID_GRADLE_PLUGIN_VERSION/.test(gradleCode);
check(
  "android/build.gradle builds with AGP 9's built-in Kotlin and with the Kotlin Gradle plugin",
  [
    ...(kgpApplications.length === 1 && conditionalKgp
      ? []
      : ["the Kotlin Gradle plugin is not applied once, only where built-in Kotlin is off"]),
    ...(/kotlinOptions/.test(gradleCode)
      ? ["kotlinOptions, which built-in Kotlin does not have"]
      : []),
    ...(/^kotlin \{[\s\S]*?compilerOptions \{/m.test(gradleCode)
      ? []
      : ["no top-level kotlin { compilerOptions { … } }"]),
    ...(/main\.kotlin\.srcDirs[^\n]*"\$kotlinSdk\/src\/main\/kotlin"/.test(gradleCode)
      ? []
      : ["the SDK's sources are not Kotlin source folders"]),
  ],
);
const permissions = (xml) =>
  new Set([...xml.matchAll(/<uses-permission\b[^>]*android:name="([^"]+)"/g)].map((m) => m[1]));
const ours = permissions(read(join(root, "android", "src", "main", "AndroidManifest.xml")));
const kotlinManifest = read(join(kotlinSdk, "src", "main", "AndroidManifest.xml"));
check("android/src/main/AndroidManifest.xml declares INTERNET and the Kotlin SDK's permissions", [
  ...(ours.has("android.permission.INTERNET") ? [] : ["android.permission.INTERNET is missing"]),
  ...[...permissions(kotlinManifest)].filter((p) => !ours.has(p)).map((p) => `${p} is missing`),
]);
// The SDK's providers (its start-up provider) are in its manifest, which the plugin does not
// merge, compiling the SDK's sources instead: the plugin's manifest declares each as it is.
const providers = (xml) =>
  [...xml.matchAll(/<provider\b[\s\S]*?\/>/g)].map((m) =>
    Object.fromEntries([...m[0].matchAll(/android:(\w+)="([^"]*)"/g)].map((a) => [a[1], a[2]])),
  );
const pluginManifest = read(join(root, "android", "src", "main", "AndroidManifest.xml"));
check("android/src/main/AndroidManifest.xml declares the Kotlin SDK's providers as it does", [
  ...providers(kotlinManifest)
    .filter(
      (provider) =>
        !providers(pluginManifest).some(
          (ours) => JSON.stringify(ours) === JSON.stringify(provider),
        ),
    )
    .map((provider) => `${provider.name} is missing or differs`),
  ...(providers(kotlinManifest).length > 0
    ? []
    : ["the Kotlin SDK's manifest declares no provider"]),
]);

// A hot restart keeps the engine and the plugin but not the isolate whose streams listened:
// the Dart side says when an error reached no listener, and both bridges ask for the answer,
// keeping what no Dart code took (errors, the deferred deep link) for the next listener.
const dartPlugin = read(join(root, "lib", "src", "service_plugin.dart"));
const swiftPlugin = read(join(root, swiftFile));
const kotlinPlugin = androidText;
check("what a restarted Dart side did not hear waits for its next listener", [
  ...(/case 'onError':\s*if \(!_errors\.hasListener\) return false;/.test(dartPlugin)
    ? []
    : ["the Dart side does not say that an error reached no listener"]),
  ...(/channel\.invokeMethod\(method, arguments, answer\)/.test(kotlinPlugin) &&
  /override fun notImplemented\(\) \{\s*for \(name in NAMES\) listen\(name, false\)/.test(
    kotlinPlugin,
  )
    ? []
    : ["the Android bridge calls the Dart side without reading its answer"]),
  ...(/channel\.invokeMethod\(method, arguments: arguments\) \{/.test(swiftPlugin) &&
  /=== FlutterMethodNotImplemented \{\s*for name in Self\.listenerNames \{ self\.listen\(name, false\) \}/.test(
    swiftPlugin,
  )
    ? []
    : ["the iOS bridge calls the Dart side without reading its answer"]),
  ...(/static var unheardDeferred/.test(swiftPlugin) &&
  /private var unheardDeferred/.test(kotlinPlugin)
    ? []
    : ["a deferred deep link no Dart code took is not kept"]),
  ...(read(join(root, "test.sh")).includes("HotRestartTest") ? [] : ["HotRestartTest is not run"]),
]);

// What the Dart side's handler fails on (an error answer: it threw) is no more heard than what
// no handler took: both bridges log it and keep it for the next listener, their streams still
// listening; a `false` answer stops only the listener of the method that gave it; an exception
// no method expected is answered with the documented code `native`, not Flutter's generic
// `error`. The JVM tests run them on Android (ServiceAttributionPluginTest's d2, d3 and f3), the
// XCTests (parsed above) on iOS where Xcode is.
{
  const kotlinAnswer =
    /val answer =\s*object : MethodChannel\.Result \{([\s\S]*?)\n {12}\}\n/.exec(
      kotlinPlugin,
    )?.[1] ?? "";
  const kotlinSuccess =
    /override fun success\(result: Any\?\) \{([\s\S]*?)\n {16}\}/.exec(kotlinAnswer)?.[1] ?? "";
  const kotlinError =
    /override fun error\([^)]*\) \{([\s\S]*?)\n {16}\}/.exec(kotlinAnswer)?.[1] ?? "";
  const swiftAnswer =
    /channel\.invokeMethod\(method, arguments: arguments\) \{([\s\S]*?)\n {12}\}\n/.exec(
      swiftPlugin,
    )?.[1] ?? "";
  const swiftError =
    /else if let failure = answer as\? FlutterError \{([\s\S]*?)\} else if/.exec(
      swiftAnswer,
    )?.[1] ?? "";
  const swiftFalse =
    /else if let heard = answer as\? Bool, !heard \{([\s\S]*?)\n {16}\}/.exec(swiftAnswer)?.[1] ??
    "";
  const onMethodCall =
    bodyOf(
      kotlinPlugin,
      /override fun onMethodCall\(call: MethodCall, result: MethodChannel\.Result\)/,
    ) ?? "";
  // From handle's declaration to the next function's: the whole switch runs inside answering.
  const handleBody =
    /public func handle\(_ call: FlutterMethodCall, result reply: @escaping FlutterResult\) \{([\s\S]*?)\n {4}\}\n/.exec(
      swiftPlugin,
    )?.[1] ?? "";
  const answeringBody = /static func answering\([\s\S]*?\n {4}\}\n/.exec(swiftPlugin)?.[0] ?? "";
  const kotlinTests = read(join(root, kotlinTestFile));
  const swiftTests = read(join(root, swiftTestFile));
  const readme = read(join(root, "README.md"));
  check(
    "a Dart handler's failure is kept for the next listener, a false answer stops its own listener, an unexpected exception answers native",
    [
      ...(/Log\.w\(TAG,/.test(kotlinError) &&
      /unheard\?\.invoke\(true\)/.test(kotlinError) &&
      !/listen\(/.test(kotlinError)
        ? []
        : [
            "the Android bridge does not log and keep what a Dart handler failed on (its error answer), its listeners kept",
          ]),
      ...(/Self\.log\(/.test(swiftError) &&
      /unheard\?\(true\)/.test(swiftError) &&
      !/listen\(/.test(swiftError)
        ? []
        : [
            "the iOS bridge does not log and keep what a Dart handler failed on (a FlutterError answer), its listeners kept",
          ]),
      ...(/if \(!failed\) return tellError\(error\)\s*synchronized\(owners\) \{ keepError\(error\) \}/.test(
        kotlinPlugin,
      ) &&
      /if failed \{\s*keepError\(error\)\s*\} else \{\s*tellError\(error\)\s*\}/.test(
        swiftPlugin,
      ) &&
      /if \(failed\) null else owners\[DEEP_LINK\]/.test(kotlinPlugin) &&
      /if !failed, let owner = Self\.owners\["deepLink"\]\?\.last/.test(swiftPlugin)
        ? []
        : [
            "an error or deferred deep link a Dart handler failed on is sent again at once, not kept for the next listener",
          ]),
      ...(/listenerOf\(method\)\?\.let \{ listen\(it, false\) \}/.test(kotlinSuccess) &&
      !/listen\(ERROR, false\)/.test(kotlinSuccess)
        ? []
        : [
            "the Android bridge's false answer does not stop only the listener of the method that answered",
          ]),
      ...(/if let name = Self\.listenerName\(of: method\) \{ self\.listen\(name, false\) \}/.test(
        swiftFalse,
      ) && !/listen\("error", false\)/.test(swiftFalse)
        ? []
        : [
            "the iOS bridge's false answer does not stop only the listener of the method that answered",
          ]),
      ...(/try \{\s*handle\(call, once\)\s*\} catch \(error: Exception\) \{[\s\S]*?Log\.e\([\s\S]*?once\.error\("native",/.test(
        onMethodCall,
      )
        ? []
        : ["the Android onMethodCall does not answer an unexpected exception with native, logged"]),
      ...(/^\s*Self\.answering\(call\.method, reply\) \{ result in\n[\s\S]*\bswitch call\.method \{[\s\S]*\n {8}\}$/.test(
        handleBody,
      ) && /catch \{[\s\S]*?log\(message\)[\s\S]*?FlutterError\(code: "native"/.test(answeringBody)
        ? []
        : ["the iOS handle does not answer an unexpected error with native, logged"]),
      ...["d2 ", "d3 ", "e2 ", "f3 "]
        .filter((name) => !kotlinTests.includes(`fun \`${name}`))
        .map((name) => `ServiceAttributionPluginTest has no test ${name.trim()}`),
      ...[
        "testWhatADartHandlerFailsOnIsKeptForTheNextListenerTheListenersKept",
        "testAFalseAnswerStopsOnlyTheListenerOfTheMethodThatAnsweredIt",
        "testAnErrorNoMethodExpectedIsAnsweredNativeOnce",
      ]
        .filter((name) => !swiftTests.includes(`func ${name}()`))
        .map((name) => `${swiftTestFile} has no ${name}`),
      ...(/any call[^.]*?unexpected[^.]*?`native`/i.test(readme)
        ? []
        : ["README.md does not say that an unexpected native failure of any call answers native"]),
    ],
  );
}

const passed = results.filter(Boolean).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exitCode = passed === results.length ? 0 : 1;

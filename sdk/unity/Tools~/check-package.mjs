// The checks this machine can make of the Unity package as Unity and its build tools read it,
// with no Unity here:
// - every asset Unity imports has its .meta (Unity's own format, the right importer, a GUID of
//   32 lowercase hex digits, unique), and no .meta is left without its asset;
// - the External Dependency Manager's Editor/*Dependencies.xml is well-formed and declares
//   exactly the Android libraries the Unity layer calls, and that layer waits for the Play
//   install referrer as long as the Kotlin SDK's does;
// - the iOS plugins parse (tree-sitter's Objective-C and Swift grammars) and between them define
//   every function the Unity layer imports; the Objective-C one reads ATT and AdServices only
//   behind @available and the IDFA only when ATT authorizes it, and its IDFV is the install's
//   `idfv` (never Unity's deviceUniqueIdentifier, the IDFA without one), the Swift one calls
//   SKAdNetwork and AdAttributionKit only behind the #available of each call's iOS version, builds a
//   PostbackUpdate (iOS 18 SDK) only under #if compiler(>=6.0), and makes the re-engagement's
//   update as the iOS SDK does (fine value 0, unlocked, `[.reengagement]` alone); each framework
//   they import is linked: by the plugin's importer settings, or weakly by the Editor's
//   post-build step where older iOS versions lack it, or, where older Xcode SDKs lack it too
//   (AdAttributionKit), by a `@_weakLinked import` under `#if canImport` alone, never by name;
// - the iOS plugin ships Apple's privacy manifest (Runtime/Plugins/iOS/PrivacyInfo.xcprivacy,
//   copied into the Xcode project for iOS), declaring exactly what the iOS SDK's does
//   (sdk/ios/Sources/ServiceAttribution/PrivacyInfo.xcprivacy; both parsed as property lists),
//   the plugins' required-reason and identifier reads among it;
// - package.json's license is the one the repository's podspecs declare, and LICENSE.md holds
//   its text;
// - what the SDK reaches only by reflection is kept from code stripping: [Preserve] on the
//   items Newtonsoft reads back, on AndroidJavaProxy's callbacks and on the behaviour's messages,
//   and Runtime/link.xml, which names only the SDK's own types and which an Editor linker step
//   hands to Unity's linker;
// - Samples~/ReadmeUsage.cs, which test.sh compiles as an app's script, holds the README's snippets;
// - each sample package.json offers is a folder of Samples~ with a script, and each such folder
//   is offered;
// - the README sends the app to Player Settings for no Info.plist key Unity has no field for;
// - Swift's runtime libraries are embedded in the app target, not in UnityFramework;
// - the assembly definitions keep the Editor code out of players.
// Prints one line per check and `package checks: N passed, N failed`; exits 1 on a failure.
//
// `node check-package.mjs --write-metas` writes the .meta of each asset that has none, its
// GUID the md5 of the asset's path in the package, so that a new file gets a stable one.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { Language, Parser } from "web-tree-sitter";
import { syntaxErrors } from "../../syntax-errors.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const rel = (path) => relative(root, path).split(sep).join("/");
const read = (file) => (existsSync(join(root, file)) ? readFileSync(join(root, file), "utf8") : "");

// ---- assets and their .meta files --------------------------------------------------------

/** Unity leaves out of a package what is hidden or ends in ~ (and all inside such a folder). */
const ignored = (name) => name.startsWith(".") || name.endsWith("~");

/** Every asset Unity imports: [package path, is a folder], parents before children. */
const assets = (dir = root) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !ignored(entry.name) && !entry.name.endsWith(".meta"))
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? [[rel(path), true], ...assets(path)] : [[rel(path), false]];
    });

const metaFiles = (dir = root) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !ignored(entry.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return metaFiles(path);
      return entry.name.endsWith(".meta") ? [rel(path)] : [];
    });

/** The importer Unity gives an asset, by its kind. */
const importerOf = (path, folder) => {
  if (folder) return "DefaultImporter";
  if (path === "package.json") return "PackageManifestImporter";
  if (path.endsWith(".cs")) return "MonoImporter";
  if (path.endsWith(".asmdef")) return "AssemblyDefinitionImporter";
  // A privacy manifest is a plug-in file too: Unity copies what a PluginImporter enables for iOS
  // into the Xcode project, where Xcode's build reads it.
  if (/\.(m|mm|h|a|aar|jar|so|swift|xcprivacy)$/.test(path)) return "PluginImporter";
  if (/\.(md|txt|xml|json)$/.test(path)) return "TextScriptImporter";
  return "DefaultImporter";
};

/**
 * The iOS plugins' platform settings: iOS alone, with the system frameworks each needs that
 * every supported iOS has (the newer ones are weak-linked by the Editor's post-build step).
 */
const IOS_FRAMEWORKS = { m: ["AdSupport"], swift: ["StoreKit"] };
const frameworksOf = (path) => IOS_FRAMEWORKS[path.split(".").pop()] ?? [];

const metaText = (path, folder) => {
  const guid = createHash("md5").update(`${manifest.name}/${path}`).digest("hex");
  const importer = importerOf(path, folder);
  const head = ["fileFormatVersion: 2", `guid: ${guid}`, ...(folder ? ["folderAsset: yes"] : [])];
  const tail = ["  userData: ", "  assetBundleName: ", "  assetBundleVariant: ", ""];
  if (importer === "MonoImporter") {
    return [
      ...head,
      "MonoImporter:",
      "  externalObjects: {}",
      "  serializedVersion: 2",
      "  defaultReferences: []",
      "  executionOrder: 0",
      "  icon: {instanceID: 0}",
      ...tail,
    ].join("\n");
  }
  if (importer === "PluginImporter") {
    return [
      ...head,
      "PluginImporter:",
      "  externalObjects: {}",
      "  serializedVersion: 2",
      "  iconMap: {}",
      "  executionOrder: {}",
      "  defineConstraints: []",
      "  isPreloaded: 0",
      "  isOverridable: 0",
      "  isExplicitlyReferenced: 0",
      "  validateReferences: 1",
      "  platformData:",
      "  - first:",
      "      Any: ",
      "    second:",
      "      enabled: 0",
      "      settings: {}",
      "  - first:",
      "      Editor: Editor",
      "    second:",
      "      enabled: 0",
      "      settings:",
      "        DefaultValueInitialized: true",
      "  - first:",
      "      iPhone: iOS",
      "    second:",
      "      enabled: 1",
      "      settings:",
      "        AddToEmbeddedBinaries: false",
      "        CPU: AnyCPU",
      "        CompileFlags: ",
      `        FrameworkDependencies: ${frameworksOf(path)
        .map((f) => `${f};`)
        .join("")}`,
      ...tail,
    ].join("\n");
  }
  return [...head, `${importer}:`, "  externalObjects: {}", ...tail].join("\n");
};

if (process.argv.includes("--write-metas")) {
  for (const [path, folder] of assets()) {
    const meta = join(root, `${path}.meta`);
    if (existsSync(meta)) continue;
    writeFileSync(meta, metaText(path, folder));
    console.log(`wrote ${path}.meta`);
  }
  process.exit(0);
}

const results = [];
const check = (name, problems) => {
  results.push(problems.length === 0);
  console.log(`${problems.length === 0 ? "ok  " : "FAIL"} ${name}`);
  for (const problem of problems) console.log(`       ${problem}`);
};

/** A .meta file's YAML, as far as these checks read it: top-level keys and the importer's. */
const parseMeta = (text) => {
  const lines = text.split("\n");
  const top = {};
  let importer = null;
  for (const line of lines) {
    const match = /^([A-Za-z]+):\s?(.*)$/.exec(line);
    if (!match) continue;
    if (match[2] === "" && /Importer$/.test(match[1])) importer = match[1];
    else top[match[1]] = match[2];
  }
  return { top, importer, lines };
};

const all = assets();
check(
  "every asset Unity imports has a .meta",
  all
    .filter(([path]) => !existsSync(join(root, `${path}.meta`)))
    .map(([path]) => `${path}: no .meta`),
);
check(
  "every .meta has its asset",
  metaFiles()
    .filter((meta) => !existsSync(join(root, meta.slice(0, -".meta".length))))
    .map((meta) => `${meta}: no asset`),
);
const guids = new Map();
const metaProblems = [];
for (const [path, folder] of all) {
  const file = join(root, `${path}.meta`);
  if (!existsSync(file)) continue;
  const { top, importer } = parseMeta(readFileSync(file, "utf8"));
  if (top.fileFormatVersion !== "2") metaProblems.push(`${path}.meta: fileFormatVersion is not 2`);
  if (!/^[0-9a-f]{32}$/.test(top.guid ?? ""))
    metaProblems.push(`${path}.meta: guid is not 32 lowercase hex digits`);
  else if (guids.has(top.guid))
    metaProblems.push(`${path}.meta: guid ${top.guid} is also ${guids.get(top.guid)}'s`);
  else guids.set(top.guid, path);
  if (folder !== (top.folderAsset === "yes"))
    metaProblems.push(`${path}.meta: folderAsset ${folder ? "missing" : "on a file"}`);
  const want = importerOf(path, folder);
  if (importer !== want)
    metaProblems.push(`${path}.meta: ${importer ?? "no importer"} instead of ${want}`);
}
check(
  "each .meta is Unity's format: version 2, a unique 32-hex GUID, the asset's importer",
  metaProblems,
);

// ---- the iOS plugin ----------------------------------------------------------------------

const objcPlugins = all.filter(([path]) => path.endsWith(".m")).map(([path]) => path);
const swiftPlugins = all.filter(([path]) => path.endsWith(".swift")).map(([path]) => path);
const privacyManifests = all.filter(([path]) => path.endsWith(".xcprivacy")).map(([path]) => path);
const plugins = [...objcPlugins, ...swiftPlugins, ...privacyManifests];
const pluginProblems = [];
for (const path of plugins) {
  const { lines } = parseMeta(read(`${path}.meta`));
  const text = lines.join("\n");
  const platform = (name) => {
    const match = new RegExp(
      `- first:\\n\\s+${name}: [^\\n]*\\n\\s+second:\\n\\s+enabled: (\\d)`,
    ).exec(text);
    return match ? match[1] : null;
  };
  if (platform("iPhone") !== "1") pluginProblems.push(`${path}.meta: not enabled for iOS`);
  for (const other of ["Any", "Editor"]) {
    if (platform(other) !== "0") pluginProblems.push(`${path}.meta: ${other} is not disabled`);
  }
  for (const other of ["Android", "WebGL", "Standalone", "tvOS", "OSXUniversal", "Win64"]) {
    if (platform(other) === "1") pluginProblems.push(`${path}.meta: enabled for ${other}`);
  }
}
check("the iOS plugins and their privacy manifest are built for iOS only", pluginProblems);

await Parser.init();
const objc = await Language.load(
  createRequire(import.meta.url).resolve("tree-sitter-wasms/out/tree-sitter-objc.wasm"),
);
const parser = new Parser();
parser.setLanguage(objc);

const descendants = (node) => [node, ...node.namedChildren.flatMap(descendants)];
const functionName = (definition) =>
  descendants(definition.childForFieldName("declarator")).find((n) => n.type === "identifier")
    ?.text;

/** The newest system APIs the plugin calls, with the iOS version that brought each. */
const NEWER_APIS = { ATTrackingManager: [14, 0], AAAttribution: [14, 3] };
/** The framework of each import, with the iOS version that brought it (older: always there). */
const FRAMEWORK_SINCE = {
  AppTrackingTransparency: [14, 0],
  AdServices: [14, 3],
  AdAttributionKit: [17, 4],
  AdSupport: [6, 0],
  StoreKit: [3, 0],
  Foundation: [2, 0],
  UIKit: [2, 0],
};
/**
 * Frameworks the SDKs of some Xcode versions Unity builds with do not have, with the first Xcode
 * whose SDK does: a link that names one (the Editor's post-build step) fails with the older ones
 * (`ld: framework not found`). A plugin imports such a framework only where the SDK has it
 * (`#if canImport`), with `@_weakLinked import`, which has the compiler link it, weakly, there.
 */
const NOT_IN_EVERY_XCODE = { AdAttributionKit: "Xcode 15.3 (the iOS 17.4 SDK)" };
/** The types of those frameworks the plugins name. */
const FRAMEWORK_TYPES = {
  AdAttributionKit: ["Postback", "PostbackUpdate", "CoarseConversionValue"],
};
/** Frameworks every Unity iOS player links already (it is a UIKit app): no plugin declares them. */
const ALWAYS_LINKED = ["Foundation", "UIKit"];
/** Unity 2021.3's lowest iOS target. */
const MIN_IOS = [12, 0];
const before = (a, b) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

const layer = read("Runtime/Unity/UnityServices.cs");
const imported = [
  ...layer.matchAll(/\[DllImport\("__Internal"\)\]\s*private static extern [\w.]+ (\w+)\(/g),
].map((m) => m[1]);
/** The functions a Swift plugin exports to C (`@_cdecl("Name")`). */
const swiftExports = new Map(
  swiftPlugins.flatMap((path) =>
    [...read(path).matchAll(/@_cdecl\("(\w+)"\)/g)].map((m) => [m[1], path]),
  ),
);
const objcExports = new Map();
const editor = read("Editor/ServiceSdkXcodeFrameworks.cs");
const weak = [
  ...(/WeakFrameworks =\s*\{([^}]*)\}/.exec(editor)?.[1] ?? "").matchAll(/"(\w+)\.framework"/g),
].map((m) => m[1]);
/** Every framework the plugins import, for the weak links that must be used by one of them. */
const importedFrameworks = new Set();

for (const path of objcPlugins) {
  const tree = parser.parse(read(path));
  check(`${path} parses as Objective-C`, syntaxErrors(tree, path));
  const functions = new Map(
    tree.rootNode.namedChildren
      .filter((n) => n.type === "function_definition")
      .map((n) => [functionName(n), n]),
  );
  for (const [name, node] of functions) {
    if (!node.text.startsWith("static")) objcExports.set(name, path);
  }
  const guarded = [];
  for (const node of descendants(tree.rootNode)) {
    const since = node.type === "identifier" ? NEWER_APIS[node.text] : undefined;
    if (!since) continue;
    let guard = null;
    for (let up = node.parent; up && !guard; up = up.parent) {
      if (up.type !== "if_statement") continue;
      const available = descendants(up.childForFieldName("condition")).find(
        (n) => n.type === "available_expression",
      );
      const version = available && descendants(available).find((n) => n.type === "version");
      if (version) guard = version.text.split(".").map(Number).concat(0).slice(0, 2);
    }
    if (!guard || before(guard, since)) {
      guarded.push(
        `${path}:${node.startPosition.row + 1}: ${node.text} (iOS ${since.join(".")}) outside @available(iOS ${since.join(".")}, *)`,
      );
    }
  }
  check(`${path} calls ATT and AdServices only behind @available`, guarded);
  const idfa = functions.get("ServiceSdkAdvertisingId");
  const idfaProblems = [];
  if (!idfa) idfaProblems.push("no ServiceSdkAdvertisingId");
  else {
    const nodes = descendants(idfa);
    const idfaRead = nodes.find((n) => n.type === "identifier" && n.text === "ASIdentifierManager");
    const gate = nodes.find(
      (n) =>
        n.type === "binary_expression" &&
        /!=\s*ATTrackingManagerAuthorizationStatusAuthorized/.test(n.text),
    );
    if (!idfaRead) idfaProblems.push("ServiceSdkAdvertisingId does not read ASIdentifierManager");
    if (!gate || (idfaRead && gate.startIndex > idfaRead.startIndex)) {
      idfaProblems.push(
        "ServiceSdkAdvertisingId reads the IDFA before checking that ATT authorized it",
      );
    }
  }
  if (
    !/signals\.AttStatus == "authorized"\) signals\.AdvertisingId = ServiceSdkAdvertisingId\(\)/.test(
      layer,
    )
  ) {
    idfaProblems.push("the Unity layer asks for the IDFA without ATT's authorized");
  }
  check(`${path} reads the IDFA only when ATT authorizes it`, idfaProblems);
  const frameworks = [...read(path).matchAll(/^#import <(\w+)\//gm)].map((m) => m[1]);
  for (const framework of frameworks) importedFrameworks.add(framework);
  const linkProblems = [];
  for (const framework of frameworks) {
    const since = FRAMEWORK_SINCE[framework];
    if (!since) linkProblems.push(`${framework}: not a framework these checks know`);
    else if (ALWAYS_LINKED.includes(framework)) continue;
    else if (before(MIN_IOS, since)) {
      if (!weak.includes(framework))
        linkProblems.push(
          `${framework} (iOS ${since.join(".")}) is not weak-linked by the Editor's post-build step`,
        );
      if (frameworksOf(path).includes(framework))
        linkProblems.push(`${framework} is linked as required by the importer settings`);
    } else if (!frameworksOf(path).includes(framework)) {
      linkProblems.push(`${framework} is not in the plugin's FrameworkDependencies`);
    }
  }
  const { lines } = parseMeta(read(`${path}.meta`));
  const declared =
    (lines.find((l) => l.trim().startsWith("FrameworkDependencies:")) ?? "")
      .split(":")[1]
      ?.trim() ?? "";
  if (
    declared !==
    frameworksOf(path)
      .map((f) => `${f};`)
      .join("")
  ) {
    linkProblems.push(
      `${path}.meta: FrameworkDependencies is '${declared}', not ${frameworksOf(path).join(";")};`,
    );
  }
  check(
    `${path}'s frameworks are linked (${frameworks.join(", ")}), the newer ones weakly`,
    linkProblems,
  );
}

// The Swift plugin: it parses, each of Apple's calls sits inside the `#available` of the iOS
// version that brought it, PostbackUpdate (the iOS 18 SDK's, which Xcode 16's Swift 6 brings)
// only where an older compiler skips it, the re-engagement's update is the iOS SDK's, and each
// framework it imports is linked (the newer ones weakly).
const swift = await Language.load(
  createRequire(import.meta.url).resolve("tree-sitter-wasms/out/tree-sitter-swift.wasm"),
);
/**
 * Each line of a Swift file with the `#if` conditions that hold there, outermost first; in an
 * `#else` branch its `#if`'s condition does not hold (an empty one stands in for it).
 */
const swiftConditions = (text) => {
  const stack = [];
  return text.split("\n").map((line) => {
    const trimmed = line.trim();
    const opened = /^#if\s+(.*)$/.exec(trimmed);
    const other = /^#elseif\s+(.*)$/.exec(trimmed);
    if (opened) stack.push(opened[1]);
    else if (other) stack[stack.length - 1] = other[1];
    else if (/^#else\b/.test(trimmed)) stack[stack.length - 1] = "";
    else if (/^#endif\b/.test(trimmed)) stack.pop();
    return [...stack];
  });
};
/** Whether one of these `#if` conditions holds only where the SDK has the framework. */
const underCanImport = (conditions, framework) =>
  conditions.some((c) => new RegExp(`(^|[^!\\w])canImport\\(${framework}\\)`).test(c));
/** The iOS version each of Apple's conversion value calls needs, from the call's text. */
const swiftSince = (call) => {
  if (call.startsWith("PostbackUpdate(")) return [18, 0];
  // Before 15.4 the first window's value is set by the call iOS 14 brought.
  if (call.startsWith("SKAdNetwork.updateConversionValue(")) return [14, 0];
  if (call.startsWith("Postback.updateConversionValue")) return [17, 4];
  if (!call.startsWith("SKAdNetwork.updatePostbackConversionValue")) return null;
  return /coarseValue:/.test(call) ? [16, 1] : [15, 4];
};
for (const path of swiftPlugins) {
  const swiftParser = new Parser();
  swiftParser.setLanguage(swift);
  const tree = swiftParser.parse(read(path));
  check(`${path} parses as Swift`, syntaxErrors(tree, path));
  const problems = [];
  const calls = [];
  const visit = (node, ifs) => {
    const inside = node.type === "if_statement" ? [...ifs, node] : ifs;
    const needed = node.type === "call_expression" ? swiftSince(node.text) : null;
    if (needed) {
      calls.push(node.text.split("(")[0]);
      const guard = [...inside]
        .reverse()
        .map((n) => /#available\(iOS (\d+)\.(\d+)/.exec(n.text.slice(0, n.text.indexOf("{"))))
        .find(Boolean);
      const version = guard ? [Number(guard[1]), Number(guard[2])] : null;
      if (!version || before(version, needed))
        problems.push(
          `${path}: ${node.text.split("{")[0].trim()} outside #available(iOS ${needed.join(".")}, *)`,
        );
      return;
    }
    for (const child of node.namedChildren) visit(child, inside);
  };
  visit(tree.rootNode, []);
  for (const call of [
    "SKAdNetwork.updatePostbackConversionValue",
    "Postback.updateConversionValue",
  ])
    if (!calls.includes(call)) problems.push(`${path}: ${call} is never called`);
  // Before iOS 15.4 the first launch is registered, and the first window's value set, by the
  // calls those versions have.
  for (const call of [
    "SKAdNetwork.registerAppForAdNetworkAttribution()",
    "SKAdNetwork.updateConversionValue(value)",
  ])
    if (!read(path).includes(call)) problems.push(`${path}: ${call} is never called`);
  check(`${path} calls SKAdNetwork and AdAttributionKit only behind #available`, problems);
  const source = read(path);
  const conditions = swiftConditions(source);
  const compilerProblems = source
    .split("\n")
    .map((line, row) => [line, row])
    .filter(([line]) => /\bPostbackUpdate\(/.test(line) && !line.trim().startsWith("//"))
    .filter(([, row]) => !conditions[row].some((c) => /\bcompiler\(>=\s*6(\.0)?\)/.test(c)))
    .map(([, row]) => `${path}:${row + 1}: PostbackUpdate outside #if compiler(>=6.0)`);
  check(
    `${path} builds a PostbackUpdate only under #if compiler(>=6.0) (Xcode 16, the iOS 18 SDK)`,
    compilerProblems,
  );
  // The re-engagement's update: the @_cdecl function that names `.reengagement` (the code
  // alone, without its comments).
  const reengageProblems = [];
  const code = source
    .split("\n")
    .filter((line) => !line.trim().startsWith("//"))
    .join("\n");
  const exported = code.split(/(?=@_cdecl\(")/).filter((chunk) => chunk.startsWith("@_cdecl("));
  const reengaging = exported.filter((chunk) => /\.reengagement\b/.test(chunk));
  if (reengaging.length !== 1) {
    reengageProblems.push(`${reengaging.length} exported functions name .reengagement, not 1`);
  } else {
    const body = reengaging[0];
    const name = /^@_cdecl\("(\w+)"\)/.exec(body)[1];
    if (
      !/PostbackUpdate\(fineConversionValue: 0, lockPostback: false, conversionTypes: \[\.reengagement\]\)/.test(
        body,
      )
    )
      reengageProblems.push(
        `${name} is not a PostbackUpdate of fine value 0, unlocked, for [.reengagement] alone`,
      );
    if (!/#available\(iOS 18\.0, \*\)/.test(body))
      reengageProblems.push(`${name} is not inside #available(iOS 18.0, *)`);
    if (!/serviceSdkAttributionKitCalls\.run \{/.test(body))
      reengageProblems.push(`${name} is not on AdAttributionKit's serial queue`);
    if (!/catch \{\s*serviceSdkReport\(refused, "AdAttributionKit: /.test(body))
      reengageProblems.push(`${name} does not report Apple's refusal to \`refused\``);
    if (!imported.includes(name))
      reengageProblems.push(`${name} is not imported by the Unity layer`);
    const reengage = /public void Reengage\(Action<string> failed\)\s*\{([\s\S]*?)\n {8}\}/.exec(
      layer,
    );
    if (!reengage || !new RegExp(`\\b${name}\\(OnReengagementRefused\\)`).test(reengage[1]))
      reengageProblems.push(
        `IosConversionValues.Reengage does not call ${name} with the re-engagement's own callback`,
      );
  }
  const installTypes = exported
    .filter((chunk) => !/\.reengagement\b/.test(chunk))
    .join("")
    .concat(code.split(/(?=@_cdecl\(")/)[0]);
  if (/\.reengagement\b/.test(installTypes))
    reengageProblems.push("an update of the install names .reengagement");
  check(
    `${path} makes the re-engagement's update as the iOS SDK does (fine value 0, unlocked, [.reengagement], iOS 18)`,
    reengageProblems,
  );
  const imports = source
    .split("\n")
    .map((line, row) => [/^\s*(@_weakLinked\s+)?import\s+(\w+)\s*$/.exec(line), row])
    .filter(([match]) => match)
    .map(([match, row]) => ({ framework: match[2], weakImport: Boolean(match[1]), row }));
  const frameworks = imports.map((i) => i.framework);
  for (const framework of frameworks) importedFrameworks.add(framework);
  const linkProblems = [];
  for (const { framework, weakImport, row } of imports) {
    const since = FRAMEWORK_SINCE[framework];
    const at = `${path}:${row + 1}`;
    if (!since) linkProblems.push(`${framework}: not a framework these checks know`);
    else if (ALWAYS_LINKED.includes(framework)) continue;
    else if (NOT_IN_EVERY_XCODE[framework]) {
      if (!weakImport) linkProblems.push(`${at}: import ${framework} is not @_weakLinked`);
      if (!underCanImport(conditions[row], framework))
        linkProblems.push(
          `${at}: ${framework} is imported outside #if canImport(${framework}) (only ${NOT_IN_EVERY_XCODE[framework]} and later have it)`,
        );
    } else if (before(MIN_IOS, since)) {
      if (!weak.includes(framework) && !weakImport)
        linkProblems.push(
          `${framework} (iOS ${since.join(".")}) is neither weak-linked by the Editor's post-build step nor imported @_weakLinked`,
        );
    } else if (!frameworksOf(path).includes(framework)) {
      linkProblems.push(`${framework} is not in the plugin's FrameworkDependencies`);
    }
  }
  const { lines } = parseMeta(read(`${path}.meta`));
  const declared =
    (lines.find((l) => l.trim().startsWith("FrameworkDependencies:")) ?? "")
      .split(":")[1]
      ?.trim() ?? "";
  if (
    declared !==
    frameworksOf(path)
      .map((f) => `${f};`)
      .join("")
  )
    linkProblems.push(`${path}.meta: FrameworkDependencies is '${declared}'`);
  check(
    `${path}'s frameworks are linked (${frameworks.join(", ")}), the newer ones weakly`,
    linkProblems,
  );
  // What only newer Xcode SDKs have is used only where the SDK has it: built with an older
  // Xcode, the plugin compiles without it (and calls SKAdNetwork alone).
  const unguarded = [];
  for (const [framework, xcode] of Object.entries(NOT_IN_EVERY_XCODE)) {
    const types = FRAMEWORK_TYPES[framework] ?? [];
    source.split("\n").forEach((line, row) => {
      if (line.trim().startsWith("//")) return;
      // A type qualified by another one (SKAdNetwork.CoarseConversionValue) is not this one.
      const used = types.find((type) => new RegExp(`(?<![.\\w])${type}\\b`).test(line));
      if (used && !underCanImport(conditions[row], framework))
        unguarded.push(
          `${path}:${row + 1}: ${used} (${framework}) outside #if canImport(${framework}); ${xcode} and later only have it`,
        );
    });
  }
  check(
    `${path} uses ${Object.keys(NOT_IN_EVERY_XCODE).join(", ")} only under #if canImport (older Xcode SDKs lack it)`,
    unguarded,
  );
}

check(`the iOS plugins define every function the Unity layer imports (${imported.join(", ")})`, [
  ...(imported.length > 0 ? [] : ['no [DllImport("__Internal")] found in the Unity layer']),
  ...imported
    .filter((name) => !objcExports.has(name) && !swiftExports.has(name))
    .map((name) => `${name}: exported by no plugin`),
]);
// The install's `idfv` is the IDFV iOS gives (the plugin's ServiceSdkVendorId), or none while it
// gives none: Unity's SystemInfo.deviceUniqueIdentifier answers with the IDFA then, which must
// not reach the service as the vendor id.
const layerCode = layer.replace(/\/\/.*$/gm, "");
check("the install's idfv is iOS's own IDFV (ServiceSdkVendorId), never deviceUniqueIdentifier", [
  ...(/deviceUniqueIdentifier/.test(layerCode)
    ? ["the Unity layer reads SystemInfo.deviceUniqueIdentifier"]
    : []),
  ...(/\bIdfv = ios \? vendorId : null,/.test(layerCode) &&
  /private readonly string vendorId = VendorId\(\);/.test(layerCode)
    ? []
    : ["DeviceSignals.Idfv is not the vendor id UnityDevice reads"]),
  ...(/static string VendorId\(\)\s*\{\s*#if UNITY_IOS && !UNITY_EDITOR\s*return Fields\.DeviceIdentifier\(ServiceSdkVendorId\(\)\);\s*#else\s*return null;\s*#endif\s*\}/.test(
    layerCode,
  )
    ? []
    : ["VendorId() does not give the plugin's ServiceSdkVendorId on iOS and null elsewhere"]),
]);
check(
  "each framework the Editor weak-links is imported by a plugin",
  weak
    .filter((framework) => !importedFrameworks.has(framework))
    .map((f) => `${f} is weak-linked but not used`),
);
check(
  "the Editor's post-build step names no framework that older Xcode SDKs lack (their link would fail)",
  weak
    .filter((framework) => NOT_IN_EVERY_XCODE[framework])
    .map(
      (f) =>
        `${f}.framework: only ${NOT_IN_EVERY_XCODE[f]} and later have it; older Xcode stops at \`ld: framework not found ${f}\``,
    ),
);

// Swift's runtime libraries: iOS has libswiftCore from 12.2 and libswift_Concurrency (Task,
// async) from 15 only; below, the app carries the copies Xcode ships. Xcode copies them into a
// target that compiles Swift or sets ALWAYS_EMBED_SWIFT_STANDARD_LIBRARIES, and the Swift
// plugins are built into UnityFramework, not into the app target (Unity-iPhone), which has no
// Swift: the post-build step sets it there, or the app stops at launch on older iOS (`Library
// not loaded: @rpath/libswift_Concurrency.dylib`). The framework itself must not carry them
// (App Store Connect refuses a framework with a Frameworks folder of its own, ITMS-90206).
const EMBED_SWIFT = "ALWAYS_EMBED_SWIFT_STANDARD_LIBRARIES";
const editorCode = editor.replace(/\/\/.*$/gm, "");
const editorConstants = new Map(
  [...editorCode.matchAll(/\bconst string (\w+) = ("[^"]*");/g)].map((m) => [m[1], m[2]]),
);
const editorResolved = editorCode.replace(/\b\w+\b/g, (word) => editorConstants.get(word) ?? word);
/** The expressions that name a target: its getter, and each variable assigned from it. */
const targetRefs = (getter) => [
  `project.${getter}()`,
  ...[
    ...editorResolved.matchAll(new RegExp(`\\bvar (\\w+) = project\\.${getter}\\(\\);`, "g")),
  ].map((m) => m[1]),
];
const mainTarget = targetRefs("GetUnityMainTargetGuid");
const frameworkTarget = targetRefs("GetUnityFrameworkTargetGuid");
const embedSettings = [
  ...editorResolved.matchAll(
    new RegExp(
      `SetBuildProperty\\(\\s*([^,]+?)\\s*,\\s*"${EMBED_SWIFT}"\\s*,\\s*"(\\w+)"\\s*\\)`,
      "g",
    ),
  ),
].map((m) => ({ target: m[1], value: m[2] }));
const setTo = (targets, value) =>
  embedSettings.some((s) => targets.includes(s.target) && s.value === value);
check(
  `the Editor's post-build step embeds Swift's runtime libraries in the app target, not in UnityFramework (${swiftPlugins.join(", ")})`,
  swiftPlugins.length === 0
    ? []
    : [
        ...(setTo(mainTarget, "YES")
          ? []
          : [
              `${EMBED_SWIFT} is not set to YES on the app target (GetUnityMainTargetGuid): below iOS 15 the app stops at launch without libswift_Concurrency`,
            ]),
        ...(setTo(frameworkTarget, "NO") && !setTo(frameworkTarget, "YES")
          ? []
          : [
              `${EMBED_SWIFT} is not NO on UnityFramework (ITMS-90206: a framework's own Frameworks folder)`,
            ]),
      ],
);

// ---- the iOS privacy manifest ------------------------------------------------------------

// Apple asks each SDK in an app for its own privacy manifest, and Unity's plug-ins and packages
// bring theirs: the plugin reads the IDFA, the IDFV, the AdServices token and NSUserDefaults
// (a required-reason API) as the iOS SDK does, so it declares what the iOS SDK's manifest does.
// Both are parsed as property lists and compared value for value; the order of an array's
// items is not a declaration, so arrays compare as sets.
const PRIVACY_MANIFEST = "Runtime/Plugins/iOS/PrivacyInfo.xcprivacy";
const IOS_PRIVACY_MANIFEST = "../ios/Sources/ServiceAttribution/PrivacyInfo.xcprivacy";

/** A property list's value, from fast-xml-parser's ordered nodes; throws on what is not one. */
const plistValue = (node) => {
  const tag = Object.keys(node).find((key) => key !== ":@");
  const children = (node[tag] ?? []).filter((child) => !("#text" in child) || tag !== "dict");
  const text = () => (node[tag] ?? []).map((child) => child["#text"] ?? "").join("");
  switch (tag) {
    case "dict": {
      const out = {};
      for (let i = 0; i < children.length; i += 2) {
        const key = children[i];
        if (!("key" in key)) throw new Error("a <dict> item without its <key>");
        if (i + 1 >= children.length)
          throw new Error(`<key>${plistValue(key)}</key> with no value`);
        const name = plistValue(key);
        if (name in out) throw new Error(`<key>${name}</key> twice in one <dict>`);
        out[name] = plistValue(children[i + 1]);
      }
      return out;
    }
    case "array":
      return children.filter((child) => !("#text" in child)).map(plistValue);
    case "key":
    case "string":
      return String(text());
    case "integer":
    case "real":
      return Number(text());
    case "true":
      return true;
    case "false":
      return false;
    default:
      throw new Error(`<${tag}> is not a property list value`);
  }
};
/** A property list file's root value, or the reason it is not one. */
const readPlist = (text) => {
  const valid = XMLValidator.validate(text);
  if (valid !== true)
    return { error: `${valid.err.code}: ${valid.err.msg} (line ${valid.err.line})` };
  const nodes = new XMLParser({
    preserveOrder: true,
    ignoreDeclaration: true,
    parseTagValue: false,
    trimValues: true,
  }).parse(text);
  const plist = nodes.find((node) => "plist" in node);
  const values = (plist?.plist ?? []).filter((node) => !("#text" in node));
  if (values.length !== 1) return { error: "not one <plist> holding one value" };
  try {
    return { value: plistValue(values[0]) };
  } catch (error) {
    return { error: error.message };
  }
};
/** A value in one canonical text: a dict's keys sorted, an array's items sorted. */
const canonical = (value) => {
  if (Array.isArray(value)) return `[${value.map(canonical).sort().join(",")}]`;
  if (value && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  return JSON.stringify(value);
};
/** Where two manifests differ: each top-level key, and each collected data type by its name. */
const manifestDifferences = (ours, theirs) => {
  const problems = [];
  const keys = [...new Set([...Object.keys(theirs), ...Object.keys(ours)])].sort();
  for (const key of keys) {
    if (!(key in ours)) problems.push(`${key}: declared by the iOS SDK, missing here`);
    else if (!(key in theirs)) problems.push(`${key}: declared here, not by the iOS SDK`);
    else if (canonical(ours[key]) === canonical(theirs[key])) continue;
    else if (key === "NSPrivacyCollectedDataTypes" || key === "NSPrivacyAccessedAPITypes") {
      const name =
        key === "NSPrivacyCollectedDataTypes"
          ? "NSPrivacyCollectedDataType"
          : "NSPrivacyAccessedAPIType";
      const byName = (list) =>
        new Map((Array.isArray(list) ? list : []).map((item) => [item?.[name], canonical(item)]));
      const [mine, sdk] = [byName(ours[key]), byName(theirs[key])];
      for (const type of new Set([...sdk.keys(), ...mine.keys()])) {
        if (!mine.has(type)) problems.push(`${key}: ${type} missing here`);
        else if (!sdk.has(type)) problems.push(`${key}: ${type} not declared by the iOS SDK`);
        else if (mine.get(type) !== sdk.get(type))
          problems.push(
            `${key}: ${type} declared differently: ${mine.get(type)} here, ${sdk.get(type)} in the iOS SDK`,
          );
      }
      if (problems.length === 0) problems.push(`${key}: differs from the iOS SDK's`);
    } else {
      problems.push(
        `${key}: ${canonical(ours[key])} here, ${canonical(theirs[key])} in the iOS SDK`,
      );
    }
  }
  return problems;
};

const ourManifest = existsSync(join(root, PRIVACY_MANIFEST))
  ? readPlist(read(PRIVACY_MANIFEST))
  : { error: `no ${PRIVACY_MANIFEST}` };
const sdkManifest = existsSync(join(root, IOS_PRIVACY_MANIFEST))
  ? readPlist(read(IOS_PRIVACY_MANIFEST))
  : { error: `no ${IOS_PRIVACY_MANIFEST}` };
check(`${PRIVACY_MANIFEST} is a property list, as the iOS SDK's manifest is`, [
  ...(ourManifest.error ? [`${PRIVACY_MANIFEST}: ${ourManifest.error}`] : []),
  ...(sdkManifest.error ? [`the iOS SDK's manifest: ${sdkManifest.error}`] : []),
  ...(privacyManifests.length === 1 && privacyManifests[0] === PRIVACY_MANIFEST
    ? []
    : [
        `the package's privacy manifests are [${privacyManifests.join(", ")}], not [${PRIVACY_MANIFEST}]`,
      ]),
]);
check(
  `${PRIVACY_MANIFEST} declares exactly what the iOS SDK's does (tracking, data types, required-reason APIs)`,
  ourManifest.value && sdkManifest.value
    ? manifestDifferences(ourManifest.value, sdkManifest.value)
    : ["not both manifests could be read"],
);
// What the plugins read, against the manifest itself: NSUserDefaults (required reason CA92.1,
// the app's own values: the TCF strings the consent platform writes) and the IDFA (a device id
// for tracking, NSPrivacyTracking).
const pluginSources = [...objcPlugins, ...swiftPlugins].map(read).join("\n");
const declared = ourManifest.value ?? {};
const readsProblems = [];
if (/\b(NSUserDefaults|UserDefaults)\b/.test(pluginSources)) {
  const userDefaults = (declared.NSPrivacyAccessedAPITypes ?? []).find(
    (item) => item?.NSPrivacyAccessedAPIType === "NSPrivacyAccessedAPICategoryUserDefaults",
  );
  if (!(userDefaults?.NSPrivacyAccessedAPITypeReasons ?? []).includes("CA92.1"))
    readsProblems.push(
      "the plugins read NSUserDefaults: NSPrivacyAccessedAPICategoryUserDefaults with CA92.1 is not declared",
    );
}
if (/\bASIdentifierManager\b/.test(pluginSources)) {
  const deviceId = (declared.NSPrivacyCollectedDataTypes ?? []).find(
    (item) => item?.NSPrivacyCollectedDataType === "NSPrivacyCollectedDataTypeDeviceID",
  );
  if (!deviceId?.NSPrivacyCollectedDataTypeTracking)
    readsProblems.push(
      "the plugins read the IDFA: NSPrivacyCollectedDataTypeDeviceID for tracking is not declared",
    );
  if (declared.NSPrivacyTracking !== true)
    readsProblems.push("the plugins read the IDFA: NSPrivacyTracking is not true");
}
check(
  `${PRIVACY_MANIFEST} declares what the plugins read (NSUserDefaults, the IDFA)`,
  readsProblems,
);

// ---- the license ---------------------------------------------------------------------------

// The repository's podspecs declare its license; the package says the same to the Package
// Manager (package.json's `license`, an SPDX id) and carries the text (LICENSE.md).
const podspec = existsSync(join(root, "../../ServiceAttribution.podspec"))
  ? readFileSync(join(root, "../../ServiceAttribution.podspec"), "utf8")
  : "";
const podLicense = /s\.license\s*=\s*\{[^}]*:type\s*=>\s*'([^']+)'/.exec(podspec)?.[1];
const licenseText = read("LICENSE.md").replace(/\s+/g, " ").trim();
check(`package.json's license is the podspecs' (${podLicense}) and LICENSE.md holds its text`, [
  ...(podLicense ? [] : ["ServiceAttribution.podspec declares no license type"]),
  ...(manifest.license === podLicense ? [] : [`package.json's license is ${manifest.license}`]),
  ...(podLicense !== "Apache-2.0" ||
  (licenseText.startsWith(
    "Apache License Version 2.0, January 2004 http://www.apache.org/licenses/",
  ) &&
    licenseText.includes("END OF TERMS AND CONDITIONS"))
    ? []
    : ["LICENSE.md is not the Apache License 2.0's text"]),
]);

// ---- the External Dependency Manager's declarations --------------------------------------

/** The Java packages the Unity layer may call, and the Maven artifact of each. */
const JAVA_ARTIFACTS = {
  "com.android.installreferrer.api": "com.android.installreferrer:installreferrer",
  "com.google.android.gms.ads.identifier": "com.google.android.gms:play-services-ads-identifier",
};
/** Java classes that every Android app has: the platform's and Unity's own. */
const PROVIDED = /^(java|javax|android|com\.unity3d\.player)\./;

const dependencyFiles = all
  .map(([path]) => path)
  .filter((path) => /(^|\/)Editor\/[^/]*Dependencies\.xml$/.test(path));
check(
  "the External Dependency Manager finds one Editor/*Dependencies.xml",
  dependencyFiles.length === 1 ? [] : [`found ${dependencyFiles.length}`],
);
for (const path of dependencyFiles) {
  const xml = read(path);
  const valid = XMLValidator.validate(xml);
  check(
    `${path} is well-formed XML`,
    valid === true ? [] : [`${valid.err.code}: ${valid.err.msg} (line ${valid.err.line})`],
  );
  const doc = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    isArray: (name) => ["androidPackage", "repository", "iosPod"].includes(name),
  }).parse(xml);
  const packages = doc.dependencies?.androidPackages?.androidPackage ?? [];
  const specs = packages.map((p) => p.spec);
  const shape = [];
  if (!doc.dependencies) shape.push("the root element is not <dependencies>");
  for (const spec of specs) {
    if (!/^[\w.-]+:[\w.-]+:[\w.+-]+$/.test(spec ?? ""))
      shape.push(`'${spec}' is not group:artifact:version`);
  }
  const repositories = doc.dependencies?.androidPackages?.repositories?.repository ?? [];
  if (!repositories.includes("https://maven.google.com"))
    shape.push("Google's Maven repository is not named");
  if (doc.dependencies?.iosPods)
    shape.push("iOS pods are declared, but the plugin uses system frameworks only");
  check(
    `${path} declares Android packages as group:artifact:version from Google's Maven repository`,
    shape,
  );

  const android = read("Runtime/Unity/AndroidSignals.cs");
  const classes = [
    ...new Set([...android.matchAll(/"((?:[a-z]\w*\.)+[A-Z]\w*)"/g)].map((m) => m[1])),
  ];
  const needed = new Set();
  const unknown = [];
  for (const name of classes) {
    if (PROVIDED.test(name)) continue;
    const pkg = Object.keys(JAVA_ARTIFACTS).find((prefix) => name.startsWith(`${prefix}.`));
    if (pkg) needed.add(JAVA_ARTIFACTS[pkg]);
    else unknown.push(`${name}: no artifact known for it`);
  }
  const declared = specs.map((spec) => spec.split(":").slice(0, 2).join(":"));
  check(`${path} declares exactly what AndroidSignals.cs calls (${[...needed].join(", ")})`, [
    ...unknown,
    ...[...needed].filter((a) => !declared.includes(a)).map((a) => `${a}: called, not declared`),
    ...declared.filter((a) => !needed.has(a)).map((a) => `${a}: declared, never called`),
  ]);
  const referrer = specs.find((s) => s.startsWith("com.android.installreferrer:"));
  const version = referrer?.split(":")[2].split(".").map(Number) ?? [0];
  check(
    `${path}: the install referrer is 2.0 or later (its server timestamps and install version)`,
    version[0] >= 2 ? [] : [`${referrer}`],
  );
}

// An Android app waits as long for the Play Store's referrer whichever SDK it embeds: a read
// with no answer in time is one of the install's three, after which the install goes without
// the click id the referrer carries.
const KOTLIN_ANDROID_PLATFORM =
  "../kotlin/src/main/kotlin/com/service/attribution/android/AndroidPlatform.kt";
const unityReferrerWait = /\bReferrerWait = TimeSpan\.FromSeconds\((\d+)\)/.exec(
  read("Runtime/Unity/AndroidSignals.cs"),
)?.[1];
const kotlinReferrerWait = /\bconst val WAIT_SECONDS = (\d+)L\b/.exec(
  read(KOTLIN_ANDROID_PLATFORM),
)?.[1];
check(
  `AndroidSignals.cs waits for the Play install referrer as long as the Kotlin SDK's PlayInstallReferrer (${kotlinReferrerWait} s)`,
  unityReferrerWait === undefined || kotlinReferrerWait === undefined
    ? [
        `the wait is not found: AndroidSignals.cs ${unityReferrerWait}, the Kotlin SDK ${kotlinReferrerWait}`,
      ]
    : unityReferrerWait === kotlinReferrerWait
      ? []
      : [`AndroidSignals.cs waits ${unityReferrerWait} s, the Kotlin SDK ${kotlinReferrerWait} s`],
);

// ---- code stripping -----------------------------------------------------------------------

// Unity's linker (always on with IL2CPP) removes what no code calls. What the SDK reaches only
// by reflection must be kept: by [Preserve] (Unity honours any attribute of that exact name) and
// by the package's link.xml, which the Editor's linker step hands over, since Unity reads no
// link.xml inside a package on its own.
const PRESERVE = /^\[(?:UnityEngine\.Scripting\.)?Preserve\]$/;
/** Whether the declaration at this index of the text carries [Preserve] among its attributes. */
const preservedAt = (text, index) => {
  const above = text
    .slice(0, text.lastIndexOf("\n", index) + 1)
    .split("\n")
    .slice(0, -1)
    .reverse();
  for (const raw of above) {
    const line = raw.trim();
    if (PRESERVE.test(line)) return true;
    if (line.startsWith("[") || line.startsWith("//")) continue;
    return false;
  }
  return false;
};
const runtimeSources = all
  .map(([path]) => path)
  .filter((path) => path.startsWith("Runtime/") && path.endsWith(".cs"));
const declaredTypes = new Set(
  runtimeSources.flatMap((path) =>
    [...read(path).matchAll(/\b(?:class|struct|enum|interface)\s+(\w+)/g)].map((m) => m[1]),
  ),
);
const runtimeAssembly = (() => {
  try {
    return JSON.parse(read("Runtime/Service.Unity.asmdef")).name;
  } catch {
    return undefined;
  }
})();
const linkXml = read("Runtime/link.xml");
const linkValid = linkXml
  ? XMLValidator.validate(linkXml)
  : { err: { code: "missing", msg: "no Runtime/link.xml", line: 0 } };
const linkDoc =
  linkValid === true
    ? new XMLParser({
        ignoreAttributes: false,
        attributeNamePrefix: "",
        isArray: (name) => ["assembly", "type"].includes(name),
      }).parse(linkXml)
    : {};
const linkAssemblies = linkDoc.linker?.assembly ?? [];
const keptTypes = linkAssemblies.flatMap((a) => (a.type ?? []).map((t) => t.fullname));
check("Runtime/link.xml is well-formed and names only the SDK assembly's own types", [
  ...(linkValid === true
    ? []
    : [`${linkValid.err.code}: ${linkValid.err.msg} (line ${linkValid.err.line})`]),
  ...(linkValid === true && !linkDoc.linker ? ["the root element is not <linker>"] : []),
  ...linkAssemblies
    .filter((a) => a.fullname !== runtimeAssembly)
    .map((a) => `assembly ${a.fullname} is not ${runtimeAssembly}`),
  ...keptTypes
    .filter(
      (name) => !name.startsWith("Service.Unity.") || !declaredTypes.has(name.split(".").pop()),
    )
    .map((name) => `${name}: no such type in Runtime/`),
]);
const linkerSteps = all
  .map(([path]) => path)
  .filter((path) => path.startsWith("Editor/") && path.endsWith(".cs"))
  .filter((path) => /:\s*IUnityLinkerProcessor\b/.test(read(path)));
check(
  "an Editor linker step hands Runtime/link.xml to Unity's linker (Unity reads none in a package)",
  linkerSteps.some((path) => read(path).includes(`"Packages/${manifest.name}/Runtime/link.xml"`))
    ? []
    : [`no Editor IUnityLinkerProcessor names "Packages/${manifest.name}/Runtime/link.xml"`],
);
// The items Newtonsoft writes to PlayerPrefs and reads back, through their properties.
const stored = [
  ...new Set(
    runtimeSources.flatMap((path) =>
      [...read(path).matchAll(/StoredQueue<(\w+)>/g)].map((m) => m[1]),
    ),
  ),
].filter((name) => name !== "T");
const storedProblems = stored.length === 0 ? ["no StoredQueue<T> found"] : [];
for (const name of stored) {
  const path = runtimeSources.find((p) => new RegExp(`class ${name}\\b`).test(read(p)));
  const text = path ? read(path) : "";
  const at = text.search(new RegExp(`\\n[^\\n]*class ${name}\\b`)) + 1;
  if (!path || !preservedAt(text, at)) storedProblems.push(`${name}: no [Preserve]`);
  if (!keptTypes.includes(`Service.Unity.${name}`))
    storedProblems.push(`${name}: not in Runtime/link.xml`);
  const body = text.slice(at, text.indexOf("\n    }", at));
  for (const m of body.matchAll(/\n\s*public [\w<>.]+ (\w+) \{ get; set; \}/g)) {
    if (!preservedAt(body, m.index + 1)) storedProblems.push(`${name}.${m[1]}: no [Preserve]`);
  }
}
check(`what Newtonsoft reads back is kept from stripping (${stored.join(", ")})`, storedProblems);
// What Unity calls by name: AndroidJavaProxy's callbacks (Java's interface methods, onXxx),
// and a MonoBehaviour's messages.
const MESSAGES = ["Update", "OnApplicationPause", "OnApplicationFocus", "OnApplicationQuit"];
const byName = [];
const byNameProblems = [];
for (const path of runtimeSources.filter((p) => p.startsWith("Runtime/Unity/"))) {
  const text = read(path);
  for (const m of text.matchAll(/\n[^\n]*class (\w+)\s*:\s*(AndroidJavaProxy|MonoBehaviour)\b/g)) {
    if (!preservedAt(text, m.index + 1)) byNameProblems.push(`${path}: ${m[1]} has no [Preserve]`);
    const methods =
      m[2] === "AndroidJavaProxy"
        ? /\n[^\n(]*\bvoid (on[A-Z]\w*)\(/g
        : new RegExp(`\\n[^\\n(]*\\bvoid (${MESSAGES.join("|")})\\(`, "g");
    for (const method of text.matchAll(methods)) {
      byName.push(`${m[1]}.${method[1]}`);
      if (!preservedAt(text, method.index + 1))
        byNameProblems.push(`${path}: ${m[1]}.${method[1]} has no [Preserve]`);
    }
  }
}
if (!byName.some((name) => name.startsWith("AndroidSignals.on")))
  byNameProblems.push("no AndroidJavaProxy callback found");
check(`what Unity calls by name is kept from stripping (${byName.join(", ")})`, byNameProblems);

// ---- the README's snippets -----------------------------------------------------------------

// Samples~/ReadmeUsage.cs, which test.sh compiles in an app's setting (with `using UnityEngine;`),
// holds every line of the README's C# snippets, in order: a snippet changed here is compiled too.
const sample = read("Samples~/ReadmeUsage.cs")
  .split("\n")
  .map((line) => line.trim().replace(/\s+/g, " "));
const snippetLines = [...read("README.md").matchAll(/```csharp\n([\s\S]*?)```/g)]
  .flatMap((m) => m[1].split("\n"))
  .map((line) => line.trim().replace(/\s+/g, " "))
  .filter((line) => line.length > 0);
const missingLines = [];
let cursor = 0;
for (const line of snippetLines) {
  const found = sample.indexOf(line, cursor);
  if (found < 0) missingLines.push(`not in Samples~/ReadmeUsage.cs (in order): ${line}`);
  else cursor = found + 1;
}
check(
  `Samples~/ReadmeUsage.cs holds the README's C# snippets (${snippetLines.length} lines)`,
  snippetLines.length === 0 ? ["the README has no C# snippet"] : missingLines,
);

// Unity's iOS Player Settings write few of the Info.plist keys an app may need (the camera's, the
// location's and the microphone's usage descriptions); the README sends the app to them for no
// other key. NSUserTrackingUsageDescription, the ATT prompt's text, has no field there: an app
// that looked for one would ship without it.
const PLAYER_SETTINGS_KEYS = [
  "NSCameraUsageDescription",
  "NSLocationWhenInUseUsageDescription",
  "NSMicrophoneUsageDescription",
];
const readmeProse = read("README.md")
  .replace(/```[\s\S]*?```/g, "")
  .replace(/\s+/g, " ");
check(
  `the README names no Info.plist key as a Player Settings field that Unity lacks (it has ${PLAYER_SETTINGS_KEYS.join(", ")})`,
  readmeProse
    .split(/(?<=[.;])\s/)
    .filter((sentence) => /Player Settings/.test(sentence))
    .flatMap((sentence) =>
      [...sentence.matchAll(/\b(NS\w+Description|NS[A-Z]\w+Endpoint)\b/g)]
        .map((m) => m[1])
        .filter((key) => !PLAYER_SETTINGS_KEYS.includes(key))
        .map((key) => `${key}, in Player Settings: ${sentence.trim().slice(0, 160)}`),
    ),
);

// ---- samples -------------------------------------------------------------------------------

// What the Package Manager offers to import: each `samples` entry a folder of Samples~ (which
// Unity never imports by itself) with a script in it, and each such folder offered. test.sh
// compiles each one as an app's scripts.
const sampleProblems = [];
const offered = Array.isArray(manifest.samples) ? manifest.samples : [];
if (offered.length === 0) sampleProblems.push("package.json offers no sample");
for (const entry of offered) {
  const where = typeof entry?.path === "string" ? entry.path : "";
  if (!entry?.displayName || !entry?.description)
    sampleProblems.push(`${where || "a sample"}: needs a displayName and a description`);
  if (!/^Samples~\/[^/]+$/.test(where) || !existsSync(join(root, where))) {
    sampleProblems.push(`${where || "a sample"}: is no folder of Samples~`);
    continue;
  }
  if (!readdirSync(join(root, where)).some((name) => name.endsWith(".cs")))
    sampleProblems.push(`${where}: holds no script`);
}
const sampleFolders = readdirSync(join(root, "Samples~"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => `Samples~/${entry.name}`);
for (const folder of sampleFolders) {
  if (!offered.some((entry) => entry?.path === folder))
    sampleProblems.push(`${folder}: no samples entry of package.json offers it`);
}
check(
  `package.json's samples are folders of Samples~ (${sampleFolders.join(", ")})`,
  sampleProblems,
);

// ---- assembly definitions ----------------------------------------------------------------

const asmdefProblems = [];
const asmdefs = all.map(([path]) => path).filter((path) => path.endsWith(".asmdef"));
const definitions = new Map();
for (const path of asmdefs) {
  try {
    definitions.set(path, JSON.parse(read(path)));
  } catch (error) {
    asmdefProblems.push(`${path}: ${error.message}`);
  }
}
const owner = (file) =>
  asmdefs
    .filter((path) => file.startsWith(path.slice(0, path.lastIndexOf("/") + 1)))
    .sort((a, b) => b.length - a.length)[0];
for (const [file] of all.filter(([path]) => path.endsWith(".cs"))) {
  const asmdef = owner(file);
  if (!asmdef) {
    asmdefProblems.push(`${file}: in no assembly definition`);
    continue;
  }
  const editorOnly =
    JSON.stringify(definitions.get(asmdef)?.includePlatforms ?? []) === '["Editor"]';
  if (file.startsWith("Editor/") !== editorOnly) {
    asmdefProblems.push(
      `${file}: in ${asmdef}, ${editorOnly ? "Editor only" : "built into players"}`,
    );
  }
}
check("each script is in an assembly definition; the Editor's are Editor only", asmdefProblems);
check(
  "package.json names the package, its version and Unity's",
  [
    /^com\.[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(manifest.name) ? null : `name ${manifest.name}`,
    /^\d+\.\d+\.\d+$/.test(manifest.version) ? null : `version ${manifest.version}`,
    /^\d{4}\.\d$/.test(manifest.unity ?? "") ? null : `unity ${manifest.unity}`,
  ].filter(Boolean),
);

const passed = results.filter(Boolean).length;
console.log(`package checks: ${passed} passed, ${results.length - passed} failed`);
process.exit(results.length === passed ? 0 : 1);

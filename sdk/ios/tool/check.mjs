// The checks this machine can make of the iOS SDK and of the Flutter plugin's iOS side, with
// no Swift compiler here: every Swift file parses (tree-sitter's Swift grammar), the wire values
// written in Swift (event types, log levels, request fields, the consent object, routes,
// statuses, drop reasons and error kinds, delivery limits, the direct links kept for a
// deep-link listener, the sessions' request, limits and interval, the sealing constants, the
// Flutter plugin's custom values sealed leaf by leaf) are the conformance vectors' and the service's, every
// delivery.json scenario and every sessions.json case has its XCTest, UIKit is used only behind
// `#if os(iOS)`, the
// packaging (the root Package.swift, parsed, and ServiceAttribution.podspec; the Flutter
// plugin's podspec; the privacy manifests; the README's install lines) names what is there,
// and the Flutter plugin answers every method the Dart side invokes; and, read from the sources,
// the fixes no compiler here can run: weak imports, the AdAttributionKit re-engagement update and
// the install's updates naming the install, the app extension refusal, numbers' decimal
// form, the background task, drops an answer leaves unnamed, main-actor listeners, choices kept
// before configure, the backup exclusion and IDFV check, the IDFV read on the main thread with
// no thread of the SDK's waiting for it, the privacy manifest's tracking, the
// README's Swift, events waiting on the device for the service's configuration (and their
// conversion values with them, each queued, evaluated and counted dropped once, none asking
// Apple outside its window, and none evaluated once a reading says off, before its switch-off
// too), the configuration read in one chain (a key it rejects after configure told as at
// configure, and to the error listener once), only a 4xx taken for a
// refusal, sessions before events, a sealing key that cannot seal refused, AdAttributionKit
// linked as every Xcode taken can, the install held for the app's tracking answer and left to
// its own retry as the app goes to the background (no Apple Ads token read early), the deferred
// deep link claimed in the step that reads the listener it goes to and marked delivered once
// that listener's call ran. And the README against the public API: every member it calls declared
// public with the labels, `async` and `throws` it writes, every link handed over (SwiftUI, scenes,
// the app delegate) with the entitlement; the privacy manifest's required-reason APIs exactly
// those the sources call.
// Prints one line per check and a closing `N passed, N failed`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { syntaxErrors } from "../../syntax-errors.mjs";

const ios = dirname(dirname(fileURLToPath(import.meta.url)));
const sdk = dirname(ios);
const root = dirname(sdk);
const flutter = join(sdk, "flutter");
/** The Flutter plugin's Swift package, whose sources the podspec compiles too. */
const flutterPackage = join(flutter, "ios", "service_attribution");
const read = (path) => readFileSync(path, "utf8");
/** A problem for each of `names` that the XCTest class `suite`'s source declares no `func` of. */
const missingTests = (source, suite, names) =>
  names
    .filter((name) => !new RegExp(`func ${name}\\(`).test(source))
    .map((name) => `${suite}.${name} is missing`);
const vectors = (file) => JSON.parse(read(join(sdk, "conformance", file)));

const grammar = createRequire(import.meta.url).resolve(
  "tree-sitter-wasms/out/tree-sitter-swift.wasm",
);

/** A parsed node as the checks read it, over the plain objects a worker sends. */
class SyntaxNode {
  constructor(plain, source) {
    Object.assign(this, { plain, source });
  }
  get type() {
    return this.plain.type;
  }
  get text() {
    return this.source.slice(this.plain.start, this.plain.end);
  }
  get isMissing() {
    return this.plain.missing;
  }
  get hasError() {
    return this.plain.error;
  }
  get startPosition() {
    return { row: this.plain.row, column: this.plain.column };
  }
  get children() {
    return this.plain.children.map((child) => new SyntaxNode(child, this.source));
  }
  get namedChildren() {
    return this.children.filter((child) => child.plain.named);
  }
  childrenForFieldName(name) {
    return this.children.filter((child) => child.plain.field === name);
  }
  childForFieldName(name) {
    return this.childrenForFieldName(name)[0] ?? null;
  }
}

// Both WebAssembly modules compiled once; each worker instantiates them, so the code V8
// compiles lazily is shared.
const swiftBytes = new Uint8Array(readFileSync(grammar));
const compiled = {
  runtime: new WebAssembly.Module(
    readFileSync(createRequire(import.meta.url).resolve("web-tree-sitter/tree-sitter.wasm")),
  ),
  swift: new WebAssembly.Module(swiftBytes),
  swiftBytes,
};

/** One file parsed in a thread of its own (`parse-worker.mjs`). */
const parseInWorker = (path) =>
  new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./parse-worker.mjs", import.meta.url), {
      workerData: { path, ...compiled },
    });
    worker.once("message", (plain) => {
      // Ending the thread at once: left to itself, a worker's wasm instance takes seconds to go.
      worker.terminate();
      resolve({ rootNode: new SyntaxNode(plain, read(path)) });
    });
    worker.once("error", reject);
  });

/** Every file parsed, two at a time (the machines that run this have few cores). */
const parseAll = async (paths) => {
  const parsed = new Array(paths.length);
  let next = 0;
  const run = async () => {
    while (next < paths.length) {
      const index = next++;
      parsed[index] = await parseInWorker(paths[index]);
    }
  };
  await Promise.all([run(), run()]);
  return parsed;
};

const results = [];
const check = (name, problems) => {
  results.push(problems.length === 0);
  console.log(`${problems.length === 0 ? "ok  " : "FAIL"} ${name}`);
  for (const problem of problems) console.log(`       ${problem}`);
};
/** Runs a check whose own code may throw (a file missing): that is its failure. */
const checking = (name, body) => {
  try {
    check(name, body());
  } catch (error) {
    check(name, [String(error?.message ?? error)]);
  }
};
const same = (actual, expected, what) =>
  JSON.stringify(actual) === JSON.stringify(expected)
    ? []
    : [`${what}: ${JSON.stringify(actual)} instead of ${JSON.stringify(expected)}`];

/**
 * Each line of a Swift file, its comment cut off, with the conditions of the `#if` blocks it
 * stands in (an `#else` as the negation of its `#if`): `visit(code, conditions, index)`.
 */
const eachCodeLine = (path, visit) => {
  const conditions = [];
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((line, index) => {
      const code = line.replace(/\/\/.*$/, "").trim();
      const directive = /^#(if|elseif|else|endif)\b\s*(.*)$/.exec(code);
      if (!directive) {
        visit(code, conditions, index);
        return;
      }
      const [, kind, condition] = directive;
      if (kind === "if") conditions.push(condition);
      else if (kind === "elseif") conditions.splice(-1, 1, condition);
      else if (kind === "else") conditions.splice(-1, 1, `!(${conditions.at(-1)})`);
      else conditions.pop();
    });
};

// --- Every Swift file parses ---------------------------------------------------------------

const filesUnder = (dir, ending) =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return filesUnder(path, ending);
        return entry.name.endsWith(ending) ? [path] : [];
      })
    : [];

const swiftFiles = [
  join(root, "Package.swift"),
  ...filesUnder(join(ios, "Sources"), ".swift"),
  ...filesUnder(join(ios, "Tests"), ".swift"),
  ...filesUnder(join(flutter, "ios"), ".swift"),
];
const trees = new Map();
const parsedFiles = await parseAll(swiftFiles);
swiftFiles.forEach((path, index) => {
  // Files under sdk/ by their path from there; the root manifest by its name.
  const file = path.startsWith(sdk) ? relative(sdk, path) : relative(root, path);
  trees.set(file, parsedFiles[index]);
  check(`${file} parses as Swift`, syntaxErrors(parsedFiles[index], file));
});

// A type of Foundation's named where no import brings it in: Swift's imports are per file, and
// only a compiler, which this machine has not, says "cannot find 'NSLock' in scope".
const FOUNDATION_TYPES =
  /\b(NSLock|NSObject|NSNumber|NSError|Date|DateFormatter|ISO8601DateFormatter|URL|URLComponents|URLSession|URLRequest|Data|JSONSerialization|JSONEncoder|JSONDecoder|DispatchQueue|DispatchSemaphore|UserDefaults|ProcessInfo|Bundle|TimeInterval|UUID|Calendar|Locale|TimeZone|CharacterSet|FileManager|NotificationCenter)\b/;
const BRINGS_FOUNDATION = /^\s*(@\w+\s+)*import\s+(Foundation|UIKit|XCTest|Flutter)\s*$/m;
check(
  "every Swift file that names a Foundation type imports Foundation (or UIKit, XCTest, Flutter)",
  swiftFiles.flatMap((path) => {
    const text = readFileSync(path, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "")
      .replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
    const named = FOUNDATION_TYPES.exec(text);
    return named && !BRINGS_FOUNDATION.test(text)
      ? [`${relative(root, path)} names ${named[1]}`]
      : [];
  }),
);

// --- Reading declarations out of the trees -------------------------------------------------

const descendants = (node, type) => {
  const found = [];
  const visit = (n) => {
    if (n.type === type) found.push(n);
    for (const child of n.namedChildren) visit(child);
  };
  visit(node);
  return found;
};
const tree = (file) => {
  const found = trees.get(file);
  if (!found) throw new Error(`${file} is missing`);
  return found.rootNode;
};
const nameOf = (node) =>
  node.childForFieldName("name")?.text ??
  node.namedChildren.find((c) => c.type.endsWith("identifier"))?.text;
/** The type declaration (class, struct, enum, extension) named `name`. */
const typeNamed = (file, name) => {
  const found = descendants(tree(file), "class_declaration").find((node) => nameOf(node) === name);
  if (!found) throw new Error(`${file}: no type ${name}`);
  return found;
};
const functionNamed = (node, name) => {
  const found = descendants(node, "function_declaration").find((fn) => nameOf(fn) === name);
  if (!found) throw new Error(`no function ${name}`);
  return found;
};
/** The `let`/`var` named `name` and the text of its value. */
const propertyValue = (node, name) => {
  const found = descendants(node, "property_declaration").find(
    (property) => property.childForFieldName("name")?.text === name,
  );
  if (!found) throw new Error(`no property ${name}`);
  return found.childForFieldName("value") ?? found.namedChildren.at(-1);
};
const stringsIn = (node) => descendants(node, "line_str_text").map((text) => text.text);
const stringValue = (node, name) => {
  const [text] = stringsIn(propertyValue(node, name));
  if (text === undefined) throw new Error(`${name} is no string`);
  return text;
};
/** The keys of the first dictionary literal in `node`. */
const dictionaryKeys = (node) => {
  const [literal] = descendants(node, "dictionary_literal");
  if (!literal) throw new Error("no dictionary literal");
  return literal.childrenForFieldName("key").map((key) => stringsIn(key).join(""));
};

const core = (file) => join("ios", "Sources", "ServiceAttribution", file);

// --- Wire values --------------------------------------------------------------------------

const eventTypes = vectors("event-types.json").eventTypes;
checking("EventType has the vectors' cases, in their order, with their wire values", () => {
  const entries = descendants(typeNamed(core("EventType.swift"), "EventType"), "enum_entry");
  const cases = entries.map((entry) => [nameOf(entry), stringsIn(entry).join("")]);
  return same(
    cases,
    eventTypes.map((type) => [type.flutter, type.wire]),
    "cases",
  );
});

const levels = vectors("log-levels.json");
checking("LogLevel's cases, integer bounds, mapping and default are the vectors'", () => {
  const logLevel = typeNamed(core("LogLevel.swift"), "LogLevel");
  const cases = descendants(logLevel, "enum_entry").map(nameOf);
  const range = /(-?\d+)\s*\.\.\.\s*(-?\d+)/.exec(propertyValue(logLevel, "integerRange").text);
  const bounds = range ? [Number(range[1]), Number(range[2])] : [];
  const values = levels.levels.map((level) => level.value);
  const init = descendants(logLevel, "init_declaration")[0]?.text ?? "";
  const mapping = [...init.matchAll(/case\s+(-?\d+)\s*:\s*self\s*=\s*\.(\w+)/g)].map((m) => [
    Number(m[1]),
    m[2],
  ]);
  const fallback = /^\.(\w+)$/.exec(propertyValue(logLevel, "`default`").text.trim())?.[1];
  return [
    ...same(
      cases,
      levels.kotlinLevels.map((name) => name.toLowerCase()),
      "cases",
    ),
    ...same(bounds, [Math.min(...values), Math.max(...values)], "integerRange"),
    ...same(
      mapping,
      levels.levels.map((level) => [level.value, level.name.toLowerCase()]),
      "init?(integer:)",
    ),
    ...levels.invalid
      .filter((value) => value >= bounds[0] && value <= bounds[1])
      .map((value) => `${value} is invalid in the vectors but within the bounds`),
    ...same(fallback, levels.default.kotlin.toLowerCase(), "default"),
    ...same(
      mapping.find(([, name]) => name === fallback)?.[0],
      levels.default.flutter,
      "default as an integer",
    ),
  ];
});

checking("LogLevel WARN acts as ERROR on iOS, as the spec says", () => {
  const logLevel = typeNamed(core("LogLevel.swift"), "LogLevel");
  const effective = descendants(logLevel, "property_declaration").find(
    (p) => p.childForFieldName("name")?.text === "effective",
  );
  return /self\s*==\s*\.warn\s*\?\s*\.error\s*:\s*self/.test(effective?.text ?? "")
    ? []
    : ["effective does not map warn to error"];
});

const requests = vectors("requests.json");
const sessions = vectors("sessions.json");
checking("the install body has the vectors' fields, and only fields the service takes", () => {
  const install = functionNamed(typeNamed(core("Core/Requests.swift"), "Requests"), "install");
  // The literal's keys, and those set on it afterwards (`body["consent"] = …`).
  const fields = [
    ...dictionaryKeys(install),
    ...[...install.text.matchAll(/\bbody\["(\w+)"\]\s*=/g)].map((m) => m[1]),
  ];
  const schema = read(join(root, "src", "ingest", "install.ts"));
  const problems = [];
  for (const testCase of requests.installs) {
    const expected = Object.keys(testCase.request.body);
    problems.push(
      ...expected
        .filter((key) => !fields.includes(key))
        .map((key) => `${testCase.name}: ${key} is not sent`),
    );
  }
  problems.push(
    ...fields
      .filter((key) => !new RegExp(`\\n\\s+${key}:`).test(schema))
      .map((key) => `${key} is no field of the service's install schema`),
  );
  return [...new Set(problems)];
});

checking("each event has the vectors' fields, and only fields the service takes", () => {
  const event = functionNamed(typeNamed(core("Core/Requests.swift"), "Requests"), "event");
  // The literal's keys, and those set on it afterwards (`event["anonymous"] = …`): every field
  // an event of any case has, `anonymous` (on an anonymous event alone) included.
  const fields = [
    ...dictionaryKeys(event),
    ...[...event.text.matchAll(/\bevent\["(\w+)"\]\s*=/g)].map((m) => m[1]),
  ];
  const expected = new Set(
    requests.events.flatMap((c) => c.request.body.events.flatMap((e) => Object.keys(e))),
  );
  const schema = read(join(root, "src", "ingest", "event-schema.ts"));
  return [
    ...same([...new Set(fields)].sort(), [...expected].sort(), "fields"),
    ...fields
      .filter((key) => !new RegExp(`\\n\\s+${key}:`).test(schema))
      .map((key) => `${key} is no field of the service's event schema`),
  ];
});

checking("sdk_platform is a name the service lists, os is ios", () => {
  const requestsType = typeNamed(core("Core/Requests.swift"), "Requests");
  const platforms =
    /SDK_PLATFORMS\s*=\s*\[([^\]]*)\]/.exec(read(join(root, "src", "ingest", "install.ts")))?.[1] ??
    "";
  const listed = [...platforms.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  const platform = stringValue(requestsType, "sdkPlatform");
  const install = functionNamed(requestsType, "install").text;
  return [
    ...(listed.includes(platform) ? [] : [`${platform} is not one of ${listed.join(", ")}`]),
    ...(/"os":\s*\.string\("ios"\)/.test(install) ? [] : ["the install's os is not ios"]),
  ];
});

checking("the routes are the vectors' requests", () => {
  const api = tree(core("Core/Api.swift"));
  // call("GET", "/v1/config", …), or call("GET", path, …) with `let path = "…"` before it.
  const calls = descendants(
    typeNamed(core("Core/Api.swift"), "Api"),
    "function_declaration",
  ).flatMap((fn) =>
    [...fn.text.matchAll(/call\("(GET|POST|DELETE)",\s*(?:"([^"]*)"|(\w+))/g)].map((m) => {
      const path = m[2] ?? new RegExp(`let ${m[3]} = "([^"]*)"`).exec(fn.text)?.[1] ?? `?${m[3]}`;
      return `${m[1]} ${path.replace(/\\\(.*$/, "{{service_id}}")}`;
    }),
  );
  const expected = [
    ...new Set([
      ...requests.installs.map((c) => `${c.request.method} ${c.request.path}`),
      ...requests.events.map((c) => `${c.request.method} ${c.request.path}`),
      ...sessions.requests.map((c) => `${c.request.method} ${c.request.path}`),
      ...requests.other.map(
        (c) =>
          `${c.request.method} ${c.request.path.replace(/\{\{service_id\}\}.*$/, "{{service_id}}")}`,
      ),
    ]),
  ].sort();
  const attribution = requests.other.find((c) => c.request.path.endsWith("/attribution"));
  return [
    ...same([...new Set(calls)].sort(), expected, "routes"),
    ...(api.text.includes("/attribution?wait_seconds=") && attribution?.request.query?.wait_seconds
      ? []
      : ["the attribution read does not send wait_seconds"]),
    ...(/\["Authorization":\s*apiKey/.test(api.text) ? [] : ["Authorization is not the bare key"]),
  ];
});

const delivery = vectors("delivery.json");
const listeners = vectors("listeners.json");
/** The wire names of an enum with string raw values: each case's string, or its own name. */
const rawValues = (file, name) => {
  const found = descendants(tree(core(file)), "enum_declaration")
    .concat(descendants(tree(core(file)), "class_declaration"))
    .find((node) => nameOf(node) === name);
  if (!found) throw new Error(`${file}: no enum ${name}`);
  // Only the enum's own cases, not those of an enum declared inside it.
  const body = found.namedChildren.find(
    (child) => child.type.endsWith("class_body") || child.type === "enum_class_body",
  );
  return (body?.namedChildren ?? [])
    .filter((child) => child.type === "enum_entry")
    .map((entry) => stringsIn(entry).join("") || nameOf(entry));
};

checking(
  "ServiceError's kinds and drop reasons, and ServiceDeepLink's kinds, are the vectors'",
  () => [
    ...same(
      rawValues("Listeners.swift", "DropReason"),
      Object.keys(delivery.dropReasons),
      "ServiceError.DropReason",
    ),
    ...same(
      descendants(tree(core("Listeners.swift")), "class_declaration")
        .filter((node) => nameOf(node) === "Kind")
        .map((node) =>
          descendants(node, "enum_entry")
            .map((e) => stringsIn(e).join("") || nameOf(e))
            .sort(),
        ),
      [
        [
          ...new Set(
            [...listeners.deferred, ...listeners.direct]
              .map((c) => c.deepLink?.kind)
              .filter(Boolean),
          ),
        ].sort(),
        Object.keys(delivery.errorKinds).sort(),
      ],
      "ServiceDeepLink.Kind, ServiceError.Kind",
    ),
  ],
);

checking("the attribution route's own keys and the delivery limits are the vectors'", () => {
  const sdkCore = typeNamed(core("Core/SdkCore.swift"), "SdkCore");
  const platform = read(join(sdk, core("Core/Platform.swift")));
  const setting = (name) =>
    new RegExp(`var ${name}[^=]*=\\s*([^\\n]+)`).exec(platform)?.[1]?.trim();
  const number = (text) => Number((text ?? "").replace(/_/g, ""));
  const age = setting("maxEventAge")
    ?.split("*")
    .map((part) => number(part.trim()));
  return [
    ...same(
      stringsIn(propertyValue(sdkCore, "attributionKeys")).sort(),
      [...listeners.attributionKeys].sort(),
      "SdkCore.attributionKeys",
    ),
    ...same(number(setting("maxQueuedEvents")), delivery.limits.maxQueuedEvents, "maxQueuedEvents"),
    ...same(
      number(setting("maxEventsPerRequest")),
      delivery.limits.maxEventsPerRequest,
      "maxEventsPerRequest",
    ),
    ...same(
      age?.reduce((a, b) => a * b, 1) / 86_400,
      delivery.limits.maxEventAgeDays,
      "maxEventAge in days",
    ),
    ...same(number(setting("retryDelay")), delivery.limits.firstRetryDelaySeconds, "retryDelay"),
    ...same(
      number(setting("maxRetryDelay")),
      delivery.limits.maxRetryDelaySeconds,
      "maxRetryDelay",
    ),
  ];
});

checking(
  "direct links wait for a deep-link listener: listeners.json's maxPendingDirectLinks, the oldest direct one dropped",
  () => {
    const sdkCore = typeNamed(core("Core/SdkCore.swift"), "SdkCore");
    const kept = Number(propertyValue(sdkCore, "maxPendingLinks").text.replace(/_/g, ""));
    const deliver = (
      descendants(sdkCore, "function_declaration").find(
        (fn) =>
          nameOf(fn) === "deliver" && fn.text.split("{")[0].includes("_ link: ServiceDeepLink"),
      )?.text ?? ""
    ).replace(/\/\/.*$/gm, "");
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ListenerTests.swift"));
    return [
      ...same(kept, listeners.maxPendingDirectLinks, "SdkCore.maxPendingLinks"),
      // The bound counts direct links alone, and only a direct link makes room: a link of
      // another kind waiting with them is never pushed out by taps.
      ...(/pendingLinks\.append\(link\)\s*while pendingLinks\.filter\(\{ \$0\.kind == \.direct \}\)\.count > SdkCore\.maxPendingLinks,\s*let oldest = pendingLinks\.firstIndex\(where: \{ \$0\.kind == \.direct \}\) \{\s*pendingLinks\.remove\(at: oldest\)/.test(
        deliver,
      ) && !/removeFirst|removeLast|dropFirst/.test(deliver)
        ? []
        : [
            "deliver does not drop the oldest waiting direct link, and only a direct one, for the newest",
          ]),
      ...(/func testTheMostRecentDirectLinksWaitForAListenerTheOldestDroppedTheRestInOrder\(/.test(
        tests,
      ) && tests.includes('["maxPendingDirectLinks"]')
        ? []
        : ["ListenerTests does not test listeners.json's maxPendingDirectLinks"]),
    ];
  },
);

checking(
  "the consent object, the events envelope, the consent update and the TCF keys are the vectors'",
  () => {
    const requestsType = typeNamed(core("Core/Requests.swift"), "Requests");
    const consentKeys = dictionaryKeys(functionNamed(requestsType, "consent"));
    const expectedConsent = [
      ...requests.installs
        .filter((c) => c.request.body.consent)
        .map((c) => Object.keys(c.request.body.consent)),
      Object.keys(
        requests.other.find((c) => c.request.path.endsWith("/consent")).request.body.consent,
      ),
    ];
    const api = typeNamed(core("Core/Api.swift"), "Api");
    const envelope = dictionaryKeys(functionNamed(api, "events"));
    const update = dictionaryKeys(functionNamed(api, "consent"));
    const tcf = typeNamed(
      core("Platform/ConsentPlatformDefaults.swift"),
      "ConsentPlatformDefaults",
    );
    const tcfKeys = [stringValue(tcf, "tcStringKey"), stringValue(tcf, "gdprAppliesKey")];
    const vectorTcf = requests.installs
      .filter((c) => c.input.tcf)
      .map((c) => Object.keys(c.input.tcf));
    return [
      ...expectedConsent.flatMap((keys) =>
        same([...consentKeys].sort(), [...keys].sort(), "Requests.consent's keys"),
      ),
      ...requests.events.flatMap((c) =>
        same(
          [...envelope].sort(),
          Object.keys(c.request.body).sort(),
          `${c.name}: the events envelope`,
        ),
      ),
      ...same(
        [...update].sort(),
        Object.keys(
          requests.other.find((c) => c.request.path.endsWith("/consent")).request.body,
        ).sort(),
        "the consent update's body",
      ),
      ...vectorTcf.flatMap((keys) => same(tcfKeys, keys, "the TCF keys read from UserDefaults")),
    ];
  },
);

checking(
  "every consent update carries the device's tracking as it now stands, the install's own rules; one goes once the install is recorded when the tracking differs from what the install or the last update told, read at each flush, as the app becomes active and as anonymous mode switches",
  () => {
    const problems = [];
    const api = functionNamed(typeNamed(core("Core/Api.swift"), "Api"), "consent");
    const signature = api.text.split("{")[0];
    if (!/\bdevice: JSONValue\b(?!\?)/.test(signature))
      problems.push(
        "Api.consent does not take the device's tracking (a JSONValue, never optional)",
      );
    if (!dictionaryKeys(api).includes("device")) problems.push("Api.consent's body has no device");
    // Every consent update the Swift code builds: each call of the route passes the tracking.
    for (const path of filesUnder(join(ios, "Sources"), ".swift")) {
      const code = read(path).replace(/\/\/.*$/gm, "");
      for (const call of code.matchAll(/\bapi\.consent\(([^)]*)\)/g))
        if (!/\bdevice:/.test(call[1]))
          problems.push(`${relative(sdk, path)}: a consent update without device: ${call[0]}`);
    }
    const requestsType = typeNamed(core("Core/Requests.swift"), "Requests");
    const tracking = descendants(requestsType, "function_declaration").find((fn) =>
      /func tracking\(attStatus:/.test(fn.text),
    );
    if (!tracking) problems.push("no Requests.tracking(attStatus:idfa:anonymous:)");
    else {
      const keys = [...dictionaryKeys(tracking)].sort();
      for (const c of requests.other.filter((c) => c.request.body?.device))
        problems.push(
          ...same(keys, Object.keys(c.request.body.device).sort(), `${c.name}: device`),
        );
      if (
        !/att == "authorized" && !anonymous \? Fields\.deviceId\(idfa\) : nil/.test(tracking.text)
      )
        problems.push(
          "Requests.tracking gives the IDFA without ATT's authorized, or in anonymous mode",
        );
    }
    const install = functionNamed(requestsType, "install").text;
    if (
      !/let device = tracking\(input\)/.test(install) ||
      !/"maid": device\?\["maid"\]/.test(install)
    )
      problems.push("the install's maid and att_status are not Requests.tracking's");
    const sdkCore = typeNamed(core("Core/SdkCore.swift"), "SdkCore");
    const keys = read(join(sdk, core("Core/SdkCore.swift")));
    if (!/static let all = \[[^\]]*\btrackingSent\b/.test(keys))
      problems.push(
        "Key.all does not hold trackingSent: a restored state would keep another install's tracking",
      );
    const send = functionNamed(sdkCore, "sendConsentIfChanged").text;
    if (
      !/let device = trackingObject\(\)/.test(send) ||
      !/platform\.store\.get\(Key\.trackingSent\)/.test(send)
    )
      problems.push(
        "sendConsentIfChanged does not compare the tracking now with the one last told",
      );
    if ((send.match(/platform\.store\.put\(Key\.trackingSent, device\.text\)/g) ?? []).length < 2)
      problems.push(
        "sendConsentIfChanged does not keep the tracking it sent (and the one refused for good)",
      );
    if (
      !/platform\.store\.put\(Key\.trackingSent,/.test(functionNamed(sdkCore, "ensureInstall").text)
    )
      problems.push("ensureInstall does not keep the tracking the install reported");
    const object = functionNamed(sdkCore, "trackingObject").text;
    if (
      !/!isAnonymous && status == "authorized" \? device\.advertisingIdentifier\(\) : nil/.test(
        object,
      )
    )
      problems.push("trackingObject reads the IDFA without ATT's authorized, or in anonymous mode");
    if (
      !/active: \{ \[weak self\] in self\?\.becameActive\(\) \}/.test(
        functionNamed(sdkCore, "configure").text,
      )
    )
      problems.push("configure does not follow the app becoming active");
    if (
      !/Key\.installTracked\) != nil(?: \|\| self\.installHeldForTracking)? else \{ return \}[\s\S]*self\.flush\(\)/.test(
        functionNamed(sdkCore, "becameActive").text,
      )
    )
      problems.push("becameActive does not flush once the install is recorded");
    if (
      !/if changed \{ worker\.async \{ self\.flush\(\) \} \}/.test(
        functionNamed(sdkCore, "setAnonymous").text,
      )
    )
      problems.push("setAnonymous does not tell the service the IDFA it now has");
    if (
      !read(join(sdk, core("Platform/UIKitLifecycle.swift"))).includes(
        "UIApplication.didBecomeActiveNotification",
      )
    )
      problems.push(
        "UIKitLifecycle does not observe didBecomeActiveNotification (ATT's prompt answered)",
      );
    const conformance = typeNamed(
      join("ios", "Tests", "ServiceAttributionTests", "ConformanceTests.swift"),
      "ConformanceTests",
    );
    problems.push(
      ...same(
        stringsIn(propertyValue(conformance, "trackingUpdates")).sort(),
        requests.other
          .filter((c) => c.platforms?.includes("ios") && c.input?.deviceAtInstall)
          .map((c) => c.name)
          .sort(),
        "ConformanceTests.trackingUpdates",
      ),
    );
    if (
      !descendants(conformance, "function_declaration").some(
        (fn) => nameOf(fn) === "testTrackingUpdatesAtALaterStart",
      )
    )
      problems.push("ConformanceTests.testTrackingUpdatesAtALaterStart is missing");
    const consentTests = read(join(ios, "Tests", "ServiceAttributionTests", "ConsentTests.swift"));
    problems.push(
      ...missingTests(consentTests, "ConsentTests", [
        "testTheSameTrackingAtALaterStartSendsNoUpdate",
        "testAttDeniedAtALaterStartSendsAnUpdateWithNoIdfaOnce",
        "testAttAnsweredDuringTheSessionIsSentAsTheAppBecomesActive",
        "testAnonymousModeOnAfterTheInstallSendsAnUpdateWithNoIdfa",
        "testNoTrackingUpdateBeforeTheInstallIsRecorded",
      ]),
    );
    return problems;
  },
);

checking(
  "sessions: the envelope, each session's fields, the limits and the interval are sessions.json's and the service's",
  () => {
    const api = typeNamed(core("Core/Api.swift"), "Api");
    const requestsType = typeNamed(core("Core/Requests.swift"), "Requests");
    const platform = read(join(sdk, core("Core/Platform.swift")));
    const setting = (name) =>
      Number(
        (new RegExp(`var ${name}[^=]*=\\s*([^\\n]+)`).exec(platform)?.[1] ?? "").replace(/_/g, ""),
      );
    const tracker = typeNamed(core("Core/Sessions.swift"), "SessionTracker");
    const interval = Number(
      propertyValue(tracker, "defaultIntervalSeconds").text.replace(/_/g, ""),
    );
    const appConfig = read(join(root, "src", "apps", "app-config.ts"));
    const serviceInterval = Number(
      (/SESSION_INTERVAL_SECONDS\s*=\s*([\d_]+)/.exec(appConfig)?.[1] ?? "").replace(/_/g, ""),
    );
    const parse = functionNamed(
      typeNamed(core("Core/RemoteConfig.swift"), "RemoteConfig"),
      "parse",
    );
    const contract = read(join(root, "src", "http", "contracts", "config.ts"));
    return [
      ...sessions.requests.flatMap((c) => [
        ...same(
          [...dictionaryKeys(functionNamed(api, "sessions"))].sort(),
          Object.keys(c.request.body).sort(),
          `${c.name}: the sessions envelope`,
        ),
        ...same(
          [...dictionaryKeys(functionNamed(requestsType, "session"))].sort(),
          Object.keys(c.request.body.sessions[0]).sort(),
          `${c.name}: a session's fields`,
        ),
      ]),
      ...same(setting("maxQueuedSessions"), sessions.limits.maxQueuedSessions, "maxQueuedSessions"),
      ...same(
        setting("maxSessionsPerRequest"),
        sessions.limits.maxSessionsPerRequest,
        "maxSessionsPerRequest",
      ),
      ...same(
        interval,
        sessions.limits.defaultSessionIntervalSeconds,
        "SessionTracker.defaultIntervalSeconds",
      ),
      ...same(interval, serviceInterval, "the service's SESSION_INTERVAL_SECONDS"),
      ...(stringsIn(parse).includes("session_interval_seconds") &&
      contract.includes("session_interval_seconds:")
        ? []
        : [
            "RemoteConfig.parse does not read session_interval_seconds, or the service has no such field",
          ]),
    ];
  },
);

// A configuration's interval the contract refuses (0, a fraction, ...) is taken as none given,
// as in every SDK (remote-config.json): never the nearest value, which for 0 would read the
// configuration every second and end a session at every return.
checking(
  "remote configuration: both intervals taken through contractSeconds, its bounds the contract's, the defaults remote-config.json's and the service's, every case run",
  () => {
    const remoteConfig = typeNamed(core("Core/RemoteConfig.swift"), "RemoteConfig");
    const parse = functionNamed(remoteConfig, "parse").text;
    const number = (name) => Number(propertyValue(remoteConfig, name).text.replace(/_/g, ""));
    const appConfig = read(join(root, "src", "apps", "app-config.ts"));
    const serviceRefresh = Number(
      (/CONFIG_REFRESH_SECONDS\s*=\s*([\d_]+)/.exec(appConfig)?.[1] ?? "").replace(/_/g, ""),
    );
    const remoteConfigVectors = vectors("remote-config.json");
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ConformanceTests.swift"));
    return [
      ...["refresh_interval_seconds", "session_interval_seconds"]
        .filter((field) => !parse.includes(`contractSeconds(json["${field}"])`))
        .map((field) => `RemoteConfig.parse does not take ${field} through contractSeconds`),
      ...same(number("maxContractInteger"), Number.MAX_SAFE_INTEGER, "maxContractInteger"),
      ...(/seconds >= 1, seconds <= maxContractInteger/.test(
        functionNamed(remoteConfig, "contractSeconds").text,
      )
        ? []
        : ["contractSeconds does not keep to 1 ... maxContractInteger"]),
      ...same(
        number("defaultRefreshIntervalSeconds"),
        remoteConfigVectors.defaults.refresh_interval_seconds,
        "RemoteConfig.defaultRefreshIntervalSeconds",
      ),
      ...same(
        number("defaultRefreshIntervalSeconds"),
        serviceRefresh,
        "the service's CONFIG_REFRESH_SECONDS",
      ),
      ...(tests.includes('"remote-config.json"')
        ? []
        : ["ConformanceTests does not read remote-config.json"]),
      ...missingTests(tests, "ConformanceTests", [
        "testTheRemoteConfigurationsIntervalsAreTakenAsTheVectorsSay",
        "testTheCoreReadsTheConfigurationAgainAfterTheRefreshIntervalTaken",
        "testTheRemoteConfigurationsDefaultsAreTheSdks",
      ]),
    ];
  },
);

checking("SessionTests runs every case of sessions.json, every step of its lifecycle cases", () => {
  const file = join("ios", "Tests", "ServiceAttributionTests", "SessionTests.swift");
  const tests = typeNamed(file, "SessionTests");
  const text = tests.text;
  const steps = [...new Set(sessions.lifecycle.flatMap((c) => c.steps.map((s) => s.step)))];
  const problems = [];
  if (!text.includes('"sessions.json"')) problems.push("SessionTests does not read sessions.json");
  for (const name of [
    "testEveryLifecycleCaseAgainstTheSessionRules",
    "testEveryLifecycleCaseThroughTheCore",
    "testTheRequestCase",
  ]) {
    const fn = descendants(tests, "function_declaration").find((f) => nameOf(f) === name);
    if (!fn) {
      problems.push(`${name} is not declared`);
      continue;
    }
    if (name === "testTheRequestCase") continue;
    problems.push(
      ...steps
        .filter((step) => !fn.text.includes(`case "${step}"`))
        .map((step) => `${name} does not drive the step ${step}`),
    );
  }
  return problems;
});

checking("UIKit is used only behind #if os(iOS), and the SDK observes the app's lifecycle", () => {
  const problems = [];
  for (const path of filesUnder(join(ios, "Sources"), ".swift")) {
    eachCodeLine(path, (code, conditions, index) => {
      const guarded = conditions.some((c) => /^os\(iOS\)/.test(c));
      if (/\bUI(Application|Device|Kit)\b/.test(code) && !guarded)
        problems.push(`${relative(sdk, path)}:${index + 1}: UIKit outside #if os(iOS)`);
    });
  }
  const lifecycle = read(join(sdk, core("Platform/UIKitLifecycle.swift")));
  for (const name of ["didEnterBackgroundNotification", "willEnterForegroundNotification"])
    if (!lifecycle.includes(`UIApplication.${name}`))
      problems.push(`UIKitLifecycle does not observe ${name}`);
  if (
    !/platform\.lifecycle\s*=\s*UIKitLifecycle\(\)/.test(
      read(join(sdk, core("ServiceAttribution.swift"))),
    )
  )
    problems.push("ServiceAttribution's platform does not follow UIKit's lifecycle");
  if (
    !/platform\.lifecycle\.observe\(/.test(
      functionNamed(typeNamed(core("Core/SdkCore.swift"), "SdkCore"), "configure").text,
    )
  )
    problems.push("configure does not observe the app's lifecycle");
  return problems;
});

checking("DeliveryTests has a test for every scenario of delivery.json, each one declared", () => {
  const file = join("ios", "Tests", "ServiceAttributionTests", "DeliveryTests.swift");
  const tests = typeNamed(file, "DeliveryTests");
  const table = propertyValue(tests, "scenarios");
  const literal = descendants(table, "dictionary_literal")[0];
  if (!literal) throw new Error("DeliveryTests.scenarios is no dictionary literal");
  const names = literal.childrenForFieldName("key").map((key) => stringsIn(key).join(""));
  const methods = literal
    .childrenForFieldName("value")
    .map((value) => value.text.replace(/^DeliveryTests\./, ""));
  const declared = descendants(tests, "function_declaration").map(nameOf);
  return [
    ...same(
      [...names].sort(),
      delivery.scenarios.map((scenario) => scenario.name).sort(),
      "scenarios",
    ),
    ...methods.filter((m) => !declared.includes(m)).map((m) => `${m} is not declared`),
  ];
});

checking("the matching parameters are pii.json's keys", () => {
  const protector = typeNamed(core("Core/Pii.swift"), "Protector");
  return same(stringsIn(propertyValue(protector, "piiKeys")), vectors("pii.json").keys, "piiKeys");
});

checking("under Flutter, custom values are sealed leaf by leaf, as pii.json's customValues", () => {
  const protector = typeNamed(core("Core/Pii.swift"), "Protector");
  const protect = functionNamed(protector, "protect").text;
  const leaves = functionNamed(protector, "sealLeaves").text;
  const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ConformanceTests.swift"));
  return [
    ...(/sealsCustomValues && sealing[\s\S]*sealLeaves\(value\)/.test(protect)
      ? []
      : ["protect does not seal custom values through sealLeaves"]),
    ...(/sealer\(value\.text\)/.test(protect)
      ? ["protect seals a whole custom value as one string"]
      : []),
    ...(/case let \.object\([\s\S]*sealLeaves\(member\)/.test(leaves) &&
    /case let \.array\([\s\S]*sealLeaves\(item\)/.test(leaves)
      ? []
      : ["sealLeaves does not seal inside maps and lists"]),
    ...(/Protector\.maxStringLength/.test(leaves)
      ? []
      : ["a leaf's envelope is not held to the service's string limit"]),
    ...(vectors("pii.json").customValues?.cases?.length ? [] : ["pii.json has no customValues"]),
    ...(/func testUnderFlutterCustomValuesAreSealedLeafByLeafAsTheVectorsHaveThem\(/.test(tests) &&
    tests.includes('["customValues"]')
      ? []
      : ["ConformanceTests does not run pii.json's customValues"]),
  ];
});

checking("ATT statuses and match statuses are the service's", () => {
  const requestsType = typeNamed(core("Core/Requests.swift"), "Requests");
  const att =
    /ATT_STATUSES\s*=\s*\[([^\]]*)\]/.exec(
      read(join(root, "src", "domain", "install-facts.ts")),
    )?.[1] ?? "";
  const match =
    /MATCH_STATUSES\s*=\s*\[([^\]]*)\]/.exec(
      read(join(root, "src", "ports", "attributions.ts")),
    )?.[1] ?? "";
  const strings = (text) => [...text.matchAll(/"([^"]+)"/g)].map((m) => m[1]).sort();
  const device = read(join(sdk, core("Platform/AppleDevice.swift")));
  const reported = [...device.matchAll(/case \.\w+: return "(\w+)"/g)].map((m) => m[1]).sort();
  const sdkCore = typeNamed(core("Core/SdkCore.swift"), "SdkCore");
  const settled = stringsIn(propertyValue(sdkCore, "settledStatuses")).sort();
  const spec = ["matched", "matched_no_params", "organic", "skipped", "failed", "not_configured"];
  const answered = [
    ...sdkCore.text.matchAll(/matchStatus:\s*(?:isInitialized \? )?"(\w+)"(?:\s*:\s*"(\w+)")?/g),
  ].flatMap((m) => m.slice(1).filter(Boolean));
  return [
    ...same(
      stringsIn(propertyValue(requestsType, "attStatuses")).sort(),
      strings(att),
      "Requests.attStatuses",
    ),
    ...same(reported, strings(att), "AppleDevice's ATT statuses"),
    ...settled
      .filter((s) => !strings(match).includes(s))
      .map((s) => `${s} is no status of the service`),
    ...[...settled, ...answered]
      .filter((s) => !spec.includes(s))
      .map((s) => `${s} is no status of the spec`),
    ...(answered.length >= 3 ? [] : ["the statuses attributionParams answers were not found"]),
  ];
});

checking("sealing constants are the encryption vectors'", () => {
  const encryption = JSON.parse(read(join(root, "spec", "encryption-test-vectors.json")));
  const sealer = typeNamed(core("Core/Sealer.swift"), "Sealer");
  const version = stringValue(sealer, "version");
  const info = stringValue(sealer, "infoPrefix");
  const keyId = encryption.recipient.keyId;
  return [
    ...encryption.vectors
      .filter((v) => v.hkdfInfo !== `${info}${keyId}`)
      .map((v) => `${v.name}: hkdfInfo ${v.hkdfInfo}`),
    ...encryption.vectors
      .filter(
        (v) => v.aad !== `${version}.${keyId}` || !v.envelope.startsWith(`${version}.${keyId}.`),
      )
      .map((v) => `${v.name}: aad or envelope prefix`),
  ];
});

/** The source of the function `name` of `file` whose declaration matches `signature`. */
const functionText = (file, signature) => {
  const found = descendants(tree(core(file)), "function_declaration").find((fn) =>
    signature.test(fn.text.split("{")[0]),
  );
  if (!found) throw new Error(`${file}: no function ${signature}`);
  return found.text;
};
/** Whether `first` occurs in `text`, and before `then` (which must occur too). */
const before = (text, first, then) => {
  const a = text.indexOf(first);
  const b = text.indexOf(then);
  return a >= 0 && b >= 0 && a < b;
};
/**
 * The iOS version of the `if #available` that guards `node`, of its ancestor `if` statements
 * `ifs` (outermost first): the nearest one whose then-branch holds it. A node in an `else`
 * branch is not guarded by that `if`'s condition (an `else if #available` is an `if` of its
 * own, inside the branch). Undefined when none does.
 */
const guardedVersion = (node, ifs) =>
  [...ifs]
    .reverse()
    .filter((n) => {
      const otherwise = n.children.find((c) => c.type === "else");
      return !otherwise || node.plain.start < otherwise.plain.start;
    })
    .map((n) => /#available\(iOS (\d+)(?:\.(\d+))?/.exec(n.text.slice(0, n.text.indexOf("{"))))
    .filter(Boolean)
    .map((m) => [Number(m[1]), Number(m[2] ?? 0)])[0];

/** Whether the version `[major, minor]` is `needed` or later. */
const atLeast = (version, needed) =>
  version !== undefined &&
  (version[0] > needed[0] || (version[0] === needed[0] && version[1] >= needed[1]));

checking(
  "conversion values: coarse values and windows are the service's, Apple's calls behind #available, every vector run",
  () => {
    const problems = [];
    const schemaFile = read(join(root, "src", "skadnetwork", "conversion-schema.ts"));
    const postbacks = read(join(root, "src", "skadnetwork", "postbacks.ts"));
    const coarse = [
      ...(/COARSE_VALUES\s*=\s*\[([^\]]*)\]/.exec(postbacks)?.[1] ?? "").matchAll(/"(\w+)"/g),
    ].map((m) => m[1]);
    const values = core("Core/ConversionValues.swift");
    problems.push(
      ...same(rawValues("Core/ConversionValues.swift", "CoarseValue"), coarse, "CoarseValue"),
    );
    const hours = (text) => [...text.matchAll(/(\d+)/g)].map((m) => Number(m[1]));
    const windows = [...schemaFile.matchAll(/fromHours:\s*(\d+),\s*toHours:\s*(\d+)/g)].flatMap(
      (m) => hours(`${m[1]} ${m[2]}`),
    );
    const evaluation = descendants(tree(values), "class_declaration").find(
      (node) => nameOf(node) === "ConversionEvaluation",
    );
    if (!evaluation) throw new Error("no ConversionEvaluation");
    problems.push(
      ...same(hours(propertyValue(evaluation, "windows").text), windows, "the windows' hours"),
    );

    // Each of Apple's calls inside the `if #available` of the iOS version that brought it.
    const apple = tree(core("Platform/AppleConversionValues.swift"));
    // `PostbackUpdate` and the update taking one came with iOS 18; the forms with
    // `lockPostback:` with 17.4.
    const since = (call) => {
      if (call.startsWith("PostbackUpdate(")) return [18, 0];
      if (call.startsWith("Postback.updateConversionValue"))
        return /lockPostback:/.test(call) ? [17, 4] : [18, 0];
      if (!call.startsWith("SKAdNetwork.updatePostbackConversionValue")) return null;
      return /coarseValue:/.test(call) ? [16, 1] : [15, 4];
    };
    const found = [];
    const visit = (node, ifs) => {
      const inside = node.type === "if_statement" ? [...ifs, node] : ifs;
      const needed = node.type === "call_expression" ? since(node.text) : null;
      if (needed) {
        const version = guardedVersion(node, inside) ?? null;
        found.push(node.text.split("(")[0]);
        if (
          !version ||
          version[0] < needed[0] ||
          (version[0] === needed[0] && version[1] < needed[1])
        )
          problems.push(
            `${node.text.split("{")[0].trim()} outside #available(iOS ${needed.join(".")}, *)`,
          );
        if (needed[0] === 16 && !/lockWindow:/.test(node.text))
          problems.push("the iOS 16.1 update does not pass lockWindow");
        return;
      }
      for (const child of node.namedChildren) visit(child, inside);
    };
    visit(apple, []);
    for (const call of [
      "SKAdNetwork.updatePostbackConversionValue",
      "Postback.updateConversionValue",
    ])
      if (!found.includes(call)) problems.push(`${call} is never called`);
    // Before 15.4 the first launch is registered, and the first window's value set, by the calls
    // those versions have: reached only where no newer call's #available holds.
    const older = [];
    const visitOlder = (node, ifs) => {
      const inside = node.type === "if_statement" ? [...ifs, node] : ifs;
      const name = node.type === "call_expression" ? node.text.split("(")[0] : "";
      if (/^SKAdNetwork\.(registerAppForAdNetworkAttribution|updateConversionValue)$/.test(name)) {
        older.push(name);
        if (guardedVersion(node, inside))
          problems.push(`${name} is inside an #available it is never reached under`);
        return;
      }
      for (const child of node.namedChildren) visitOlder(child, inside);
    };
    visitOlder(apple, []);
    for (const call of [
      "SKAdNetwork.registerAppForAdNetworkAttribution",
      "SKAdNetwork.updateConversionValue",
    ])
      if (!older.includes(call)) problems.push(`${call} is never called (iOS 15.0 to 15.3)`);

    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ConversionValueTests.swift"));
    if (
      !tests.includes('"conversion-values.json"') ||
      !/func testEveryCaseOfTheVectors\(/.test(tests)
    )
      problems.push("ConversionValueTests does not run conversion-values.json's cases");
    return problems;
  },
);

/**
 * Each call of `root` whose text `matches`, nested ones included, with its ancestor `if`
 * statements (for ``guardedVersion``) and the texts of the calls it is inside.
 */
const callsUnder = (root, matches) => {
  const found = [];
  const visit = (node, ifs, calls) => {
    const isCall = node.type === "call_expression";
    if (isCall && matches(node.text)) found.push({ node, ifs, calls });
    const nestedIfs = node.type === "if_statement" ? [...ifs, node] : ifs;
    const nestedCalls = isCall ? [...calls, node.text] : calls;
    for (const child of node.namedChildren) visit(child, nestedIfs, nestedCalls);
  };
  visit(root, [], []);
  return found;
};

checking(
  "AdAttributionKit re-engagement: one update of its conversions alone, behind #available(iOS 18.0, *); the install's updates name the install",
  () => {
    const problems = [];
    const file = core("Platform/AppleConversionValues.swift");
    const apple = typeNamed(file, "AppleConversionValues");
    const at = (node) => `AppleConversionValues.swift:${node.startPosition.row + 1}`;
    const aakCall = (text) => /^(Postback\.updateConversionValue|PostbackUpdate)\(/.test(text);

    // The re-engagement: a PostbackUpdate of fine value 0, unlocked, for `.reengagement` alone,
    // handed to the update that takes one, both inside `if #available(iOS 18.0, *)`, on the
    // serial queue of AdAttributionKit's calls, a refusal to `failed`.
    const reengage = functionNamed(apple, "reengage");
    const calls = callsUnder(reengage, aakCall);
    const updates = calls.filter(({ node }) => node.text.startsWith("PostbackUpdate("));
    const made = calls.filter(({ node }) =>
      node.text.startsWith("Postback.updateConversionValue("),
    );
    if (updates.length !== 1)
      problems.push(`reengage makes ${updates.length} PostbackUpdate, not one`);
    if (made.length !== 1)
      problems.push(`reengage calls Postback.updateConversionValue ${made.length} times, not once`);
    for (const { node } of updates) {
      const args = node.text.replace(/\s+/g, " ");
      if (!/conversionTypes: \[\.reengagement\]/.test(args))
        problems.push(
          `${at(node)}: the re-engagement's update does not name [.reengagement] alone`,
        );
      if (!/fineConversionValue: 0\b/.test(args) || !/lockPostback: false\b/.test(args))
        problems.push(`${at(node)}: the re-engagement's update is not a fine value 0, unlocked`);
      if (/coarseConversionValue:/.test(args))
        problems.push(`${at(node)}: the re-engagement's update claims a coarse value`);
    }
    for (const { node } of made)
      if (/lockPostback:/.test(node.text))
        problems.push(
          `${at(node)}: the re-engagement's update takes no PostbackUpdate (it would reach the install's postbacks)`,
        );
    for (const { node, ifs, calls: outer } of calls) {
      if (!atLeast(guardedVersion(node, ifs), [18, 0]))
        problems.push(`${at(node)}: ${node.text.split("(")[0]} outside #available(iOS 18.0, *)`);
      if (!outer.some((text) => text.startsWith("attributionKitCalls.run")))
        problems.push(`${at(node)}: ${node.text.split("(")[0]} not on attributionKitCalls`);
    }
    if (!/catch \{\s*failed\("AdAttributionKit: /.test(reengage.text))
      problems.push("a refused re-engagement update does not go to failed");

    // Xcode 15 (Swift 5.7 to 5.10, which the podspec takes) has no iOS 18 SDK: every line that
    // names PostbackUpdate must be compiled by Swift 6 only.
    eachCodeLine(join(sdk, file), (code, conditions, index) => {
      if (
        /\bPostbackUpdate\b/.test(code) &&
        !conditions.some((c) => /compiler\(>=\s*6(\.\d+)?\)/.test(c))
      )
        problems.push(
          `AppleConversionValues.swift:${index + 1}: PostbackUpdate outside #if compiler(>=6.0)`,
        );
    });

    // The install's updates: the registration and the schema's go through updateInstall, which
    // from iOS 18 names `.install` alone and returns before the 17.4 forms.
    for (const name of ["register", "update"]) {
      const fn = functionNamed(apple, name);
      if (callsUnder(fn, aakCall).length > 0)
        problems.push(`${name} calls AdAttributionKit itself, not through updateInstall`);
      if (!/AppleConversionValues\.updateInstall\(/.test(fn.text))
        problems.push(`${name} does not update the install through updateInstall`);
    }
    const install = functionNamed(apple, "updateInstall");
    const installCalls = callsUnder(install, aakCall);
    const installUpdates = installCalls.filter(({ node }) =>
      node.text.startsWith("PostbackUpdate("),
    );
    if (installUpdates.length !== 1)
      problems.push("updateInstall makes no PostbackUpdate (iOS 18)");
    for (const { node } of installUpdates)
      if (!/conversionTypes: \[\.install\]/.test(node.text.replace(/\s+/g, " ")))
        problems.push(`${at(node)}: the install's update does not name [.install] alone`);
    for (const { node, ifs } of installCalls) {
      const typed = !/lockPostback:/.test(node.text) || node.text.startsWith("PostbackUpdate(");
      const version = guardedVersion(node, ifs);
      if (typed && !atLeast(version, [18, 0]))
        problems.push(`${at(node)}: ${node.text.split("(")[0]} outside #available(iOS 18.0, *)`);
      if (!typed && !atLeast(version, [17, 4]))
        problems.push(`${at(node)}: ${node.text.split("(")[0]} outside #available(iOS 17.4, *)`);
    }
    if (!/try await Postback\.updateConversionValue\(update\)\s*return\b/.test(install.text))
      problems.push("updateInstall goes on to the 17.4 forms after the iOS 18 update");
    // No other PostbackUpdate in the file: each names the conversions it is for.
    for (const { node } of callsUnder(apple, (text) => text.startsWith("PostbackUpdate(")))
      if (!/conversionTypes: \[\.(install|reengagement)\]/.test(node.text.replace(/\s+/g, " ")))
        problems.push(`${at(node)}: a PostbackUpdate names no conversion type`);
    return problems;
  },
);

checking(
  "a re-engagement open (AdAttributionKitReengagementOpen) is told once, from both link handlers, never stopped, switched off, deleted or in an extension",
  () => {
    const problems = [];
    const sdkCore = typeNamed(core("Core/SdkCore.swift"), "SdkCore");
    problems.push(
      ...same(
        stringValue(sdkCore, "reengagementOpenParameter"),
        "AdAttributionKitReengagementOpen",
        "SdkCore.reengagementOpenParameter",
      ),
    );
    const detect = functionText("Core/SdkCore.swift", /func isReengagementOpen\(/);
    if (!/\.queryItems\b/.test(detect) || !/\$0\.name == reengagementOpenParameter/.test(detect))
      problems.push("isReengagementOpen does not look for the parameter among the query's names");
    const deepLink = functionText("Core/SdkCore.swift", /func handleDeepLink\(/);
    if (!before(deepLink, "noteReengagementOpen(text)", "directDeepLink("))
      problems.push("handleDeepLink does not note a re-engagement open first");
    const universal = functionText(
      "ServiceAttribution.swift",
      /func handleUniversalLink\(_ url: URL/,
    );
    if (!before(universal, "core.noteReengagementOpen(text)", "LinkParser.parse("))
      problems.push(
        "handleUniversalLink does not note a re-engagement open before comparing hosts",
      );
    const note = functionText("Core/SdkCore.swift", /func noteReengagementOpen\(/);
    if (!/guard refusal == nil, SdkCore\.isReengagementOpen\(text\)/.test(note))
      problems.push("noteReengagementOpen does not refuse an app extension first");
    if (!before(note, "refusalLocked()", "lastReengagementOpen = text"))
      problems.push("noteReengagementOpen takes an open while stopped, switched off or deleted");
    if (!/if !configured \|\| config == nil \{\s*reengagementWaiting = true/.test(note))
      problems.push("an open before a configuration is applied does not wait for one");
    if (!/worker\.async \{ self\.reengage\(\) \}/.test(note))
      problems.push("an open with a configuration applied is not told on the worker");
    const reengage = functionText("Core/SdkCore.swift", /func reengage\(\)/);
    if (
      !before(
        reengage,
        "if !disabled && !stopped && !deleted { return true }",
        "guard may else { return }",
      ) ||
      !before(reengage, "guard may else { return }", "platform.conversionValues.reengage")
    )
      problems.push(
        "reengage does not check stopped, switched off and deleted before telling Apple",
      );
    // An open dropped untold is forgotten as the last one taken: the same URL handed again
    // once the SDK may tell it (after start(), switched on again) makes its update then.
    if (!before(reengage, "lastReengagementOpen = nil", "guard may else { return }"))
      problems.push("reengage keeps an open it may not tell as told");
    if (
      !/platform\.conversionValues\.reengage \{ \[weak self\] message in self\?\.conversionRefused\(message\) \}/.test(
        reengage,
      )
    )
      problems.push("a refused re-engagement update is not reported as conversionValue");
    const apply = functionText("Core/SdkCore.swift", /func apply\(/);
    if (
      !before(apply, "reengagementWaiting = false", "if !newConfig.enabled") ||
      !before(apply, "disable(because:", "if reengaged { reengage() }")
    )
      problems.push("apply does not tell a waiting open, or tells it when switched off");
    const stop = functionText("Core/SdkCore.swift", /func stop\(\)/);
    if (!/reengagementWaiting = false/.test(stop)) problems.push("stop keeps a waiting open");
    const dropped =
      /if reengagementWaiting \{ lastReengagementOpen = nil \}\s*reengagementWaiting = false/;
    if (!dropped.test(stop)) problems.push("stop keeps the waiting open it drops as told");
    const configure = functionText("Core/SdkCore.swift", /func configure\(/);
    if (!new RegExp(`if stopped \\{\\s*${dropped.source}\\s*\\}`).test(configure))
      problems.push(
        "configure keeps a waiting open for an SDK an earlier launch stopped, or keeps it as told",
      );
    if (
      !/if reengagementWaiting && !newConfig\.enabled \{ lastReengagementOpen = nil \}/.test(apply)
    )
      problems.push("apply keeps the waiting open a switch-off drops as told");
    const platform = read(join(sdk, core("Core/Platform.swift")));
    if (!/func reengage\(failed: @escaping @Sendable \(String\) -> Void\)/.test(platform))
      problems.push("ConversionValueSink has no reengage");

    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ConversionValueTests.swift"));
    problems.push(
      ...[
        "testAReengagementOpenMakesOneUpdateForItsPostbackAndEvaluatesNothing",
        "testAReengagementOpenBeforeConfigureIsToldOnceAConfigurationIsApplied",
        "testNoReengagementUpdateWhileStoppedSwitchedOffOrDeleted",
        "testAReengagementOpenDroppedUntoldIsTakenWhenHandedAgain",
        "testNoReengagementUpdateInAnAppExtension",
        "testARefusedReengagementUpdateGoesToTheErrorListener",
      ]
        .filter((name) => !tests.includes(`func ${name}(`))
        .map((name) => `ConversionValueTests.${name} is missing`),
    );
    const readme = read(join(ios, "README.md"));
    const section =
      /^## SKAdNetwork and AdAttributionKit conversion values$([\s\S]*?)^## /m.exec(readme)?.[1] ??
      "";
    if (
      !/<key>EligibleForAdAttributionKitReengagementPostbackCopies<\/key>\s*<true\/>/.test(section)
    )
      problems.push(
        "the README's conversion values section does not show EligibleForAdAttributionKitReengagementPostbackCopies",
      );
    if (!/AdAttributionKitReengagementOpen/.test(section) || !/conversionTypes/.test(section))
      problems.push(
        "the README's conversion values section does not say what a re-engagement open does",
      );
    return problems;
  },
);

// --- Linking, processes, numbers, the background, drops, isolation, the disk ----------------

/**
 * Each node of `root` that `matches` (by its text) and every ancestor `if` statement of it:
 * where an API of a later iOS is used, and under which `#available`. Only the outermost match
 * of a chain (`A.b.c`) counts.
 */
const usesUnder = (root, matches) => {
  const found = [];
  const visit = (node, ifs, inside) => {
    const here = !inside && matches(node);
    if (here) found.push({ node, ifs });
    const nested = node.type === "if_statement" ? [...ifs, node] : ifs;
    for (const child of node.namedChildren) visit(child, nested, inside || here);
  };
  visit(root, [], false);
  return found;
};
const availableIn = (ifs) =>
  [...ifs]
    .reverse()
    .map((n) => /#available\(iOS (\d+)(?:\.(\d+))?/.exec(n.text.slice(0, n.text.indexOf("{"))))
    .filter(Boolean)
    .map((m) => [Number(m[1]), Number(m[2] ?? 0)])[0];

/**
 * The oldest iOS both manifests deploy to (root Package.swift's `.iOS(.vNN)`, the podspec's
 * deployment target): an API of that iOS or an older one needs no `#available`.
 */
const packageMinimum = () => {
  const spm = /\.iOS\(\.v(\d+)(?:_(\d+))?\)/.exec(read(join(root, "Package.swift")));
  const pod = /s\.ios\.deployment_target\s*=\s*'(\d+)(?:\.(\d+))?'/.exec(
    read(join(root, "ServiceAttribution.podspec")),
  );
  const versions = [spm, pod]
    .filter(Boolean)
    .map((m) => [Number(m[1]), Number(m[2] ?? 0)])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return versions.length === 2 ? versions[0] : undefined;
};

checking(
  "AdAttributionKit, AdServices and AppTrackingTransparency are imported weakly, each use behind the #available of its iOS unless both manifests' minimum has it",
  () => {
    const problems = [];
    const frameworks = ["AdAttributionKit", "AdServices", "AppTrackingTransparency"];
    const weak = new Set();
    for (const path of filesUnder(join(ios, "Sources"), ".swift")) {
      eachCodeLine(path, (code, conditions, index) => {
        const imported = /^(@_weakLinked\s+)?import\s+(\w+)$/.exec(code);
        if (!imported || !frameworks.includes(imported[2])) return;
        if (imported[1]) {
          weak.add(imported[2]);
          return;
        }
        // A plain import only for a compiler before `@_weakLinked import` (Swift 5.8).
        if (!conditions.some((c) => /^!\(compiler\(>=5\.8\)\)$/.test(c)))
          problems.push(`${relative(sdk, path)}:${index + 1}: import ${imported[2]} is not weak`);
      });
    }
    problems.push(
      ...frameworks.filter((f) => !weak.has(f)).map((f) => `no @_weakLinked import ${f}`),
    );
    const minimum = packageMinimum();
    if (!minimum) problems.push("Package.swift or the podspec names no iOS minimum");
    const device = tree(core("Platform/AppleDevice.swift"));
    for (const [name, needed] of [
      ["ATTrackingManager", [14, 0]],
      ["AAAttribution", [14, 3]],
    ]) {
      const uses = usesUnder(
        device,
        (n) => n.type === "navigation_expression" && n.text.startsWith(`${name}.`),
      );
      if (uses.length === 0) problems.push(`${name} is never used`);
      for (const { node, ifs } of uses)
        if (!atLeast(availableIn(ifs), needed) && !atLeast(minimum, needed))
          problems.push(
            `${node.text} outside #available(iOS ${needed.join(".")}, *), under a minimum of iOS ${minimum?.join(".")}`,
          );
    }
    const readme = read(join(ios, "README.md"));
    if (
      !/LC_LOAD_WEAK_DYLIB/.test(readme) ||
      !/otool -l/.test(readme) ||
      !/simulator older than/.test(readme)
    )
      problems.push("the README does not say how to check the weak links on a Mac");
    return problems;
  },
);

checking("configure is refused in an app extension, where sendEvent keeps nothing", () => {
  const facade = read(join(sdk, core("ServiceAttribution.swift")));
  const launch = functionText("ServiceAttribution.swift", /func launch\(/);
  const send = functionText("Core/SdkCore.swift", /func sendEvent\(/);
  const errors = rawValues("ServiceAttributionError.swift", "ServiceAttributionError");
  return [
    ...(/Bundle\.main\.bundleURL\.pathExtension == "appex"/.test(facade)
      ? []
      : ["the facade does not tell an app extension by its .appex bundle"]),
    ...(/SdkCore\(\s*store: store,\s*refusal: inAppExtension \? \.appExtension : nil,\s*refusalLog: inAppExtension \? UnifiedLogSink\(\) : nil\s*\)/.test(
      facade,
    )
      ? []
      : ["the core is not made with the refusal in an app extension"]),
    ...(/FileStore\?\s*=\s*inAppExtension \? nil : FileStore\.standard\(\)/.test(facade)
      ? []
      : ["an app extension opens the SDK's files"]),
    ...(before(launch, "core.refuseConfigure(", "Platform(") &&
    before(launch, "core.refuseConfigure(", "captureIdentifierForVendor")
      ? []
      : ["launch reads or opens something before refusing an app extension"]),
    ...(before(send, "self.refusal", "early.append")
      ? []
      : ["sendEvent keeps events before refusing"]),
    ...(errors.includes("appExtension") ? [] : ["ServiceAttributionError has no appExtension"]),
    ...(/^## App extensions$/m.test(read(join(ios, "README.md")))
      ? []
      : ["the README has no section App extensions"]),
  ];
});

checking("numbers keep their decimal form, booleans stay booleans", () => {
  const from = functionText("Core/JSONValue.swift", /func from\(_ number: NSNumber\)/);
  const value = functionText("Core/Parameters.swift", /func value\(/);
  const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ValueTests.swift"));
  return [
    ...(before(from, "CFBooleanGetTypeID", "NSDecimalNumber")
      ? []
      : ["CFBoolean is not told first"]),
    ...(/as\? NSDecimalNumber[\s\S]*decimal\.stringValue/.test(from)
      ? []
      : ["an NSDecimalNumber is not read from its decimal text"]),
    ...(/type == "f"[\s\S]*floatValue/.test(from) ? [] : ["a Float NSNumber is widened"]),
    ...(/Double\("\\\(value\)"\)/.test(functionText("Core/JSONValue.swift", /func from\(float/))
      ? []
      : ["a Float is not read from its shortest text"]),
    ...(before(value, "type(of: value) == Float.self", "as? NSNumber") &&
    before(value, "type(of: value) == Decimal.self", "as? NSNumber")
      ? []
      : ["a Swift Float or Decimal is not taken before it bridges to NSNumber"]),
    ...(/func testNumbersKeepTheirDecimalForm\(/.test(tests) && /Float\(9\.99\)/.test(tests)
      ? []
      : ["ValueTests has no test of the numbers' decimal form"]),
  ];
});

checking("going to the background, what is queued is sent in the time iOS lends", () => {
  const lifecycle = read(join(sdk, core("Platform/UIKitLifecycle.swift")));
  const background = functionText("Core/SdkCore.swift", /func enteredBackground\(/);
  const send = functionText("Core/SdkCore.swift", /func sendInTheBackground\(/);
  const flush = functionText("Core/SdkCore.swift", /func flush\(\)/);
  return [
    ...(/application\.beginBackgroundTask\(withName:/.test(lifecycle) &&
    /application\.endBackgroundTask\(/.test(lifecycle)
      ? []
      : ["UIKitLifecycle does not begin and end a background task"]),
    ...(/UIApplication\.shared\b/.test(lifecycle.replace(/\/\/.*$/gm, ""))
      ? ["UIApplication.shared is used (not in an app extension)"]
      : []),
    ...(/expired\(\)\s*\n\s*self\.endOnMainThread\(\)/.test(lifecycle)
      ? []
      : ["the expiration handler does not end the task"]),
    ...(/guard identifier != \.invalid else \{ return \}/.test(lifecycle) &&
    /DispatchQueue\.main\.async \{ self\.endOnMainThread\(\) \}/.test(lifecycle)
      ? []
      : ["the task is not ended once, on the main thread"]),
    ...(background.includes("sendInTheBackground()") ? [] : ["enteredBackground sends nothing"]),
    ...(/platform\.lifecycle\.beginBackgroundTime\(/.test(send) && /flushNow\(\)/.test(send)
      ? []
      : ["no background time asked for, or no flush at once"]),
    ...(/defer \{ giveBackBackgroundTimeIfDone\(\) \}/.test(flush)
      ? []
      : ["the flush does not give the time back when done"]),
  ];
});

checking("every item a 202 answer takes off the queue is accepted, retried or reported", () => {
  const verdict = functionText("Core/Api.swift", /func verdict\(/);
  const send = functionText("Core/SdkCore.swift", /func send\(_ batch/);
  const unexplained = functionText("Core/SdkCore.swift", /func reportUnexplained\(/);
  return [
    ...(/guard let index = itemIndex\(verdict\) else \{[^}]*unplaced\.append\("a refusal/.test(
      verdict,
    )
      ? []
      : ["a refusal naming no item of the request is skipped silently"]),
    ...(/guard let index = itemIndex\(verdict\) else \{[^}]*unplaced\.append\("an ignored entry/.test(
      verdict,
    )
      ? []
      : ["an ignored entry naming no item of the request is read as naming one"]),
    ...(/\} else \{\s*unexplained\.append\("ignored/.test(verdict)
      ? []
      : ["an ignored reason the SDK does not know is skipped silently"]),
    ...(/found\.accepted = /.test(verdict) ? [] : ["the answer's accepted count is not read"]),
    ...(before(
      send,
      "lane.queue.remove(ids: removed)",
      "reportUnexplained(verdict, removed: ids.indices.filter",
    )
      ? []
      : ["send does not report what the answer removed unexplained"]),
    ...(/let notAccepted = max\(0, notNamed - verdict\.accepted\)/.test(unexplained) &&
    /let unaccounted = max\(0, notAccepted - unplaced\)/.test(unexplained) &&
    /reportDrop\([^)]*\.refused/.test(unexplained)
      ? []
      : ["what is neither accepted nor counted is not a drop"]),
    ...(/let unplaced = min\(verdict\.unplaced\.count, notAccepted\)/.test(unexplained)
      ? []
      : ["a verdict naming no item counts for more items than no verdict named and none accepted"]),
  ];
});

checking("the delegate protocol and the listener closures are main-actor, called from main", () => {
  const listeners = read(join(sdk, core("Listeners.swift")));
  const facade = read(join(sdk, core("ServiceAttribution.swift")));
  const sdkCore = tree(core("Core/SdkCore.swift"));
  const problems = [];
  if (!/@MainActor\s+public protocol ServiceAttributionDelegate\b/.test(listeners))
    problems.push("ServiceAttributionDelegate is not @MainActor");
  for (const name of ["onAttribution", "onDeepLink", "onError"])
    if (!new RegExp(`public static var ${name}: \\(@MainActor \\(`).test(facade))
      problems.push(`${name}'s closure type is not @MainActor`);
  if (/static weak var delegate/.test(facade))
    problems.push("delegate is a static stored property");
  if (
    !/public static var delegate: ServiceAttributionDelegate\? \{\s*get \{ return core\.listenerDelegate \}/.test(
      facade,
    )
  )
    problems.push("delegate is not kept by the core, under its lock");
  // Every call of a listener or the delegate inside a MainActorCall.run closure.
  const visit = (node, inRun) => {
    const isRun = node.type === "call_expression" && node.text.startsWith("MainActorCall.run");
    if (
      node.type === "call_expression" &&
      /^(delegate\?\.serviceAttribution|listener\??)\(/.test(node.text) &&
      !inRun
    )
      problems.push(
        `SdkCore.swift:${node.startPosition.row + 1}: ${node.text.split("\n")[0]} outside MainActorCall.run`,
      );
    for (const child of node.namedChildren) visit(child, inRun || isRun);
  };
  visit(sdkCore, false);
  const call = read(join(sdk, core("Core/MainActorCall.swift")));
  if (!/#if compiler\(>=5\.9\)[\s\S]*MainActor\.assumeIsolated[\s\S]*#endif/.test(call))
    problems.push("MainActorCall does not use MainActor.assumeIsolated where it can");
  if (
    /Heard: ServiceAttributionDelegate/.test(
      read(join(ios, "Tests", "ServiceAttributionTests", "Support", "Fakes.swift")),
    )
  )
    problems.push("the tests' Heard conforms in its declaration, which makes it @MainActor");
  return problems;
});

checking(
  "stop, start, anonymous mode and consent before configure are on the device at once",
  () => {
    const problems = [];
    for (const [name, sign] of [
      ["stop", "writeEarly(Key.stopped"],
      ["start", "writeEarly(Key.stopped"],
      ["setAnonymous", "writeEarly(Key.anonymous"],
      ["setConsent", "SdkCore.storeConsent(value, in: store)"],
    ])
      if (!functionText("Core/SdkCore.swift", new RegExp(`func ${name}\\(`)).includes(sign))
        problems.push(`${name} before configure is kept in memory only`);
    if (
      !/guard let store = earlyStore, store\.isAvailable/.test(
        functionText("Core/SdkCore.swift", /func writeEarly\(/),
      )
    )
      problems.push("writeEarly does not wait for a store it can read");
    if (
      !/static let core = SdkCore\(\s*store: store/.test(
        read(join(sdk, core("ServiceAttribution.swift"))),
      )
    )
      problems.push("the facade's core has no store before configure");
    return problems;
  },
);

checking(
  "the SDK's folder is excluded from backups until it holds; a restored state is forgotten",
  () => {
    const store = read(join(sdk, core("Platform/FileStore.swift")));
    const configure = functionText("Core/SdkCore.swift", /func configure\(/);
    const forget = functionText("Core/SdkCore.swift", /func forgetRestoredState\(/);
    return [
      ...(/try\? url\.setResourceValues/.test(store)
        ? ["the exclusion from backups fails silently"]
        : []),
      ...(/excludeFromBackups\(\)/.test(
        functionText("Platform/FileStore.swift", /func writing\(/),
      ) &&
      /writing\(key/.test(functionText("Platform/FileStore.swift", /func put\(/)) &&
      /writing\(key/.test(functionText("Platform/FileStore.swift", /func append\(/)) &&
      /if excluded \{ return nil \}/.test(store)
        ? []
        : ["the exclusion is not tried again at each write until it holds"]),
      ...(before(configure, "Fields.deviceId(platform.device.identifierForVendor)", "lock.lock()")
        ? []
        : ["the IDFV is not read (as the service takes it) before the locks"]),
      ...(before(
        configure,
        "SdkCore.forgetRestoredState(in: store",
        "store.get(Key.customerUserId)",
      )
        ? []
        : ["the state is read before a restored one is forgotten"]),
      ...(/guard let current = vendorId else \{ return nil \}/.test(forget) &&
      /Fields\.deviceId\(other\)/.test(forget) &&
      /for key in Key\.all \{ store\.remove\(key\) \}/.test(forget)
        ? []
        : [
            "forgetRestoredState does not forget every key, or takes an IDFV not given yet for another",
          ]),
    ];
  },
);

checking(
  "the privacy manifest declares the tracking its data types say; no tracking domain",
  () => {
    const manifest = read(join(ios, "Sources", "ServiceAttribution", "PrivacyInfo.xcprivacy"));
    const tracking = /<key>NSPrivacyTracking<\/key>\s*<(true|false)\/>/.exec(manifest)?.[1];
    const trackedTypes = /<key>NSPrivacyCollectedDataTypeTracking<\/key>\s*<true\/>/.test(manifest);
    const readme = read(join(ios, "README.md"));
    return [
      ...same(
        tracking,
        trackedTypes ? "true" : "false",
        "NSPrivacyTracking (a data type used for tracking)",
      ),
      ...(/<key>NSPrivacyTrackingDomains<\/key>\s*<array\/>/.test(manifest)
        ? []
        : ["NSPrivacyTrackingDomains lists a domain"]),
      ...(/Do not list the service's host in `NSPrivacyTrackingDomains`/.test(readme)
        ? []
        : ["the README does not say the service's host must not be a tracking domain"]),
    ];
  },
);

// The service forwards events and their revenue to the ad networks the app's owner maps them for
// (docs/postbacks.md: event name, revenue, with the install's ids and country), for their
// measurement of ads: data used for tracking, for third-party advertising, as the IDFA is.
checking(
  "the privacy manifest declares the events and revenue the service forwards to ad networks as tracking, for third-party advertising",
  () => {
    const manifest = read(join(ios, "Sources", "ServiceAttribution", "PrivacyInfo.xcprivacy"));
    const entries = [
      ...(
        /<key>NSPrivacyCollectedDataTypes<\/key>\s*<array>([\s\S]*?)<\/array>\s*<key>NSPrivacyAccessedAPITypes/.exec(
          manifest,
        )?.[1] ?? ""
      ).matchAll(/<dict>([\s\S]*?)<\/dict>/g),
    ].map((m) => m[1]);
    const entry = (type) =>
      entries.find((text) => text.includes(`<string>NSPrivacyCollectedDataType${type}</string>`));
    const problems = [];
    for (const type of [
      "ProductInteraction",
      "PurchaseHistory",
      "DeviceID",
      "AdvertisingData",
      "CoarseLocation",
    ]) {
      const text = entry(type);
      if (!text) {
        problems.push(`${type} is not declared`);
        continue;
      }
      if (!/<key>NSPrivacyCollectedDataTypeTracking<\/key>\s*<true\/>/.test(text))
        problems.push(`${type} is declared as not used for tracking`);
      if (!/NSPrivacyCollectedDataTypePurposeThirdPartyAdvertising/.test(text))
        problems.push(`${type} has no third-party advertising purpose`);
    }
    const readme = read(join(ios, "README.md"));
    const section = /^## Privacy manifest$([\s\S]*?)^## /m.exec(readme)?.[1] ?? "";
    if (
      !/postbacks/.test(section) ||
      !/product interaction/i.test(section) ||
      !/coarse location/i.test(section)
    )
      problems.push(
        "the README's privacy manifest section does not say why events, revenue and the country are declared so",
      );
    return problems;
  },
);

checking(
  "the README's Swift compiles as written: no bare try outside do, the cold-start link",
  () => {
    const readme = read(join(ios, "README.md"));
    const problems = [];
    for (const [, block] of readme.matchAll(/```swift\n([\s\S]*?)```/g)) {
      let depth = 0;
      for (const line of block.split("\n")) {
        if (/\bdo \{\s*$/.test(line)) depth += 1;
        if (/^\s*\} catch\b/.test(line)) depth -= 1;
        // A top-level `try await` goes in an async throwing context, shown as such.
        if (/^\s*try (?!await)\S/.test(line) && depth === 0)
          problems.push(`a bare try outside do/catch: ${line.trim()}`);
      }
    }
    for (const needed of [
      "willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions",
      "connectionOptions.userActivities",
      "connectionOptions.urlContexts",
      "scene(_ scene: UIScene, continue userActivity: NSUserActivity)",
    ])
      if (!readme.includes(needed)) problems.push(`the README does not show ${needed}`);
    return problems;
  },
);

checking("each of these has its XCTest", () => {
  const tests = read(join(ios, "Tests", "ServiceAttributionTests", "DeviceStateTests.swift"));
  return [
    "testConfigureInAnAppExtensionIsRefusedAndNothingIsKept",
    "testStopAnonymousModeAndConsentBeforeConfigureAreOnTheDeviceAtOnce",
    "testAStateKeptUnderAnotherIDFVIsForgottenAndANewInstallTracked",
    "testAnIDFVNotGivenYetIsNotTakenForAnotherDevice",
    "testGoingToTheBackgroundSendsWhatIsQueuedInTheTimeIOSLends",
    "testTheTimeLentIsGivenBackOnceWhenIOSTakesItBack",
    "testEveryItemAnAnswerDropsIsCountedWithTheServicesReason",
  ]
    .filter((name) => !tests.includes(`func ${name}(`))
    .map((name) => `DeviceStateTests.${name} is missing`);
});

// --- Delivery and the queue, read from the sources ----------------------------------------

checking(
  "only a 4xx is a refusal: the 4xx retried are delivery.json's retryable4xx (408, 425 Too Early, 429); a 1xx, 3xx or 5xx is retried",
  () => {
    const retryable = functionText("Core/SdkCore.swift", /func isRetryable\(/);
    const statuses = [...retryable.matchAll(/statusCode == (\d+)/g)]
      .map((m) => Number(m[1]))
      .sort();
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "DeliveryTests.swift"));
    return [
      ...same(statuses, [...delivery.retryable4xx].sort(), "the 4xx SdkCore.isRetryable takes"),
      // As the Kotlin SDK's refusedForGood (code in 400..499): any other status is retried.
      ...(/guard \(400\.\.\.499\)\.contains\(statusCode\) else \{ return true \}/.test(retryable)
        ? []
        : ["a status other than a 4xx (a 1xx, a 3xx, a 5xx) is taken for a refusal"]),
      ...(/func testTheRetryable4xxOfTheVectorsAreRetriedWholeNeverSplitNorDropped\(/.test(tests) &&
      tests.includes('"retryable4xx"')
        ? []
        : ["DeliveryTests does not run delivery.json's retryable4xx"]),
      ...(/func testOnlyA4xxIsARefusalA1xxOr3xxIsRetriedAsA5xxIs\(/.test(tests)
        ? []
        : ["DeliveryTests.testOnlyA4xxIsARefusalA1xxOr3xxIsRetriedAsA5xxIs is missing"]),
    ];
  },
);

checking(
  "an event taken while anonymous never carries the customer user id, before configure included",
  () => {
    const requests = read(join(sdk, core("Core/Requests.swift")));
    const create = functionText("Core/Requests.swift", /func create\(/);
    const send = functionText("Core/SdkCore.swift", /func sendEvent\(/);
    const configure = functionText("Core/SdkCore.swift", /func configure\(/);
    const enqueue = functionText("Core/SdkCore.swift", /func enqueue\(_ drafts: \[Draft\]\)/);
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ConsentTests.swift"));
    return [
      ...(/struct Draft\b[^}]*var anonymous: Bool\?/.test(requests)
        ? []
        : ["Draft does not keep the anonymous mode sendEvent found"]),
      ...(/customerUserId: anonymous == true \? nil : customerUserId/.test(create)
        ? []
        : ["Drafts.create keeps the id of an event taken while anonymous"]),
      ...(/\(configured \|\| anonymousSetEarly\) \? anonymous : nil/.test(send) &&
      /anonymous: anonymousNow/.test(send)
        ? []
        : ["sendEvent does not give the event the anonymous mode it knows"]),
      ...(/draft\.anonymous != true \{ earlyWithoutUserId\.insert/.test(send)
        ? []
        : ["an event taken while anonymous before configure inherits the kept id"]),
      ...(/let wasAnonymous = draft\.anonymous \?\? launchAnonymous/.test(configure) &&
      /customerUserId: wasAnonymous \? nil :/.test(configure)
        ? []
        : ["configure queues an event taken while anonymous with an id"]),
      ...(/anonymous: draft\.anonymous \?\? isAnonymous\)/.test(enqueue)
        ? []
        : [
            "enqueue does not queue an event as its draft was taken (anonymous or not), whatever the mode as it waited",
          ]),
      ...(/func testAnEventTakenWhileAnonymousNeverCarriesTheIdOnceAnonymousModeIsOff\(/.test(tests)
        ? []
        : [
            "ConsentTests.testAnEventTakenWhileAnonymousNeverCarriesTheIdOnceAnonymousModeIsOff is missing",
          ]),
    ];
  },
);

checking(
  "an event sent anonymous says so: marked when taken while anonymous (the mark kept in the queue), and when it leaves while anonymous; no other event has the key",
  () => {
    const event = functionText("Core/Requests.swift", /func event\(/);
    const anonymized = functionText("Core/Requests.swift", /func anonymized\(/);
    const post = functionText("Core/SdkCore.swift", /func post\(/);
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ConsentTests.swift"));
    const conformance = read(
      join(ios, "Tests", "ServiceAttributionTests", "ConformanceTests.swift"),
    );
    const named = [
      "testAnEventTakenWhileAnonymousLeavesMarkedAnonymousAfterARelaunchWithTheModeOff",
      "testAnEventTakenBeforeAnonymousModeWentOnLeavesMarkedAnonymous",
      "testAnEventSentOutsideAnonymousModeHasNoAnonymousKey",
      "testAnEventThatWaitedForAConfigurationWhileAnonymousModeWasOnLeavesWithItsIdOnceTheModeIsOff",
    ];
    return [
      ...(/if anonymous \{ event\["anonymous"\] = \.bool\(true\) \}/.test(event) &&
      /"customer_user_id": optional\(anonymous \? nil : draft\.customerUserId\)/.test(event)
        ? []
        : ["Requests.event does not mark an anonymous event, or marks every event"]),
      ...(/object\["anonymous"\] = \.bool\(true\)/.test(anonymized) &&
      /object\["customer_user_id"\] = \.null/.test(anonymized)
        ? []
        : ["Requests.anonymized does not mark the event it strips"]),
      ...(/anonymous \? batch\.map\(Requests\.anonymized\) : batch/.test(post)
        ? []
        : ["an event leaving while anonymous is not anonymized"]),
      ...missingTests(tests, "ConsentTests", named),
      ...(/keys\.contains\("anonymous"\)/.test(conformance)
        ? []
        : [
            "ConformanceTests does not check that an event not sent anonymous has no anonymous key",
          ]),
    ];
  },
);

checking(
  "the queue is kept a line an item, added to without being written whole, and read line by line: one that is no object, has no id or is cut short is lost alone, each reported",
  () => {
    const load = functionText("Core/EventQueue.swift", /func load\(/);
    const configure = functionText("Core/SdkCore.swift", /func configure\(/);
    const events = functionText("Core/SdkCore.swift", /func reportUnreadable\(events/);
    const sessions = functionText("Core/SdkCore.swift", /func reportUnreadable\(sessions/);
    const add = functionText("Core/EventQueue.swift", /func add\(_ added: \[JSONValue\]\)/);
    const fileAppend = functionText(
      "Platform/FileStore.swift",
      /func append\(_ key: String, lines/,
    );
    const queueTests = read(join(ios, "Tests", "ServiceAttributionTests", "EventQueueTests.swift"));
    const stateTests = read(
      join(ios, "Tests", "ServiceAttributionTests", "DeviceStateTests.swift"),
    );
    const coreTests = read(join(ios, "Tests", "ServiceAttributionTests", "SdkCoreTests.swift"));
    return [
      ...(/for line in lines \{[\s\S]*JSONValue\.parse\(String\(line\)\)[\s\S]*item\.objectValue != nil[\s\S]*kind\.id\(of: item\), !id\.isEmpty[\s\S]*lost \+= 1/.test(
        load,
      )
        ? []
        : [
            "a line that is no object, has no id or cannot be read is not lost alone (removal goes by id: it would be sent for ever)",
          ]),
      ...(/store\.put\(kind\.key, EventQueue\.text\(items\)\)/.test(load)
        ? []
        : ["the queue is not written back without what was lost (told again at each launch)"]),
      ...(/store\.append\(kind\.key, lines: added\.map/.test(add) &&
      /storedLines \+ added\.count > 2 \* max/.test(add)
        ? []
        : [
            "add writes the whole queue again, not its own lines (sendEvent's cost grows with the queue)",
          ]),
      ...(/appendBytes\(/.test(fileAppend) && /unwritten\.contains\(key\)/.test(fileAppend)
        ? []
        : [
            "the file store does not add lines to the file, or a write that failed is not made whole by the next",
          ]),
      ...(/eventsLost = events\.lostOnLoad/.test(configure) &&
      /reportUnreadable\(events: eventsLost\)/.test(configure) &&
      /reportUnreadable\(sessions: sessionsLost\)/.test(configure)
        ? []
        : ["configure does not report what the queues lost"]),
      // As the Kotlin and Unity SDKs report theirs: an error, counted, events_dropped with no reason.
      ...(/droppedTotal \+= loss\.count/.test(events) &&
      /log\.error\(/.test(events) &&
      /ServiceError\(kind: \.eventsDropped, reason: nil, code: nil, count: loss\.count/.test(events)
        ? []
        : ["the events lost are not counted and told as events_dropped with no reason"]),
      ...(/droppedSessionsTotal \+= loss\.count/.test(sessions) && /log\.error\(/.test(sessions)
        ? []
        : ["the sessions lost are not counted at error level"]),
      ...[
        [
          queueTests,
          "EventQueueTests",
          "testAnItemThatIsNoObjectOrHasNoIdIsLostAloneAndTheRestKeptInOrder",
        ],
        [queueTests, "EventQueueTests", "testAnUnreadableQueueIsEmptyAndItsLossIsKnown"],
        [
          stateTests,
          "DeviceStateTests",
          "testADamagedQueueLosesOnlyWhatItCannotReadAndTellsTheApp",
        ],
        [stateTests, "DeviceStateTests", "testAQueueLineCutShortIsReportedNotSilentlyLost"],
        [queueTests, "EventQueueTests", "testAnItemAddedIsALineAppendedNotTheQueueWrittenAgain"],
        [
          queueTests,
          "EventQueueTests",
          "testPastTheBoundTheQueueIsWrittenWholeOnceForEveryMaxItemsAndALaunchReadsTheNewest",
        ],
        [queueTests, "EventQueueTests", "testALineCutShortIsLostAloneAndTheNextAddedIsWhole"],
        [
          coreTests,
          "SdkCoreTests",
          "testTheFileStoreAddsLinesToAFileAndAWriteThatFailedIsMadeWholeByTheNext",
        ],
      ]
        .filter(([text, , name]) => !text.includes(`func ${name}(`))
        .map(([, type, name]) => `${type}.${name} is missing`),
    ];
  },
);

checking(
  "a delivery route refused with 401, 403 or 404 is a configuration error told once, that holds back that route alone",
  () => {
    const refused = functionText("Core/SdkCore.swift", /func routeRefused\(/);
    const report = functionText("Core/SdkCore.swift", /func reportConfigurationError\(/);
    const install = functionText("Core/SdkCore.swift", /func configurationError\(/);
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "SessionTests.swift"));
    return [
      ...(/lane\.held = true/.test(refused) && !/\bconfigurationError\(|blockedCode/.test(refused)
        ? []
        : [
            "a route's refusal holds back more than its lane (the install's block stops every route)",
          ]),
      ...(/reportConfigurationError\(code,/.test(refused)
        ? []
        : ["a route's refusal is not told to the app as a configuration error"]),
      ...(/if configurationReported \{ return \}/.test(report) &&
      /emitError\(ServiceError\(kind: \.configuration, reason: nil, code: code/.test(report)
        ? []
        : ["the configuration error is not told once to the error listener"]),
      ...(/blockedCode = code/.test(install) && /reportConfigurationError\(/.test(install)
        ? []
        : ["the install's refusal no longer holds everything back, or is not told"]),
      ...[
        "testAnEventsRouteRefusedWith401403Or404HoldsBackTheEventsAloneAndIsToldOnce",
        "testASessionsRouteRefusedWith404IsAConfigurationErrorToldOnceThatHoldsTheSessionsAndTheEventsGoOn",
      ]
        .filter((name) => !tests.includes(`func ${name}(`))
        .map((name) => `SessionTests.${name} is missing`),
    ];
  },
);

checking(
  "events wait on the device until a configuration of the service's says how to protect them; a first fetch that fails is asked again from 2 s to a minute",
  () => {
    const configure = functionText("Core/SdkCore.swift", /func configure\(/);
    const apply = functionText("Core/SdkCore.swift", /func apply\(/);
    const enqueue = functionText("Core/SdkCore.swift", /func enqueue\(_ drafts: \[Draft\]\)/);
    const keep = functionText("Core/SdkCore.swift", /func keepPending\(/);
    const refresh = functionText("Core/SdkCore.swift", /func refreshQuietly\(/);
    const backoff = functionText("Core/SdkCore.swift", /func nextConfigRetryDelay\(/);
    const coreText = read(join(sdk, core("Core/SdkCore.swift")));
    const queueText = read(join(sdk, core("Core/EventQueue.swift")));
    const tests = [
      [
        "SdkCoreTests",
        "testEventsWaitForTheServicesConfigurationAndAFailedFirstFetchIsAskedAgainWithBackoff",
      ],
      [
        "SdkCoreTests",
        "testUnderFlutterAFirstLaunchThatEndsOfflineSendsItsValuesSealedAtTheNextNeverInClear",
      ],
      ["DeliveryTests", "testTheQueueIsOnTheDeviceBeforeSendEventReturns"],
    ];
    return [
      // No guess: neither the kept configuration nor sealing off protects an event by default.
      ...(/private var protection: Encryption\?/.test(coreText) &&
      !/\bprotection\s*=/.test(configure)
        ? []
        : [
            "events are protected before a configuration of the service's says how (a cached one or sealing off taken at launch)",
          ]),
      ...(/if read \{ protection = newConfig\.encryption \}/.test(apply)
        ? []
        : ["the placeholder (no answer) decides how events are protected"]),
      ...(/guard let encryption = decided else \{ return keepPending\(drafts\) \}/.test(enqueue)
        ? []
        : [
            "an event taken before a configuration is protected anyway, rather than kept until one",
          ]),
      ...(/pendingQueue/.test(keep) &&
      /static let pending = Kind\(key: "\w+"/.test(queueText) &&
      /EventQueue\.Kind\.pending\.key/.test(
        /static let all = \[[\s\S]*?\]/.exec(coreText)?.[0] ?? "",
      )
        ? []
        : [
            "the events waiting for a configuration are not on the device (or not forgotten with a restored state)",
          ]),
      ...["stop", "disable", "forgetDeletedInstall"]
        .filter(
          (name) =>
            !/pendingQueue\?\.clear\(\)/.test(
              functionText("Core/SdkCore.swift", new RegExp(`func ${name}\\(`)),
            ),
        )
        .map((name) => `${name} keeps the events waiting for a configuration`),
      ...(/read \? TimeInterval\(newConfig\.refreshIntervalSeconds\) : nextConfigRetryDelay\(\)/.test(
        apply,
      ) &&
      /nextConfigRetryDelay\(\)/.test(refresh) &&
      /settings\.retryDelay/.test(backoff) &&
      /settings\.maxRetryDelay/.test(backoff)
        ? []
        : [
            "a first fetch that fails is not asked again with the delivery's backoff (2 s doubling to a minute)",
          ]),
      ...tests
        .filter(
          ([file, name]) =>
            !read(join(ios, "Tests", "ServiceAttributionTests", `${file}.swift`)).includes(
              `func ${name}(`,
            ),
        )
        .map(([file, name]) => `${file}.${name} is missing`),
    ];
  },
);

checking(
  "events taken before the conversion value schema is known wait on the device with it, each evaluated once it is, none skipped",
  () => {
    const coreText = read(join(sdk, core("Core/SdkCore.swift")));
    const apply = functionText("Core/SdkCore.swift", /func apply\(/);
    const enqueue = functionText("Core/SdkCore.swift", /func enqueue\(_ drafts: \[Draft\]\)/);
    const evaluateCalls = (coreText.match(/\bevaluateConversion\b(?!\(_ draft)/g) ?? []).length;
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ConversionValueTests.swift"));
    return [
      ...(/awaitingSchema/.test(coreText)
        ? [
            "events waiting for a schema are kept in memory (awaitingSchema): lost when the process ends first",
          ]
        : []),
      // Evaluated as an event is queued, and only then: the events that waited are queued (and
      // evaluated) from the device once a configuration is applied.
      ...(evaluateCalls === 1 && /evaluateConversion\(\$0\)/.test(enqueue)
        ? []
        : ["evaluateConversion is called elsewhere than as an event is queued"]),
      ...(before(apply, "queuePending()", "registerConversion()")
        ? []
        : ["the events that waited are not evaluated before the first launch is registered"]),
      ...(/func testEventsOfAFirstLaunchThatEndsBeforeItsConfigurationAreEvaluatedAtTheNext\(/.test(
        tests,
      )
        ? []
        : [
            "ConversionValueTests.testEventsOfAFirstLaunchThatEndsBeforeItsConfigurationAreEvaluatedAtTheNext is missing",
          ]),
    ];
  },
);

/** A function's text with its line comments cut off. */
const codeOf = (text) => text.replace(/\/\/.*$/gm, "");

// A thread of the SDK's that waits for the main thread stalls behind a busy one, and deadlocks
// with one that waits for it (a lock, the worker). UIKit gives the IDFV on the main thread only
// (`UIDevice` is main-actor), so it is read there, asynchronously from any other thread, and the
// install waits for that read by a flush on the worker once it is over.
checking(
  "no thread of the SDK's waits for the main thread; the install waits for the IDFV without blocking",
  () => {
    const problems = [];
    for (const path of [
      ...filesUnder(join(ios, "Sources"), ".swift"),
      ...filesUnder(join(flutterPackage, "Sources"), ".swift"),
    ])
      eachCodeLine(path, (code, _conditions, index) => {
        if (/\bDispatchQueue\.main\.sync\b/.test(code))
          problems.push(`${relative(sdk, path)}:${index + 1}: DispatchQueue.main.sync`);
      });
    const device = tree(core("Platform/AppleDevice.swift"));
    const readers = descendants(device, "function_declaration").filter((fn) =>
      /UIDevice\.current/.test(codeOf(fn.text)),
    );
    if (readers.length === 0) problems.push("AppleDevice reads no IDFV");
    for (const fn of readers)
      if (!/^@MainActor\b/.test(fn.text))
        problems.push(`AppleDevice.${nameOf(fn)} reads UIDevice off the main actor`);
    const getter = codeOf(
      descendants(device, "property_declaration").find((p) =>
        /var identifierForVendor\b/.test(p.text),
      )?.text ?? "",
    );
    // The getter hands over what the main thread read, and reads UIKit itself only on the main
    // thread (a configure resumed at the first unlock): it never waits for another thread.
    const reads = getter.match(/captureOnMainThread/g) ?? [];
    if (
      !getter ||
      /DispatchQueue/.test(getter) ||
      reads.length > 1 ||
      (reads.length === 1 && !before(getter, "Thread.isMainThread", "captureOnMainThread"))
    )
      problems.push(
        "AppleDevice.identifierForVendor reads the IDFV other than on the main thread it runs on",
      );
    const sdkCore = typeNamed(core("Core/SdkCore.swift"), "SdkCore");
    const ensure = codeOf(functionNamed(sdkCore, "ensureInstall").text);
    if (
      !before(ensure, "waitsForTracking()", "waitsForVendorId()") ||
      !before(ensure, "waitsForVendorId()", "installInput()")
    )
      problems.push("ensureInstall makes the report before the IDFV is read");
    const waits = codeOf(functionNamed(sdkCore, "waitsForVendorId").text);
    if (
      !/platform\.device\.readIdentifierForVendor \{/.test(waits) ||
      !/self\?\.worker\.async \{/.test(waits) ||
      !/self\.flush\(\)/.test(waits) ||
      !/if locked\(\{ anonymous \}\) \{ return false \}/.test(waits)
    )
      problems.push(
        "waitsForVendorId does not go on with a flush on the worker once the read is over, or reads in anonymous mode",
      );
    if (
      !/device\.captureIdentifierForVendor\(\)/.test(
        functionText("ServiceAttribution.swift", /func launch\(/),
      )
    )
      problems.push("configure does not have the IDFV read on the main thread");
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "DeviceStateTests.swift"));
    problems.push(
      ...[
        "testTheInstallWaitsForTheIDFVTheMainThreadReadsAndNothingWaitsForThatThread",
        "testAnIDFVTheMainThreadCannotReadHoldsNoInstall",
        "testAnonymousModeAsksNoReadOfTheIDFV",
      ]
        .filter((name) => !tests.includes(`func ${name}(`))
        .map((name) => `DeviceStateTests.${name} is missing`),
    );
    return problems;
  },
);

// Apple makes no postback for an install that never registered its first launch: the
// registration waits for no configuration the launch reads. And the service refuses the whole
// event for a revenue it cannot read, or one past its bound: the device counts nothing of it.
checking(
  "the first launch registered whether or not a configuration is read; an event the service refuses for its revenue counts for nothing",
  () => {
    const initialize = codeOf(functionText("Core/SdkCore.swift", /func initialize\(/));
    const apply = codeOf(functionText("Core/SdkCore.swift", /func apply\(/));
    const evaluate = codeOf(functionText("Core/ConversionValues.swift", /static func evaluate\(/));
    const values = read(join(sdk, core("Core/ConversionValues.swift")));
    const limits = read(join(root, "src", "ingest", "limits.ts"));
    const bound = (text, pattern) => Number(pattern.exec(text)?.[1]?.replaceAll("_", ""));
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ConversionValueTests.swift"));
    return [
      ...(/fetched = cached \?\? \.placeholder/.test(initialize) &&
      /^ {8}registerConversion\(\)$/m.test(apply)
        ? []
        : [
            "a launch that reads no configuration does not register its first launch (apply registers only under a condition, or initialize applies no placeholder)",
          ]),
      ...(before(evaluate, "if event.refused { return (state, nil) }", "counts[")
        ? []
        : ["ConversionEvaluation.evaluate counts an event the service refuses for its revenue"]),
      ...(bound(values, /static let maxRevenueAmount: Double = ([\d_]+)/) ===
      bound(limits, /maxRevenueAmount:\s*([\d_]+)/)
        ? []
        : ["ConversionEvent.maxRevenueAmount is not src/ingest/limits.ts's maxRevenueAmount"]),
      ...[
        "testAFirstLaunchThatReadsNoConfigurationIsRegisteredOnce",
        "testAnEventWhoseRevenueTheServiceRefusesIsRefusedWholeAsTheServiceRefusesIt",
        "testAnEventWhoseRevenueTheServiceRefusesCountsForNothing",
        "testACurrencyIsTrimmedAsTheServiceTrimsIt",
      ]
        .filter((name) => !new RegExp(`func ${name}\\(`).test(tests))
        .map((name) => `ConversionValueTests.${name} is missing`),
    ];
  },
);

// The windows' state is written before Apple answers: a refusal that left it as written would
// have the device take a value Apple refused for one it holds, and never ask for it again.
checking(
  "a refused update is asked for again by its window's next event, a refused registration at the next launch",
  () => {
    const evaluate = codeOf(functionText("Core/SdkCore.swift", /func evaluateConversion\(/));
    const register = codeOf(functionText("Core/SdkCore.swift", /func registerConversion\(/));
    const updateRefused = codeOf(functionText("Core/SdkCore.swift", /func updateRefused\(/));
    const registrationRefused = codeOf(
      functionText("Core/SdkCore.swift", /func registrationRefused\(/),
    );
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ConversionValueTests.swift"));
    return [
      ...(/platform\.conversionValues\.update\(update\) \{ \[weak self\] message in self\?\.updateRefused\(update, held: held, message\) \}/.test(
        evaluate,
      ) &&
      /window\.locked = held\.locked/.test(updateRefused) &&
      /worker\.async/.test(updateRefused)
        ? []
        : ["a refused update leaves the device holding its values (updateRefused)"]),
      ...(/platform\.conversionValues\.register \{ \[weak self\] message in self\?\.registrationRefused\(message\) \}/.test(
        register,
      ) &&
      /state\.registered = false/.test(registrationRefused) &&
      /!refusedRegistration/.test(register)
        ? []
        : [
            "a refused registration is taken for one Apple holds, or asked again at each configuration (registrationRefused)",
          ]),
      ...[
        "testARefusedUpdateIsAskedForAgainByTheWindowsNextEventOnce",
        "testARefusedLockLeavesTheWindowOpenWithTheValuesAppleTook",
        "testARefusedRegistrationIsMadeAgainAtTheNextLaunchUnlessAnUpdateWasMadeSince",
      ]
        .filter((name) => !new RegExp(`func ${name}\\(`).test(tests))
        .map((name) => `ConversionValueTests.${name} is missing`),
    ];
  },
);

// A reading that says off is applied in steps: its configuration and schema taken, the first
// launch registered with Apple, and only then the switch-off (`disable`), which drops what is
// queued. An event the app sends in between is queued: evaluated, its value would go to Apple
// for an event the service never receives (the Unity SDK closed the same gap). The one place
// every event is evaluated reads the configuration's `enabled` with the schema, under the lock
// `apply` sets both under.
checking(
  "no event is evaluated for a conversion value once a reading says off, before its switch-off too",
  () => {
    const evaluate = codeOf(functionText("Core/SdkCore.swift", /func evaluateConversion\(/));
    const apply = codeOf(functionText("Core/SdkCore.swift", /func apply\(/));
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ConversionValueTests.swift"));
    const rulesRead =
      /guard let rules = locked\(\{([^}]*)\}\) else \{ return \}/.exec(evaluate)?.[1] ?? "";
    // apply's first locked step, up to its closing brace (the first at the function's depth).
    const taken = /let previous = locked \{[\s\S]*?\n {8}\}/.exec(apply)?.[0] ?? "";
    return [
      ...(/\bschema\b/.test(rulesRead) && /config\?\.enabled == false/.test(rulesRead)
        ? []
        : [
            "evaluateConversion takes the schema without asking whether the configuration applied says off (an event sent before the switch-off gives Apple its value)",
          ]),
      ...(/config = newConfig/.test(taken) && /schema = newConfig\.skadnetwork/.test(taken)
        ? []
        : ["apply no longer takes the configuration and its schema in one locked step"]),
      ...missingTests(tests, "ConversionValueTests", [
        "testAnEventSentAsAReadingSwitchesTheAppOffIsNeverEvaluated",
      ]),
    ];
  },
);

// A key rejected on GET /v1/config after configure (the periodic refresh) switches the SDK off:
// Kotlin tells InitListener.onError and getLastInitError(), Unity its error listener. iOS tells
// it as it tells the first read's rejection (failInit: lastInitError, the log, the switch-off),
// and, as no completion waits for the periodic read, to the error listener once.
checking(
  "a key rejected on a periodic configuration read is told to the app as at configure, and to the error listener once",
  () => {
    const initialize = codeOf(functionText("Core/SdkCore.swift", /func initialize\(/));
    const refresh = codeOf(functionText("Core/SdkCore.swift", /func refreshOnWorker\(/));
    const quietly = codeOf(functionText("Core/SdkCore.swift", /func refreshQuietly\(/));
    const failInit = codeOf(functionText("Core/SdkCore.swift", /func failInit\(/));
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "DeliveryTests.swift"));
    const rejected = (text) =>
      /catch let error as ServiceAttributionError where error\.isAuthentication \{([^}]*)\}/.exec(
        text,
      )?.[1] ?? "";
    // The authentication branch of refreshQuietly's catch, up to its return.
    const quietBranch =
      /isAuthentication[^\n]*\{([\s\S]*?)\breturn\b|\.authentication\(statusCode\)\?[^\n]*\{([\s\S]*?)\breturn\b/.exec(
        quietly,
      );
    const quiet = quietBranch?.[1] ?? quietBranch?.[2] ?? "";
    // What that branch calls with the status: the function that tells the error listener.
    const called = /\b(\w+)\(statusCode\b/.exec(quiet)?.[1];
    const reporter = called
      ? codeOf(functionText("Core/SdkCore.swift", new RegExp(`func ${called}\\(`)))
      : "";
    return [
      ...(/failInit\(error,[^\n]*disable: true/.test(rejected(initialize))
        ? []
        : ["the first read's rejection is no longer told through failInit"]),
      ...(/lastInitError = /.test(failInit) ? [] : ["failInit does not set lastInitError"]),
      ...(/failInit\(error,[^\n]*disable: true/.test(rejected(refresh))
        ? []
        : [
            "a key rejected on a later configuration read is not told as the first read's is (failInit: lastInitError, the log, the switch-off)",
          ]),
      ...(/emitError\(ServiceError\(kind: \.configuration, reason: nil, code: code/.test(
        reporter,
      ) && /if configurationReported \{ return \}/.test(reporter)
        ? []
        : [
            "a key rejected on the periodic configuration read is not told to the error listener as a configuration error with its status, once",
          ]),
      // refreshConfig's rejection ends the periodic reading too (its scheduled read made void),
      // so that the read scheduled before it neither asks again nor tells the listener.
      ...(/isAuthentication[^\n]*\{\s*self\.refreshGeneration \+= 1/.test(
        codeOf(functionText("Core/SdkCore.swift", /func refreshConfig\(/)),
      )
        ? []
        : [
            "a key refreshConfig finds rejected leaves the periodic read scheduled before it, which asks again and tells the error listener a second time",
          ]),
      ...missingTests(tests, "DeliveryTests", [
        "testAKeyRejectedOnARefreshIsToldToTheAppAsAtConfigureOnce",
        "testAKeyRefreshConfigFindsRejectedEndsThePeriodicReading",
      ]),
    ];
  },
);

// Going to the background, iOS sends at once what waits for a retry. But each try of an install
// not recorded yet reads the Apple Ads token again, and the token's failed reads are counted
// (three at most) and spaced by the retry's backoff: sent at each trip to the background, a
// user leaving and coming back would spend them within seconds. Kotlin and Unity leave the
// install to its own retry; so does iOS: the retry waiting is made void only once the install
// is recorded.
checking(
  "going to the background leaves an install not recorded yet to its own retry: no Apple Ads token read early",
  () => {
    const now = codeOf(functionText("Core/SdkCore.swift", /func flushNow\(/));
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "DeviceStateTests.swift"));
    const voids =
      /if ([^{]*)\{\s*retryPending = false\s*retryGeneration \+= 1/.exec(now)?.[1] ?? "";
    return [
      ...(/retryPending/.test(voids) && /get\(Key\.installTracked\) != nil/.test(voids)
        ? []
        : [
            "flushNow voids the waiting retry while the install is not recorded (its retry reads the Apple Ads token early)",
          ]),
      ...(/\bflush\(\)/.test(now) ? [] : ["flushNow does not flush"]),
      ...missingTests(tests, "DeviceStateTests", [
        "testGoingToTheBackgroundLeavesTheInstallToItsRetryAndReadsNoAppleAdsTokenEarly",
      ]),
    ];
  },
);

// Apple's update acts on the postback window the install is in now, whatever the event's time:
// an event evaluated outside its own window (one that waited on the device for a
// configuration, evaluated at a later launch) would give that window another's values, and a
// lock rule would lock it.
checking(
  "an event evaluated outside its own conversion window is counted there, and Apple, in another window now, is asked for nothing",
  () => {
    const evaluate = codeOf(functionText("Core/SdkCore.swift", /func evaluateConversion\(/));
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ConversionValueTests.swift"));
    const update = evaluate.indexOf("platform.conversionValues.update(");
    return [
      ...(/ConversionEvaluation\.window\(ofHours: [^\n]*\bplatform\.clock\(\)|platform\.clock\(\)[\s\S]*ConversionEvaluation\.window\(ofHours:/.test(
        evaluate,
      ) && /ConversionEvaluation\.window\(ofHours: event\.hoursAfterInstall\)/.test(evaluate)
        ? []
        : [
            "evaluateConversion does not compare the event's window with the one the install is in now (platform.clock())",
          ]),
      ...(/\bcall = nil\b/.test(evaluate) &&
      update > evaluate.search(/\bcall = nil\b/) &&
      /next\.windows\[own\]\.locked = state\.windows\[own\]\.locked/.test(evaluate)
        ? []
        : [
            "an event outside the window Apple is in now still makes an update (or locks its window on the device)",
          ]),
      ...(/func testEventsEvaluatedAfterTheirWindowAreCountedThereAndAppleIsNotAsked\(/.test(tests)
        ? []
        : [
            "ConversionValueTests.testEventsEvaluatedAfterTheirWindowAreCountedThereAndAppleIsNotAsked is missing",
          ]),
    ];
  },
);

// queuePending writes the queue, then forgets the waiting drafts: a process that ends between
// the two leaves them in both, and the next launch must not queue and evaluate them again.
checking(
  "events that waited for a configuration are queued and evaluated once, even when a launch ended before it forgot them",
  () => {
    const pending = codeOf(functionText("Core/SdkCore.swift", /func queuePending\(/));
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ConversionValueTests.swift"));
    return [
      ...(/Set\(\w+\.peek\(Int\.max\)\.compactMap\(EventQueue\.id\)\)/.test(pending) &&
      /drafts\.filter \{ !\w+\.contains\(\$0\.eventId\) \}/.test(pending) &&
      !/enqueue\(drafts\)/.test(pending)
        ? []
        : ["queuePending queues (and evaluates) again the drafts the queue holds already"]),
      ...(before(pending, "enqueue(", "pending.clear()")
        ? []
        : ["queuePending forgets the waiting drafts before they are queued"]),
      ...(/func testEventsQueuedByALaunchThatEndedBeforeItForgotThemAreNeitherQueuedNorEvaluatedAgain\(/.test(
        tests,
      )
        ? []
        : [
            "ConversionValueTests.testEventsQueuedByALaunchThatEndedBeforeItForgotThemAreNeitherQueuedNorEvaluatedAgain is missing",
          ]),
    ];
  },
);

// The same launch leaves the events in both for a later one to drop (it starts stopped, or is
// stopped or switched off while its configuration is read): each drop of the queue and of the
// waiting drafts goes through eventsDropped, which counts a draft the queue held once.
checking(
  "events both queued and still waiting for a configuration are dropped and counted once",
  () => {
    const helper = codeOf(functionText("Core/SdkCore.swift", /func eventsDropped\(/));
    const configure = codeOf(functionText("Core/SdkCore.swift", /func configure\(/));
    const stop = codeOf(functionText("Core/SdkCore.swift", /func stop\(/));
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "SdkCoreTests.swift"));
    const dropsThrough = (code) =>
      /eventsDropped\(\s*queued: [\s\S]*?waiting: pending(Queue\?)?\.clear\(\)/.test(code) &&
      !/\.clear\([^)]*\)( \?\? \[\])?\)?(\.count)? \+ \(?pending(Queue\?)?\.clear\(\)/.test(code);
    return [
      ...(/let held = kept\.union\(queued\.compactMap\(EventQueue\.id\)\)/.test(helper) &&
      /waiting\.filter \{[^}]*!held\.contains\(\$0\)/.test(helper)
        ? []
        : ["eventsDropped counts a draft the queue holds (or keeps on its way) as a second event"]),
      ...[
        ["configure", configure],
        ["stop", stop],
        ["disable", codeOf(functionText("Core/SdkCore.swift", /func disable\(/))],
        [
          "forgetDeletedInstall",
          codeOf(functionText("Core/SdkCore.swift", /func forgetDeletedInstall\(/)),
        ],
      ]
        .filter(([, code]) => !dropsThrough(code))
        .map(
          ([name]) =>
            `${name} counts the queue and the waiting drafts apart, an event in both twice`,
        ),
      ...(/kept: onItsWay\(queue\)/.test(stop)
        ? []
        : ["stop counts the draft of an event on its way, which its answer settles"]),
      ...missingTests(tests, "SdkCoreTests", [
        "testEventsBothQueuedAndStillWaitingAreCountedOnceByALaunchThatStartsStopped",
        "testAStopWhileTheConfigurationIsReadCountsOnceTheEventsBothQueuedAndStillWaiting",
        "testARejectedKeyCountsOnceTheEventsBothQueuedAndStillWaiting",
      ]),
    ];
  },
);

// A scheduled read of the configuration does nothing once refreshGeneration has changed: each
// place that schedules one takes a new number first, so a read scheduled before it is void and
// the reads are one chain (else each stop and start while waiting for a configuration adds a
// chain, each doubling the shared backoff). start() reads only when it restarts a stopped SDK,
// as the Kotlin SDK's does.
checking(
  "the configuration is read in one chain: each read scheduled under a new number, start() reading only when it restarts a stopped SDK",
  () => {
    const functions = descendants(tree(core("Core/SdkCore.swift")), "function_declaration");
    const scheduling = functions
      .map((fn) => ({
        name: nameOf(fn),
        parts: codeOf(fn.text).split("platform.scheduler.schedule("),
      }))
      .flatMap(({ name, parts }) =>
        parts
          .slice(1)
          .map((part, index) => ({ name, part, before: parts[index] }))
          .filter(({ part }) => /^[^\n]*\{[^\n]*\n[^\n]*\n\s*self\.refreshQuietly\(\)/.test(part)),
      );
    const start = codeOf(functionText("Core/SdkCore.swift", /func start\(/));
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "SdkCoreTests.swift"));
    return [
      ...(scheduling.length >= 2
        ? []
        : [`${scheduling.length} scheduled reads found, not apply's and refreshQuietly's`]),
      ...scheduling
        .filter(
          ({ before: text }) =>
            !/refreshGeneration \+= 1\s*let generation = refreshGeneration\b/.test(text),
        )
        .map(
          ({ name }) =>
            `${name} schedules a read under the number in force: a read scheduled before stays live`,
        ),
      ...(/guard wasStopped, isConfigured else \{/.test(start) &&
      before(start, "guard wasStopped, isConfigured else", "self.refreshQuietly()") &&
      /worker\.async \{\s*guard [^\n]*!self\.locked\(\{ self\.stopped \}\)/.test(start)
        ? []
        : [
            "start() reads the configuration without restarting a stopped SDK (or once stopped again)",
          ]),
      ...(/func testAStopAndStartWhileWaitingForTheConfigurationKeepsOneChainOfReads\(/.test(tests)
        ? []
        : [
            "SdkCoreTests.testAStopAndStartWhileWaitingForTheConfigurationKeepsOneChainOfReads is missing",
          ]),
    ];
  },
);

// waitForTrackingAuthorization: the install held for the app's App Tracking Transparency answer
// while ATT's status reads not_determined, within the timeout from this launch's configure; read
// again every second on the worker through the platform's scheduler (which the tests drive) and
// as the app becomes active; never for an install recorded already; 1 to 360 seconds.
checking(
  "the install waits for the app's tracking answer as waitForTrackingAuthorization asks, and its tests are there",
  () => {
    const problems = [];
    const facade = functionNamed(
      tree(core("ServiceAttribution.swift")),
      "waitForTrackingAuthorization",
    ).text;
    if (
      !/public static func waitForTrackingAuthorization\(timeout: TimeInterval\)/.test(facade) ||
      !/core\.waitForTrackingAuthorization\(timeout: timeout, log: UnifiedLogSink\(\)\)/.test(
        facade,
      )
    )
      problems.push(
        "ServiceAttribution.waitForTrackingAuthorization(timeout:) does not hand the core its timeout and a log",
      );
    const sdkCore = typeNamed(core("Core/SdkCore.swift"), "SdkCore");
    const limits = propertyValue(sdkCore, "trackingWaitLimits").text;
    if (limits !== "1...360") problems.push(`trackingWaitLimits is ${limits}, not 1...360`);
    const take = codeOf(functionNamed(sdkCore, "waitForTrackingAuthorization").text);
    if (
      !/timeout\.isFinite && SdkCore\.trackingWaitLimits\.contains\(timeout\)/.test(take) ||
      !/if valid && !called \{ trackingWaitTimeout = timeout \}/.test(take) ||
      !/log\.error\(/.test(take) ||
      !/log\.warning\(/.test(take)
    )
      problems.push(
        "waitForTrackingAuthorization does not refuse a timeout outside the limits (an error) and a call after configure (a warning), taking neither",
      );
    if (
      !/trackingWait = TrackingWait\(since: started, timeout: timeout\)/.test(
        functionNamed(sdkCore, "configure").text,
      )
    )
      problems.push("configure does not start the wait from its own time");
    const ensure = codeOf(functionNamed(sdkCore, "ensureInstall").text);
    if (
      !before(ensure, "Key.installTracked) != nil", "waitsForTracking()") ||
      !before(ensure, "waitsForTracking()", "installInput()") ||
      !/trackingWait = nil/.test(ensure.slice(0, ensure.indexOf("waitsForTracking()")))
    )
      problems.push(
        "ensureInstall does not hold the install before its report is read, or lets an install recorded already wait",
      );
    const waits = codeOf(functionNamed(sdkCore, "waitsForTracking").text);
    if (
      !/status == "not_determined" && waited >= 0 && waited < wait\.timeout/.test(waits) ||
      !/scheduleTrackingRead\(after: min\(1, wait\.timeout - waited\)\)/.test(waits) ||
      !/platform\.device\.trackingAuthorizationStatus/.test(waits) ||
      !/platform\.clock\(\)/.test(waits)
    )
      problems.push(
        "waitsForTracking does not hold while not_determined within the timeout, read again each second",
      );
    const said = waits.match(/currentLog\.info\(/g)?.length ?? 0;
    if (said !== 2 || !/up to \\\(limit\) s/.test(waits))
      problems.push("waitsForTracking does not say the wait's beginning and end in the log");
    const reread = codeOf(functionNamed(sdkCore, "scheduleTrackingRead").text);
    if (!/platform\.scheduler\.schedule\(after: delay, on: worker\)/.test(reread))
      problems.push("the status is not read again on the worker through the platform's scheduler");
    if (!/case \.blocked, \.waiting:\s*return/.test(functionNamed(sdkCore, "flush").text))
      problems.push("a flush whose install waits schedules a retry");
    if (
      !/!installHeldForTracking/.test(functionNamed(sdkCore, "giveBackBackgroundTimeIfDone").text)
    )
      problems.push("the time lent in the background is kept while the install waits");
    const tests = read(
      join(ios, "Tests", "ServiceAttributionTests", "TrackingAuthorizationTests.swift"),
    );
    problems.push(
      ...missingTests(tests, "TrackingAuthorizationTests", [
        "testTheInstallWaitsWhileNotDeterminedAndGoesWithTheIdfaOnceAuthorized",
        "testTheAnswerIsReadAtOnceAsTheAppBecomesActive",
        "testTheInstallGoesWhenTheTimeoutPasses",
        "testAnInstallRecordedAtAnEarlierLaunchNeverWaits",
        "testWithoutTheCallTheInstallNeverWaits",
        "testAnAnsweredOrUnreadableStatusNeverHolds",
        "testATimeoutOutsideOneTo360SecondsIsRefusedAndChangesNothing",
        "testACallAfterConfigureChangesNothing",
        "testALaunchThatEndedWhileWaitingWaitsAgainFromItsOwnConfigure",
        "testWhileTheInstallWaitsTheTimeLentInTheBackgroundIsGivenBack",
      ]),
    );
    return problems;
  },
);

checking(
  "sessions go before events, never behind a backlog of them (as the Kotlin and Unity SDKs)",
  () => {
    const configure = functionText("Core/SdkCore.swift", /func configure\(/);
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "SessionTests.swift"));
    return [
      ...(before(configure, "Lane(.sessions", "Lane(.events")
        ? []
        : ["the worker delivers the events before the sessions"]),
      ...(/func testSessionsGoBeforeTheEventsNeverBehindABacklogOfThem\(/.test(tests)
        ? []
        : ["SessionTests.testSessionsGoBeforeTheEventsNeverBehindABacklogOfThem is missing"]),
    ];
  },
);

checking(
  "a configuration whose sealing key cannot seal is refused whole, the one in force kept (as the Kotlin SDK)",
  () => {
    const parse = functionText("Core/RemoteConfig.swift", /func parse\(/);
    const enqueue = functionText("Core/SdkCore.swift", /func enqueue\(_ drafts: \[Draft\]\)/);
    const values = read(join(ios, "Tests", "ServiceAttributionTests", "ValueTests.swift"));
    const coreTests = read(join(ios, "Tests", "ServiceAttributionTests", "SdkCoreTests.swift"));
    return [
      ...(/do \{\s*_ = try Sealer\(keyId: keyId, publicKeySpki: publicKey\)\s*\} catch \{\s*throw ParseError/.test(
        parse,
      )
        ? []
        : ["RemoteConfig.parse takes a key it cannot seal with"]),
      ...(/values are hashed/.test(enqueue)
        ? ["a key that cannot seal falls back to hashing"]
        : []),
      ...(/func testAConfigurationWhoseSealingKeyCannotSealIsRefusedWhole\(/.test(values)
        ? []
        : ["ValueTests.testAConfigurationWhoseSealingKeyCannotSealIsRefusedWhole is missing"]),
      ...(/func testAConfigurationWhoseKeyCannotSealIsRefusedAndTheOneInForceStays\(/.test(
        coreTests,
      )
        ? []
        : [
            "SdkCoreTests.testAConfigurationWhoseKeyCannotSealIsRefusedAndTheOneInForceStays is missing",
          ]),
    ];
  },
);

checking(
  "the README's error listener handles events dropped with no reason (a damaged queue)",
  () => {
    const readme = read(join(ios, "README.md"));
    const swift = [...readme.matchAll(/```swift\n([\s\S]*?)```/g)].map((m) => m[1]).join("\n");
    return [
      ...(/\.reason!/.test(swift)
        ? [
            "a README sample force-unwraps ServiceError.reason, which is nil for events lost with a damaged queue",
          ]
        : []),
      ...(/case \.eventsDropped:((?!\bcase )[\s\S])*\breason\?/.test(swift)
        ? []
        : ["the README's error listener does not show .eventsDropped with an optional reason"]),
    ];
  },
);

// --- Packaging ----------------------------------------------------------------------------

// Both manifests are at the repository's root, which SwiftPM and CocoaPods check out; their
// paths are relative to it.
const podspec = read(join(root, "ServiceAttribution.podspec"));
const podField = (text, field) => new RegExp(`s\\.${field}\\s*=\\s*'([^']*)'`).exec(text)?.[1];
const sdkVersion = () =>
  stringValue(typeNamed(core("Core/Requests.swift"), "Requests"), "sdkVersion");
const gitURL = /:git\s*=>\s*'([^']+)'/.exec(podspec)?.[1];

/** The calls `.name(…)` in a parsed manifest. */
const callsNamed = (node, name) =>
  descendants(node, "call_expression").filter((call) => {
    const callee = call.namedChildren[0];
    return callee?.text === `.${name}` || callee?.text === name;
  });
/** The value of the labelled argument `label:` of a call, or null. */
const argumentOf = (call, label) => {
  const argument = descendants(call, "value_argument").find(
    (arg) =>
      arg.namedChildren[0]?.type === "value_argument_label" && arg.namedChildren[0].text === label,
  );
  return argument ? argument.namedChildren.at(-1) : null;
};
const manifest = () => tree("Package.swift");

checking(
  "Package.swift (root): one library, no dependency, its targets' paths and resources exist",
  () => {
    const targets = [...callsNamed(manifest(), "target"), ...callsNamed(manifest(), "testTarget")];
    const paths = targets.map((target) => stringsIn(argumentOf(target, "path") ?? target).join(""));
    const library = callsNamed(manifest(), "library").map((call) =>
      stringsIn(argumentOf(call, "name") ?? call).join(""),
    );
    const [main] = callsNamed(manifest(), "target");
    const copied = main
      ? callsNamed(argumentOf(main, "resources") ?? main, "copy").map((call) =>
          stringsIn(call).join(""),
        )
      : [];
    const platforms = argumentOf(callsNamed(manifest(), "Package")[0], "platforms")?.text ?? "";
    return [
      ...(callsNamed(manifest(), "package").length > 0 ? ["a package dependency"] : []),
      ...same(library, ["ServiceAttribution"], "library products"),
      ...same(
        paths,
        ["sdk/ios/Sources/ServiceAttribution", "sdk/ios/Tests/ServiceAttributionTests"],
        "target paths",
      ),
      ...paths.filter((p) => !existsSync(join(root, p))).map((p) => `${p} does not exist`),
      ...same(copied, ["PrivacyInfo.xcprivacy"], "resources copied"),
      ...copied
        .filter((c) => !existsSync(join(root, paths[0] ?? "", c)))
        .map((c) => `${c} does not exist in ${paths[0]}`),
      ...(/\.iOS\(\.v15\)/.test(platforms) ? [] : ["platforms do not say iOS 15"]),
      ...(existsSync(join(ios, "Package.swift"))
        ? ["sdk/ios/Package.swift is back: one manifest, at the root"]
        : []),
    ];
  },
);

checking(
  "ServiceAttribution.podspec (root): the SDK's version and tag, iOS 15, its files, Swift 5",
  () => {
    const sources = podField(podspec, "source_files");
    const prefix = sources?.replace(/\*\*\/\*\.swift$/, "");
    const shipped = filesUnder(join(ios, "Sources"), ".swift").map((path) => relative(root, path));
    const covered = prefix ? shipped.filter((file) => file.startsWith(prefix)) : [];
    const resources = [
      ...(/resource_bundles\s*=\s*\{([^}]*)\}/.exec(podspec)?.[1] ?? "").matchAll(
        /'([^']+\.xcprivacy)'/g,
      ),
    ].map((m) => m[1]);
    const [target] = callsNamed(manifest(), "target");
    const targetPath = stringsIn(argumentOf(target, "path") ?? target).join("");
    const swiftVersions = /s\.swift_versions\s*=\s*\[([^\]]*)\]/.exec(podspec)?.[1] ?? "";
    return [
      ...same(podField(podspec, "name"), "ServiceAttribution", "name"),
      ...same(podField(podspec, "version"), sdkVersion(), "version (Requests.sdkVersion)"),
      ...same(podField(podspec, "ios.deployment_target"), "15.0", "deployment target"),
      ...(/:tag\s*=>\s*s\.version\.to_s/.test(podspec)
        ? []
        : ["source :tag is not the plain version (s.version.to_s)"]),
      ...(gitURL?.startsWith("https://") ? [] : ["source has no https :git URL"]),
      ...same(sources, `${targetPath}/**/*.swift`, "source_files (the SwiftPM target's path)"),
      ...same(covered.length, shipped.length, "Swift files covered by source_files"),
      ...(resources.length === 1 && existsSync(join(root, resources[0]))
        ? []
        : [`the privacy manifest in resource_bundles is missing: ${resources.join(", ")}`]),
      ...(/'6/.test(swiftVersions)
        ? ["swift_versions lets CocoaPods pick Swift 6's language mode"]
        : []),
      ...["AppTrackingTransparency", "AdServices"]
        .filter((f) => !new RegExp(`weak_frameworks[^\\n]*'${f}'`).test(podspec))
        .map((f) => `${f} is not weakly linked`),
    ];
  },
);

// AdAttributionKit is in the iOS 17.4 SDK (Xcode 15.3, Swift 5.10) and later only: a manifest that
// links it by name fails the link of every older Xcode it accepts (`ld: framework not found`).
// Both take Xcode from 14 (Swift 5.7), so neither names it: the sources import it where the SDK
// has it (`canImport`), `@_weakLinked`, and the compiler links it there, weakly.
checking(
  "AdAttributionKit is linked as the Xcode the manifests accept can: by the weak import, named by neither manifest",
  () => {
    const swiftVersions = [
      ...(/s\.swift_versions\s*=\s*\[([^\]]*)\]/.exec(podspec)?.[1] ?? "").matchAll(
        /'(\d+)\.(\d+)'/g,
      ),
    ].map((m) => [Number(m[1]), Number(m[2])]);
    const oldest = swiftVersions.sort((a, b) => a[0] - b[0] || a[1] - b[1])[0];
    const toolsVersion = /swift-tools-version:\s*(\d+)\.(\d+)/.exec(
      read(join(root, "Package.swift")),
    );
    const takesOlder = (version) =>
      version && (version[0] < 5 || (version[0] === 5 && version[1] < 10));
    const problems = [];
    if (!oldest) problems.push("the podspec has no swift_versions");
    const named = /^\s*s\.(?:weak_)?frameworks\s*=[^\n]*'AdAttributionKit'/m.test(podspec);
    if (named && takesOlder(oldest))
      problems.push(
        `the podspec links AdAttributionKit by name while its swift_versions take Swift ${oldest.join(".")} (Xcode before 15.3, whose SDK lacks it)`,
      );
    const manifest = read(join(root, "Package.swift"));
    if (
      /linkedFramework\("AdAttributionKit"/.test(manifest) &&
      takesOlder(toolsVersion && [Number(toolsVersion[1]), Number(toolsVersion[2])])
    )
      problems.push(
        "Package.swift links AdAttributionKit by name while its tools version takes an Xcode whose SDK lacks it",
      );
    const values = read(join(sdk, core("Platform/AppleConversionValues.swift")));
    if (
      !/#if os\(iOS\) && canImport\(AdAttributionKit\)\s*(?:\/\/[^\n]*\n\s*)*@_weakLinked import AdAttributionKit/.test(
        values,
      )
    )
      problems.push(
        "AdAttributionKit is not imported @_weakLinked where the SDK has it (canImport) only",
      );
    return problems;
  },
);

checking("the README shows both install routes at the manifests' URL and version", () => {
  const readme = read(join(ios, "README.md"));
  const version = sdkVersion();
  const spm = `.package(url: "${gitURL}", from: "${version}")`;
  const pod = `pod 'ServiceAttribution', :git => '${gitURL}', :tag => '${version}'`;
  return [
    ...(readme.includes(spm) ? [] : [`no ${spm}`]),
    ...(readme.includes(pod) ? [] : [`no ${pod}`]),
    ...(readme.includes('.product(name: "ServiceAttribution", package: "service-attribution")')
      ? []
      : ["no target dependency on the product"]),
  ];
});

checking("the tests read the vectors from the repository, copies none", () => {
  const copies = filesUnder(ios, ".json").filter((path) => !path.includes("node_modules"));
  const problems = [];
  for (const copy of copies) {
    const original = join(sdk, "conformance", copy.split("/").at(-1));
    if (!existsSync(original) || read(original) !== read(copy))
      problems.push(`${relative(sdk, copy)} differs from sdk/conformance`);
  }
  const vectorsFile = read(
    join(ios, "Tests", "ServiceAttributionTests", "Support", "Vectors.swift"),
  );
  const depth = /for _ in 0\.\.<(\d+) \{ url\.deleteLastPathComponent\(\) \}/.exec(
    vectorsFile,
  )?.[1];
  // Vectors.swift sits 5 folders below sdk/.
  if (depth !== "5") problems.push(`Vectors.swift climbs ${depth} folders from #filePath, not 5`);
  return problems;
});

/** A privacy manifest's collected data types: the part both manifests share. */
const collected = (text) =>
  /<key>NSPrivacyCollectedDataTypes<\/key>\s*<array>([\s\S]*?)<\/array>\s*<key>NSPrivacyAccessedAPITypes/
    .exec(text)?.[1]
    ?.replace(/\s+/g, " ")
    .trim();
checking(
  "privacy manifests declare the IDFA and IDFV and the same data; the SDK's its UserDefaults reads",
  () => {
    const sdkManifest = read(join(ios, "Sources", "ServiceAttribution", "PrivacyInfo.xcprivacy"));
    const pluginManifest = read(
      join(flutterPackage, "Sources", "service_attribution", "PrivacyInfo.xcprivacy"),
    );
    const balanced = (text) =>
      ["dict", "array", "plist"].every(
        (tag) =>
          (text.match(new RegExp(`<${tag}[ >]`, "g")) ?? []).length ===
          (text.match(new RegExp(`</${tag}>`, "g")) ?? []).length,
      );
    return [
      ...(balanced(sdkManifest) ? [] : ["the SDK's manifest is not well formed"]),
      ...[
        "NSPrivacyCollectedDataTypeDeviceID",
        "NSPrivacyCollectedDataTypes",
        "NSPrivacyAccessedAPITypes",
        "NSPrivacyTracking",
      ]
        .filter((key) => !sdkManifest.includes(key))
        .map((key) => `no ${key}`),
      ...same(
        collected(pluginManifest),
        collected(sdkManifest),
        "the data the Flutter plugin's manifest declares (the SDK's)",
      ),
      // The consent platform's IABTCF_* values are read from UserDefaults.standard.
      ...(/NSPrivacyAccessedAPICategoryUserDefaults<\/string>\s*<key>NSPrivacyAccessedAPITypeReasons<\/key>\s*<array>\s*<string>CA92\.1<\/string>/.test(
        sdkManifest,
      )
        ? []
        : ["UserDefaults is not declared with reason CA92.1"]),
    ];
  },
);

// --- The Flutter plugin's iOS side --------------------------------------------------------

const pluginFile = join(
  "flutter",
  "ios",
  "service_attribution",
  "Sources",
  "service_attribution",
  "ServiceAttributionPlugin.swift",
);
const dart = filesUnder(join(flutter, "lib"), ".dart").map(read).join("\n");
const android = read(
  join(
    flutter,
    "android",
    "src",
    "main",
    "kotlin",
    "com",
    "service",
    "attribution",
    "flutter",
    "ServiceAttributionPlugin.kt",
  ),
);

checking("the Flutter plugin answers every method the Dart side invokes", () => {
  const invoked = [
    ...new Set(
      [...dart.matchAll(/invokeMethod(?:<[^(]*>)?\(\s*['"]([^'"]+)['"]/g)].map((m) => m[1]),
    ),
  ].sort();
  const handle = functionNamed(tree(pluginFile), "handle");
  const answered = descendants(handle, "switch_entry").flatMap((entry) =>
    entry.namedChildren.filter((child) => child.type === "switch_pattern").flatMap(stringsIn),
  );
  return [
    ...(invoked.length > 0 ? [] : ["no invokeMethod found on the Dart side"]),
    ...invoked
      .filter((method) => !answered.includes(method))
      .map((method) => `${method} is not handled`),
    ...(handle.text.includes("FlutterMethodNotImplemented")
      ? []
      : ["unknown methods are not answered notImplemented"]),
  ];
});

checking(
  "the Flutter plugin's channel, class, versions and error codes match the other sides",
  () => {
    const plugin = typeNamed(pluginFile, "ServiceAttributionPlugin");
    const channel = stringValue(plugin, "channelName");
    const dartChannel = /MethodChannel\(\s*'([^']+)'/.exec(dart)?.[1];
    const androidChannel = /CHANNEL\s*=\s*"([^"]+)"/.exec(android)?.[1];
    const pubspec = read(join(flutter, "pubspec.yaml"));
    const pubVersion = /^version:\s*(\S+)/m.exec(pubspec)?.[1];
    const iosClass = /\n\s+ios:\s*\n(?:\s+\w+:.*\n)*?\s+pluginClass:\s*(\w+)/.exec(pubspec)?.[1];
    const [wrapperPlatform, wrapperVersion] = stringsIn(propertyValue(plugin, "wrapper"));
    const swiftCodes = [
      ...new Set([...plugin.text.matchAll(/FlutterError\(code:\s*"(\w+)"/g)].map((m) => m[1])),
    ].sort();
    // The Android side's codes: those passed to `result.error` as they stand, and those its
    // `errorCode` maps a failure to (`is HttpException -> "http"`).
    const errorCodeFunction = /fun errorCode\([\s\S]*?\n\s*\}\n/.exec(android)?.[0] ?? "";
    const androidCodes = [
      ...new Set([
        ...[...android.matchAll(/\.error\(\s*"(\w+)"/g)].map((m) => m[1]),
        ...[...errorCodeFunction.matchAll(/->\s*"(\w+)"/g)].map((m) => m[1]),
      ]),
    ].sort();
    const flutterPodspec = read(join(flutter, "ios", "service_attribution.podspec"));
    return [
      ...same(channel, dartChannel, "channel (Dart)"),
      ...same(channel, androidChannel, "channel (Android)"),
      ...(/ServiceAttributionPlugin\s*:\s*NSObject\s*,\s*FlutterPlugin/.test(plugin.text)
        ? []
        : ["not an NSObject FlutterPlugin"]),
      ...(iosClass === undefined || iosClass === "ServiceAttributionPlugin"
        ? []
        : [`pubspec's ios pluginClass is ${iosClass}`]),
      ...same(wrapperPlatform, "flutter", "the install's sdk_platform"),
      ...same(wrapperVersion, pubVersion, "the install's sdk_version (pubspec version)"),
      ...swiftCodes
        .filter((code) => !androidCodes.includes(code))
        .map((code) => `error code ${code} is not the Android side's (${androidCodes.join(", ")})`),
      ...same(podField(flutterPodspec, "name"), "service_attribution", "podspec name"),
      ...same(podField(flutterPodspec, "version"), pubVersion, "podspec version (pubspec version)"),
      ...(new RegExp(
        `s\\.dependency\\s+'ServiceAttribution',\\s*'${sdkVersion().replace(/\./g, "\\.")}'`,
      ).test(flutterPodspec)
        ? []
        : ["the podspec does not depend on ServiceAttribution at the SDK's version"]),
      ...(/s\.dependency\s+'Flutter'/.test(flutterPodspec)
        ? []
        : ["the podspec does not depend on Flutter"]),
      ...(/s\.platform\s*=\s*:ios,\s*'15\.0'/.test(flutterPodspec)
        ? []
        : ["the podspec's platform is not iOS 15"]),
      ...(/s\.swift_version\s*=/.test(flutterPodspec) ? [] : ["no swift_version"]),
      ...same(
        podField(flutterPodspec, "source_files"),
        "service_attribution/Sources/service_attribution/**/*.swift",
        "source_files (the Swift package's target)",
      ),
      ...same(
        /resource_bundles\s*=\s*\{[^}]*'([^']+\.xcprivacy)'/.exec(flutterPodspec)?.[1],
        "service_attribution/Sources/service_attribution/PrivacyInfo.xcprivacy",
        "the privacy manifest in resource_bundles (the Swift package's)",
      ),
    ];
  },
);

// Flutter's Swift Package Manager route: ios/<plugin>/Package.swift, whose target is the
// plugin's sources in Sources/<plugin>, as Flutter's template has it.
checking(
  "the Flutter plugin's Package.swift: Flutter's layout and framework, iOS 15, the SDK at the podspec's version",
  () => {
    const file = join("flutter", "ios", "service_attribution", "Package.swift");
    const manifest = tree(file);
    const [packageCall] = callsNamed(manifest, "Package");
    const name = stringsIn(argumentOf(packageCall, "name") ?? packageCall)[0];
    const libraries = callsNamed(manifest, "library").map((call) => ({
      name: stringsIn(argumentOf(call, "name") ?? call).join(""),
      targets: stringsIn(argumentOf(call, "targets") ?? call),
    }));
    const targets = callsNamed(manifest, "target").map(
      (call) => stringsIn(argumentOf(call, "name") ?? call)[0],
    );
    // The SDK's dependency is the one by URL; Flutter's framework is the one by path.
    const dependency = callsNamed(manifest, "package").find((call) => argumentOf(call, "url"));
    const flutterFramework = callsNamed(manifest, "package").find(
      (call) => stringsIn(argumentOf(call, "path") ?? call).join("") === "../FlutterFramework",
    );
    const product = callsNamed(manifest, "product").map((call) => ({
      name: stringsIn(argumentOf(call, "name") ?? call).join(""),
      package: stringsIn(argumentOf(call, "package") ?? call).join(""),
    }));
    const processed = callsNamed(manifest, "process").map((call) => stringsIn(call).join(""));
    const sources = join(flutterPackage, "Sources", "service_attribution");
    const platforms = argumentOf(packageCall, "platforms")?.text ?? "";
    return [
      ...same(name, "service_attribution", "package name (the plugin's)"),
      ...same(
        libraries,
        [{ name: "service-attribution", targets: ["service_attribution"] }],
        "library (the plugin's name with dashes, over its target)",
      ),
      ...same(targets, ["service_attribution"], "targets"),
      ...(existsSync(join(sources, "ServiceAttributionPlugin.swift"))
        ? []
        : ["Sources/service_attribution has no ServiceAttributionPlugin.swift"]),
      ...(/\.iOS\("15\.0"\)/.test(platforms) ? [] : ["platforms do not say iOS 15"]),
      ...same(
        stringsIn(argumentOf(dependency, "url") ?? manifest).join(""),
        gitURL,
        "the SDK's package URL (the root podspec's)",
      ),
      ...same(
        stringsIn(argumentOf(dependency, "exact") ?? manifest).join(""),
        sdkVersion(),
        "the SDK's version (exact, the podspec's dependency)",
      ),
      ...same(
        product,
        [
          { name: "FlutterFramework", package: "FlutterFramework" },
          { name: "ServiceAttribution", package: "service-attribution" },
        ],
        "the target's product dependencies (Flutter's framework, the root Package.swift's library)",
      ),
      ...(flutterFramework
        ? []
        : ['no .package(name: "FlutterFramework", path: "../FlutterFramework") (Flutter 3.41+)']),
      ...same(processed, ["PrivacyInfo.xcprivacy"], "resources"),
      ...processed
        .filter((resource) => !existsSync(join(sources, resource)))
        .map((resource) => `${resource} is not in Sources/service_attribution`),
      ...(existsSync(join(flutter, "ios", "Classes"))
        ? ["ios/Classes is back: the sources are the Swift package's"]
        : []),
    ];
  },
);

// The count of events dropped, read before configure, is the one earlier launches kept.
checking("droppedEventCount before configure reads the count kept across launches", () => {
  const count = tree(core("Core/SdkCore.swift")).text;
  const tests = read(join(ios, "Tests", "ServiceAttributionTests", "DeviceStateTests.swift"));
  return [
    ...(/guard !configured, let store = earlyStore[^\n]*\n\s*return droppedTotal \+ \(store\.get\(Key\.droppedEvents\)/.test(
      count,
    )
      ? []
      : ["droppedEventCount reads only this process's drops before configure"]),
    ...(/func testTheDroppedEventCountReadBeforeConfigureIsTheOneKeptAcrossLaunches\(/.test(tests)
      ? []
      : [
          "DeviceStateTests.testTheDroppedEventCountReadBeforeConfigureIsTheOneKeptAcrossLaunches is missing",
        ]),
  ];
});

// A listener or delegate set while stopped is told nothing then (listeners.json); start() tells
// it the kept attribution, and hands a deferred deep link kept for want of a listener, once.
checking(
  "a listener set while stopped hears the kept attribution and its deferred deep link once started",
  () => {
    const start = codeOf(functionText("Core/SdkCore.swift", /func start\(/));
    const setter = tree(core("Core/SdkCore.swift")).text;
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ListenerTests.swift"));
    return [
      ...(before(start, "self.flush()", "self.tellOwedAttribution()") &&
      before(start, "self.tellOwedAttribution()", "self.deliverKeptDeferredLink()")
        ? []
        : ["start() tells neither the owed attribution nor the kept deferred deep link"]),
      ...(/attributionOwedToListener = newValue != nil && \(stopped \|\| disabled\)/.test(setter) &&
      /attributionOwedToDelegate = newValue != nil && \(stopped \|\| disabled\)/.test(setter)
        ? []
        : [
            "a listener or delegate set while stopped or switched off is not marked as owed the attribution",
          ]),
      ...(/func testAListenerSetWhileStoppedHearsTheKeptAttributionAndItsDeferredDeepLinkOnceStarted\(/.test(
        tests,
      )
        ? []
        : [
            "ListenerTests.testAListenerSetWhileStoppedHearsTheKeptAttributionAndItsDeferredDeepLinkOnceStarted is missing",
          ]),
    ];
  },
);

// The same when remote configuration switches the SDK on again in the process: a listener set
// while it was off hears the kept attribution, and the deferred deep link, then.
checking("a listener set while switched off hears the kept attribution once switched on", () => {
  const apply = codeOf(functionText("Core/SdkCore.swift", /private func apply\(/));
  const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ListenerTests.swift"));
  return [
    ...(/let was = disabled\s*disabled = false/.test(apply) &&
    /if switchedOn \{\s*tellOwedAttribution\(\)\s*deliverKeptDeferredLink\(\)/.test(apply)
      ? []
      : ["switched on again, the SDK tells a listener set while off nothing"]),
    ...(/func testAListenerSetWhileSwitchedOffHearsTheKeptAttributionAndItsDeferredDeepLinkOnceSwitchedOn\(/.test(
      tests,
    )
      ? []
      : [
          "ListenerTests.testAListenerSetWhileSwitchedOffHearsTheKeptAttributionAndItsDeferredDeepLinkOnceSwitchedOn is missing",
        ]),
  ];
});

// The deferred deep link is claimed in memory, in one step under the lock that reads the
// listener and the delegate it goes to, and goes to those: a look apart from the claim would let
// the app clear them in between, and the link claimed for no one would then wait in memory (lost
// with the process, pushed out by taps) or nowhere. The claim is a flag of the process, never
// cleared, so that an offer while the call waits on the main thread hands it over no second
// time. The device says delivered only once the call ran there (a process killed before offers
// it again at the next launch): `hand` runs what it is given after the listener's and the
// delegate's calls, and that is the one write of the mark, made on the worker while the files
// can be written. It never goes through deliver(), whose waiting list is the direct links'.
checking(
  "the deferred deep link is claimed in the step that reads the listeners it goes to, marked delivered once their call ran, and never waits among the direct links",
  () => {
    const sdkCore = typeNamed(core("Core/SdkCore.swift"), "SdkCore");
    const offer = functionNamed(sdkCore, "deliverKeptDeferredLink");
    const code = codeOf(offer.text);
    const claims = descendants(offer, "lambda_literal").filter((lambda) =>
      lambda.text.includes("Key.deferredDelivered"),
    );
    const claim = claims.length === 1 ? codeOf(claims[0].text) : "";
    const hand = codeOf(functionNamed(sdkCore, "hand").text);
    const ran = codeOf(functionNamed(sdkCore, "deferredDeepLinkRan").text);
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "ListenerTests.swift"));
    const whole = codeOf(tree(core("Core/SdkCore.swift")).text);
    return [
      ...(claims.length === 1 &&
      /locked \{ \(\) -> \(DeepLinkListener\?, ServiceAttributionDelegate\?\)\? in/.test(code)
        ? []
        : [
            "deliverKeptDeferredLink claims the link in no single locked step, or in more than one",
          ]),
      ...(before(
        claim,
        "configured && !disabled && !stopped && !deleted && !deferredHandedOver",
        "let taken = deepLinkListeners()",
      ) &&
      before(
        claim,
        "let taken = deepLinkListeners()",
        "platform.store.get(Key.deferredDelivered) == nil",
      ) &&
      before(
        claim,
        "platform.store.get(Key.deferredDelivered) == nil",
        "deferredHandedOver = true",
      ) &&
      before(claim, "deferredHandedOver = true", "return taken") &&
      !/store\.put\(Key\.deferredDelivered/.test(claim)
        ? []
        : [
            "the claim does not read the state, the flag and the listeners, and take the link in memory only when one is set, in one step",
          ]),
      ...((whole.match(/^\s*(self\.)?deferredHandedOver = false/gm) ?? []).length === 0
        ? []
        : [
            "the deferred deep link's hand-over is forgotten in the process: a second offer may hand it over again",
          ]),
      ...(/guard let pair = listeners else \{ return \}\s*hand\(link, to: pair\.0, pair\.1\) \{ self\.deferredDeepLinkRan\(\) \}\s*\}\s*$/.test(
        code,
      )
        ? []
        : [
            "deliverKeptDeferredLink does not hand the link to the listeners its claim read, with the mark to write once their call ran",
          ]),
      ...(before(hand, "delegate?.serviceAttribution(didReceive: link)", "ran?()")
        ? []
        : [
            "hand does not run what follows the calls after the listener's and the delegate's calls",
          ]),
      ...(before(ran, "worker.async", "self.platform.store.isAvailable") &&
      before(
        ran,
        "self.platform.store.isAvailable",
        'self.platform.store.put(Key.deferredDelivered, "1")',
      ) &&
      !/stopped|disabled|deleted/.test(ran.replace(/currentLog\.\w+\([^)]*\)/g, ""))
        ? []
        : [
            "deferredDeepLinkRan does not mark the link delivered on the worker, whatever the SDK's state, while the files can be written",
          ]),
      ...(/\bdeliver\(/.test(code) || /pendingLinks/.test(code)
        ? ["deliverKeptDeferredLink puts the deferred deep link among the waiting direct links"]
        : []),
      ...((whole.match(/store\.put\(Key\.deferredDelivered/g) ?? []).length === 1
        ? []
        : ["the deferred deep link is marked delivered outside deferredDeepLinkRan"]),
      ...missingTests(tests, "ListenerTests", [
        "testTheDeferredDeepLinkOfferedAsTheListenerIsClearedIsNotMarkedDeliveredAndTheNextListenerGetsItOnce",
        "testTheDeferredDeepLinkOfferedAsTheListenerIsClearedReachesALaterLaunchsListenerTheProcessHavingEnded",
        "testADeferredDeepLinkWaitingForAListenerIsNotPushedOutByMoreDirectLinksThanAreKept",
        "testDirectLinksPastTheBoundPushOutOnlyOlderDirectLinksNeverALinkOfAnotherKindWaitingWithThem",
        "testADeferredDeepLinkWhoseListenerCallHasNotRunIsNotMarkedDeliveredAndTheNextLaunchOffersItAgain",
        "testADeferredDeepLinkHandedOverIsNotHandedOverAgainWhileItsListenerCallWaits",
        "testADeferredDeepLinkIsMarkedDeliveredOnceItsListenerCallRanEvenIfTheSdkWasStoppedMeanwhile",
      ]),
    ];
  },
);

// A stop() made as configure returns, before its worker begins, sends nothing: the worker reads
// the flag as it is then, not as configure found it.
checking(
  "a stop made as configure returns sends nothing, not even the configuration's read",
  () => {
    const configure = codeOf(functionText("Core/SdkCore.swift", /func configure\(\s*platform:/));
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "SdkCoreTests.swift"));
    return [
      ...(/worker\.async \{\s*if self\.locked\(\{ self\.stopped \}\)/.test(configure)
        ? []
        : ["configure's worker acts on the stopped flag configure read, not the one it finds"]),
      ...(/func testAStopMadeAsConfigureReturnsSendsNothingNotEvenTheConfigurationsRead\(/.test(
        tests,
      )
        ? []
        : [
            "SdkCoreTests.testAStopMadeAsConfigureReturnsSendsNothingNotEvenTheConfigurationsRead is missing",
          ]),
    ];
  },
);

// A stop() marks the SDK stopped and empties what it drops (the queue, the sessions, the events
// still waiting for a configuration, which are evaluated for the conversion values only once
// they are queued) in one step under enqueueLock, which start() and sendEvent queue under and
// every conversion value is evaluated and asked under: a start() on another thread once the
// stop lets go of it, and the session and events queued after that start(), are never the
// stop's, and no event it dropped is evaluated after it. configure reads the stopped flag and
// drops what a stopped launch left in the same locked step. Apple's registration and the
// re-engagement's update read the flags again under that lock, so a stop() that returned is
// followed by no call to Apple.
checking(
  "a stop drops under the lock start() takes, configure too; Apple is asked nothing after a stop() that returned",
  () => {
    const code = (signature) => codeOf(functionText("Core/SdkCore.swift", signature));
    /** Whether `parts` occur in `text` in this order, each after the one before. */
    const inOrder = (text, parts) => {
      let at = 0;
      for (const part of parts) {
        const found = text.indexOf(part, at);
        if (found < 0) return false;
        at = found + part.length;
      }
      return true;
    };
    const deliveryTests = read(
      join(ios, "Tests", "ServiceAttributionTests", "DeliveryTests.swift"),
    );
    const conversionTests = read(
      join(ios, "Tests", "ServiceAttributionTests", "ConversionValueTests.swift"),
    );
    return [
      ...(inOrder(code(/func stop\(\)/), [
        "enqueueLock.lock()",
        "stopped = true",
        "pendingQueue?.clear()",
        "sessionQueue?.clear(",
        "self.retryDelay = 0",
        "enqueueLock.unlock()",
        'reportDrop(.stopped, dropped.count + drafts, "the app stopped the SDK")',
      ])
        ? []
        : [
            "stop does not drop what it drops, and hand the worker its retry reset, under enqueueLock, and tell the drop after",
          ]),
      ...(inOrder(code(/func start\(\)/), [
        "enqueueLock.lock()",
        "stopped = false",
        "enqueueSession(",
        "enqueueLock.unlock()",
      ])
        ? []
        : ["start does not clear the flag and queue its session under enqueueLock"]),
      ...(inOrder(code(/func configure\(\s*platform:/), [
        "enqueueLock.lock()",
        'stopped = store.get(Key.stopped) == "1"',
        "stoppedQueue = SdkCore.eventsDropped(queued: events.clear(), waiting: pending.clear())",
        "let isStopped = stopped",
        "enqueueLock.unlock()",
        'reportDrop(.stopped, stoppedQueue, "the app stopped the SDK")',
      ])
        ? []
        : [
            "configure does not drop what a stopped launch left in the locked step that reads the flag",
          ]),
      ...(inOrder(code(/func registerConversion\(\)/), [
        "enqueueLock.lock()",
        "guard locked({ !stopped && !deleted && !refusedRegistration })",
        "platform.conversionValues.register",
        "enqueueLock.unlock()",
      ])
        ? []
        : [
            "registerConversion does not read the flags again under enqueueLock before asking Apple",
          ]),
      ...(inOrder(code(/func reengage\(\)/), [
        "enqueueLock.lock()",
        "if !disabled && !stopped && !deleted { return true }",
        "platform.conversionValues.reengage",
        "enqueueLock.unlock()",
      ])
        ? []
        : ["reengage does not read the flags again under enqueueLock before asking Apple"]),
      ...missingTests(deliveryTests, "DeliveryTests", [
        "testAStartOnAnotherThreadRightAfterAStopKeepsItsOwnSessionAndEvents",
      ]),
      ...missingTests(conversionTests, "ConversionValueTests", [
        "testAStoppedSdkEvaluatesNothing",
        "testAStopMadeAsTheFirstLaunchIsAboutToBeRegisteredKeepsTheRegistrationBack",
        "testAStopMadeAsAReengagementOpenIsToldToAppleKeepsTheUpdateBack",
      ]),
    ];
  },
);

// A configure that finds the SDK stopped keeps its completion, and those of the calls made
// since, for the initialization that start() runs, as the Kotlin SDK keeps its InitListener:
// told then, once, so a refusal to start met there (no service address, a blank or rejected
// key) reaches the app, and the Flutter plugin's error stream, rather than no one.
checking(
  "a configure that found the SDK stopped is completed by the initialization start() runs, a refusal included",
  () => {
    const configure = codeOf(functionText("Core/SdkCore.swift", /func configure\(\s*platform:/));
    const finish = codeOf(functionText("Core/SdkCore.swift", /private func finishInit\(/));
    const tests = read(join(ios, "Tests", "ServiceAttributionTests", "SdkCoreTests.swift"));
    return [
      ...(/if self\.locked\(\{ self\.stopped \}\) \{[^}]*self\.awaitStart\(completion\)/.test(
        configure,
      ) && !/finishInit\(nil, completion/.test(configure)
        ? []
        : [
            "configure that finds the SDK stopped completes at once, not with the initialization start() runs",
          ]),
      ...(/self\.startCompletions\?\.append\(completion\)/.test(configure)
        ? []
        : ["a repeat configure's completion does not wait, with the first's, for start()"]),
      ...(/\(startCompletions \?\? \[\]\)/.test(finish) && /startCompletions = nil/.test(finish)
        ? []
        : [
            "the initialization does not tell, once, the completions kept while the SDK was stopped",
          ]),
      ...(/func testAConfigureThatFoundTheSdkStoppedIsToldOfTheRefusalMetByTheInitializationThatStartRuns\(/.test(
        tests,
      )
        ? []
        : [
            "SdkCoreTests.testAConfigureThatFoundTheSdkStoppedIsToldOfTheRefusalMetByTheInitializationThatStartRuns is missing",
          ]),
    ];
  },
);

// An attribution read refused for its key (401, 403) is not asked again at each flush: it waits
// for the app's refreshConfig, as on Android and Unity.
checking("an attribution read refused for its key waits for refreshConfig", () => {
  const polling = codeOf(functionText("Core/SdkCore.swift", /func startPolling\(/));
  const poll = codeOf(functionText("Core/SdkCore.swift", /func poll\(delay:/));
  const refresh = codeOf(functionText("Core/SdkCore.swift", /func refreshConfig\(/));
  const tests = read(join(ios, "Tests", "ServiceAttributionTests", "SdkCoreTests.swift"));
  return [
    ...(/if attributionRefused \{ return true \}/.test(polling)
      ? []
      : ["startPolling reads again after a refusal"]),
    ...(/case let \.authentication[\s\S]*attributionRefused = true/.test(poll)
      ? []
      : ["a refused attribution read is not kept as refused"]),
    ...(/attributionRefused = false/.test(refresh)
      ? []
      : ["refreshConfig does not let the attribution be read again"]),
    ...(/func testAnAttributionReadRefusedForItsKeyIsNotReadAgainUntilRefreshConfig\(/.test(tests)
      ? []
      : [
          "SdkCoreTests.testAnAttributionReadRefusedForItsKeyIsNotReadAgainUntilRefreshConfig is missing",
        ]),
  ];
});

// A repeat the service names (`duplicate_event`) is delivered: counted as named, so that it is
// not taken for an item lost unsaid, and the items counted are the request's, not its ids.
checking("a repeat is counted as delivered, and an item left unnamed is still a drop", () => {
  const api = codeOf(read(join(ios, "Sources", "ServiceAttribution", "Core", "Api.swift")));
  const core = codeOf(read(join(ios, "Sources", "ServiceAttribution", "Core", "SdkCore.swift")));
  const tests = read(join(ios, "Tests", "ServiceAttributionTests", "DeliveryTests.swift"));
  return [
    ...(/if !named\.insert\(index\)\.inserted \{\s*namedAgain \+= 1\s*continue\s*\}\s*if reason == BatchVerdict\.repeatedReason \{\s*repeated \+= 1/.test(
      api,
    )
      ? []
      : ["a repeat is not counted once, by the item it names"]),
    ...(/verdict\.unexplained\.count \+ verdict\.repeated/.test(core)
      ? []
      : ["repeats are not counted as named"]),
    ...(/reportUnexplained\(verdict, removed: ids\.indices\.filter/.test(core)
      ? []
      : ["the items taken off the queue are counted by id, not by item"]),
    ...(/func testARepeatIsDeliveredAndAnItemTheAnswerNamesNotIsStillOneDrop\(/.test(tests)
      ? []
      : [
          "DeliveryTests.testARepeatIsDeliveredAndAnItemTheAnswerNamesNotIsStillOneDrop is missing",
        ]),
  ];
});

// A batch on its way is settled by its answer, and the queue's bound (which drops on the app's
// thread while the worker sends) leaves it so: an item the bound takes off it is told dropped
// (`queue_full`) only once the answer shows the service did not store it, and not when the
// answer refuses or ignores it, which is its one report. An item the bound took before the
// batch was marked on its way (during the consent update before it) was told then, and does
// not leave.
checking(
  "an item the queue's bound takes while its batch is on its way is settled by the answer, told once",
  () => {
    const file = "Core/SdkCore.swift";
    const enqueue = functionText(file, /func enqueue\(_ drafts: \[Draft\]\)/);
    const session = functionText(file, /func enqueueSession\(/);
    const send = functionText(file, /func send\(_ batch/);
    const alone = functionText(file, /func refusedAsWhole\(/);
    const settle = functionText(file, /func settle\(/);
    const tests = [
      [
        "DeliveryTests",
        "testAnEventTheBoundTakesWhileOnItsWayThatTheServiceStoresIsDeliveredNotReportedDropped",
      ],
      [
        "DeliveryTests",
        "testAnEventTheBoundTakesWhileOnItsWayIsReportedOnceWhenItsAnswerRefusesItOrFails",
      ],
      [
        "DeliveryTests",
        "testAnEventTheBoundTakesWhileTheConsentUpdateBeforeItsBatchIsOnItsWayIsToldOnceAndNeverSent",
      ],
      ["SessionTests", "testASessionTheBoundTakesWhileOnItsWayThatTheServiceStoresIsNoDrop"],
    ];
    return [
      ...(/outsideTheBatch\(queue\.add\(/.test(enqueue) &&
      /outsideTheBatch\(sessions\.add\(/.test(session)
        ? []
        : ["what the bound drops of a batch on its way is told at once (events or sessions)"]),
      ...(before(send, "enqueueLock.lock()", "lane.queue.stillHeld(batch)") &&
      before(send, "lane.queue.stillHeld(batch)", "inFlight = InFlight(") &&
      before(
        send.slice(send.indexOf("inFlight = InFlight(")),
        "enqueueLock.unlock()",
        "try post(batch",
      )
        ? []
        : ["a batch is not marked on its way under enqueueLock, with only the items still queued"]),
      ...(before(send, "lane.queue.remove(ids: removed)", "inFlight?.taken.subtract(removed)") &&
      /inFlight\?\.taken\.subtract\(id\)/.test(alone)
        ? []
        : ["what the answer settles is told again as the bound's drop"]),
      ...(/reportDrop\(taken, of: lane, \.queueFull/.test(settle)
        ? []
        : ["what the bound took and the answer did not settle is lost unsaid"]),
      ...tests
        .filter(
          ([test, name]) =>
            !read(join(ios, "Tests", "ServiceAttributionTests", `${test}.swift`)).includes(
              `func ${name}(`,
            ),
        )
        .map(([test, name]) => `${test}.${name} is missing`),
    ];
  },
);

// --- The README against the public API ------------------------------------------------------

/** `text` split at its top-level commas (outside brackets, braces and string literals). */
const topLevelParts = (text) => {
  const parts = [];
  let depth = 0;
  let quoted = false;
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === "\\") {
        current += c + text[++i];
        continue;
      }
      if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if ("([{<".includes(c) && !(c === "<" && text[i + 1] === "=")) depth += 1;
    else if (")]}>".includes(c) && !(c === ">" && text[i - 1] === "-")) depth -= 1;
    else if (c === "," && depth === 0) {
      parts.push(current.trim());
      current = "";
      continue;
    }
    current += c;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
};
/** The text inside the parentheses that open at `open`, and the index after the closing one. */
const balanced = (text, open) => {
  let depth = 0;
  let quoted = false;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === "(") depth += 1;
    else if (c === ")" && --depth === 0) return { inner: text.slice(open + 1, i), end: i + 1 };
  }
  return { inner: text.slice(open + 1), end: text.length };
};
/**
 * The public API the SDK's sources declare, `@_spi` left out: per type, its static and instance
 * members, each function's overloads with their parameters' labels, which have a default and
 * which take a closure, and whether they are async or throw; each property, and whether it can
 * be set.
 */
const publicApi = () => {
  const api = new Map();
  const entry = (type) => {
    if (!api.has(type)) api.set(type, { functions: new Map(), properties: new Map() });
    return api.get(type);
  };
  for (const path of filesUnder(join(ios, "Sources"), ".swift")) {
    const text = read(path)
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "");
    // Each top-level type or extension, from its opening line to the `}` at column 0.
    for (const block of text.matchAll(
      /^(?:@[\w()]+\s+)*(?:public\s+)?(?:final\s+)?(?:enum|struct|class|protocol|extension)\s+(\w+)[^\n]*\{\n([\s\S]*?)^\}/gm,
    )) {
      const [whole, type, body] = block;
      if (/^@_spi/m.test(whole.split("\n")[0])) continue;
      const members = entry(type);
      for (const fn of body.matchAll(
        /((?:@[\w()]+\s+)*)public\s+(?:static\s+)?(?:func\s+(\w+)|(init)\??)\s*(?:<[^>]*>)?\(/g,
      )) {
        if (/@_spi/.test(fn[1])) continue;
        const name = fn[2] ?? "init";
        const { inner, end } = balanced(body, fn.index + fn[0].length - 1);
        const effects = /^[^{\n]*/.exec(body.slice(end))[0];
        const params = topLevelParts(inner).map((param) => {
          const colon = param.indexOf(":");
          const [label] = param.slice(0, colon).trim().split(/\s+/);
          const type = param.slice(colon + 1);
          return { label, defaulted: /=/.test(type.replace(/->/g, "")), closure: /->/.test(type) };
        });
        const overloads = members.functions.get(name) ?? [];
        overloads.push({
          params,
          async: /\basync\b/.test(effects),
          throws: /\bthrows\b/.test(effects),
        });
        members.functions.set(name, overloads);
      }
      for (const property of body.matchAll(
        /((?:@[\w()]+\s+)*)public\s+(?:static\s+)?(var|let)\s+(\w+)\s*:[^\n]*/g,
      )) {
        if (/@_spi/.test(property[1])) continue;
        const after = body.slice(property.index, property.index + 400);
        const settable =
          property[2] === "var" && (!/\{\s*$/.test(property[0]) || /^\s*set\s*\{/m.test(after));
        members.properties.set(property[3], { settable });
      }
      for (const kase of body.matchAll(/^\s*case\s+([\w\s,=".]+)$/gm))
        for (const name of kase[1].split(",").map((c) => c.split("=")[0].trim()))
          members.properties.set(name, { settable: false });
    }
  }
  return api;
};
/** Whether a call's labels (and a trailing closure) fit a declaration's parameters. */
const fits = (params, labels, trailing) => {
  let next = 0;
  for (const label of labels) {
    while (next < params.length && params[next].label !== label && params[next].defaulted)
      next += 1;
    if (next >= params.length || params[next].label !== label) return false;
    next += 1;
  }
  const rest = params.slice(next);
  if (!trailing) return rest.every((param) => param.defaulted);
  const closure = rest.findIndex((param) => param.closure);
  return closure >= 0 && rest.every((param, index) => index === closure || param.defaulted);
};

// The README is what an app copies: a member it names that the SDK does not declare publicly
// (or declares under another label, or without `async` or `throws` where the README writes
// `await` or `try`) is a compile error in every app that follows it, and no compiler runs here.
checking(
  "the README's Swift calls only the SDK's public API: its names, argument labels, async and throws",
  () => {
    const readme = read(join(ios, "README.md"));
    const api = publicApi();
    const problems = [];
    const types = [...api.keys()].filter((type) => /^[A-Z]/.test(type));
    for (const [, block] of readme.matchAll(/```swift\n([\s\S]*?)```/g)) {
      const code = block.replace(/\/\/.*$/gm, "");
      const uses = new RegExp(
        `\\b(${types.join("|")})(?:\\.(\\w+))?(\\s*\\(|\\s*\\{|\\s*=(?!=))?`,
        "g",
      );
      for (const use of code.matchAll(uses)) {
        const [text, type, member, follows] = use;
        if (!member && !follows?.trim().startsWith("(")) continue;
        const name = member ?? "init";
        const members = api.get(type);
        const line = code.slice(code.lastIndexOf("\n", use.index) + 1, use.index);
        const where = `${type}${member ? `.${member}` : ""} (${line.trimStart()}${text.trim()}…)`;
        const overloads = members.functions.get(name);
        if (follows?.trim() === "=") {
          const property = members.properties.get(name);
          if (!property) problems.push(`${where}: no public property ${name}`);
          else if (!property.settable) problems.push(`${where}: ${name} cannot be set`);
          continue;
        }
        if (!follows || (!overloads && follows.trim() === "{")) {
          if (!members.properties.has(name) && !overloads)
            problems.push(`${where}: no public member ${name}`);
          continue;
        }
        if (!overloads) {
          problems.push(`${where}: no public function ${name}`);
          continue;
        }
        let labels = [];
        let end = use.index + text.length;
        if (follows.trim() === "(") {
          const call = balanced(code, use.index + text.length - 1);
          labels = topLevelParts(call.inner).map(
            (argument) => /^([A-Za-z_]\w*)\s*:(?!:)/.exec(argument)?.[1] ?? "_",
          );
          end = call.end;
        }
        const trailing = /^\s*\{/.test(code.slice(end)) || follows.trim() === "{";
        const matching = overloads.filter((overload) => fits(overload.params, labels, trailing));
        if (matching.length === 0) {
          problems.push(`${where}: no overload of ${name} takes (${labels.join(":, ")}:)`);
          continue;
        }
        const tried = /\btry[?!]?\s+(?:await\s+)?$/.test(line) || /\btry[?!]?\s/.test(line);
        const awaited = /\bawait\s/.test(line);
        if (matching.every((overload) => overload.throws) && !tried)
          problems.push(`${where}: ${name} throws, called without try`);
        if (matching.every((overload) => !overload.throws) && /\btry[?!]?\s+$/.test(line))
          problems.push(`${where}: ${name} does not throw, called with try`);
        if (matching.every((overload) => overload.async) && !awaited)
          problems.push(`${where}: ${name} is async, called without await`);
        if (matching.every((overload) => !overload.async) && /\bawait\s+$/.test(line))
          problems.push(`${where}: ${name} is not async, called with await`);
      }
    }
    return problems;
  },
);

// SwiftUI's App lifecycle calls no app delegate's link methods, and a cold start's link comes to
// the scene's connection options: an app that follows the README hands the SDK every link only
// if it shows each of these, with the entitlement Universal Links need.
checking(
  "the README hands every link over: SwiftUI, scenes, the app delegate, the Associated Domains entitlement; SKAdNetworkItems said",
  () => {
    const readme = read(join(ios, "README.md"));
    const swift = [...readme.matchAll(/```swift\n([\s\S]*?)```/g)].map((m) => m[1]).join("\n");
    const xml = [...readme.matchAll(/```xml\n([\s\S]*?)```/g)].map((m) => m[1]).join("\n");
    const problems = [];
    for (const [needed, what] of [
      [/\.onOpenURL\s*\{[^}]*ServiceAttribution\.handleDeepLink\(/, "SwiftUI's .onOpenURL"],
      [
        /\.onContinueUserActivity\(NSUserActivityTypeBrowsingWeb\)\s*\{[^}]*ServiceAttribution\.handleUniversalLink\(/,
        "SwiftUI's .onContinueUserActivity(NSUserActivityTypeBrowsingWeb)",
      ],
      [/connectionOptions\.userActivities[^}]*handleUniversalLink\(/, "the cold start's activity"],
      [/connectionOptions\.urlContexts[^}]*handleDeepLink\(/, "the cold start's URL contexts"],
      [/openURLContexts[^}]*handleDeepLink\(/, "scene(_:openURLContexts:)"],
      [
        /continue userActivity: NSUserActivity\)\s*\{[^}]*handleUniversalLink\(/,
        "scene(_:continue:)",
      ],
      [
        /application\(_ application: UIApplication, continue userActivity[\s\S]*?handleUniversalLink\(/,
        "application(_:continue:restorationHandler:)",
      ],
      [
        /application\(_ app: UIApplication, open url: URL[^}]*handleDeepLink\(/,
        "application(_:open:options:)",
      ],
    ])
      if (!needed.test(swift)) problems.push(`the README's Swift does not hand over ${what}`);
    if (
      !/<key>com\.apple\.developer\.associated-domains<\/key>\s*<array>\s*<string>applinks:[\w.-]+<\/string>/.test(
        xml,
      )
    )
      problems.push("the README does not show the Associated Domains entitlement (applinks:)");
    if (!/CFBundleURLTypes/.test(readme))
      problems.push("the README does not name CFBundleURLTypes");
    if (!/`SKAdNetworkItems`/.test(readme))
      problems.push("the README does not say what SKAdNetworkItems is (and is not) for");
    return problems;
  },
);

// Apple rejects an upload that calls a required-reason API its manifests do not declare, and a
// reason declared for an API never called misstates the app's privacy report. The APIs are
// Apple's list (`NSPrivacyAccessedAPITypes`), matched in the SDK's code, comments left out.
checking(
  "the privacy manifest declares exactly the required-reason APIs the SDK's sources call, each with a reason",
  () => {
    const manifest = read(join(ios, "Sources", "ServiceAttribution", "PrivacyInfo.xcprivacy"));
    const code = filesUnder(join(ios, "Sources"), ".swift")
      .map((path) =>
        read(path)
          .replace(/\/\*[\s\S]*?\*\//g, "")
          .replace(/\/\/.*$/gm, "")
          .replace(/"(?:[^"\\\n]|\\.)*"/g, '""'),
      )
      .join("\n");
    const categories = {
      UserDefaults: /\b(?:NS)?UserDefaults\b|@AppStorage\b/,
      FileTimestamp:
        /\b(?:creationDate|modificationDate|contentModificationDate|contentAccessDate|attributeModificationDate|fileModificationDate|addedToDirectoryDate)\w*\b|\b(?:getattrlist|getattrlistbulk|fgetattrlist|getattrlistat|stat|fstat|fstatat|lstat)\s*\(/,
      SystemBootTime: /\bsystemUptime\b|\bmach_absolute_time\s*\(|\bkern\.boottime\b/,
      DiskSpace:
        /\bvolume(?:Available|Total)Capacity\w*\b|\bsystem(?:Free)?Size\b|\b(?:statfs|statvfs|fstatfs|fstatvfs)\s*\(/,
      ActiveKeyboards: /\bactiveInputModes\b/,
    };
    const problems = [];
    for (const [category, pattern] of Object.entries(categories)) {
      const declared = new RegExp(
        `<string>NSPrivacyAccessedAPICategory${category}</string>\\s*<key>NSPrivacyAccessedAPITypeReasons</key>\\s*<array>\\s*<string>[0-9A-F]{4}\\.\\d</string>`,
      ).test(manifest);
      const used = pattern.exec(code);
      if (used && !declared)
        problems.push(
          `the sources call ${used[0].trim()} (${category}), which the manifest does not declare with a reason`,
        );
      if (!used && manifest.includes(`NSPrivacyAccessedAPICategory${category}<`))
        problems.push(`the manifest declares ${category}, which the sources never call`);
    }
    return problems;
  },
);

const passed = results.filter(Boolean).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exitCode = passed === results.length ? 0 : 1;

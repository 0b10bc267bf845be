/**
 * Every test that docs/sdks.md's table ("Listeners, consent and delivery") cites is a test of
 * that SDK, under that name: a Kotlin class and the backticked name of one of its tests (quoted,
 * its start or its end abbreviated with "…"), an XCTest `Class.testName`, an NUnit
 * `Class.Name`, a Dart test or group by its description, an Android-side Robolectric test of the
 * Flutter plugin by its letter. The source files are read as text: no SDK is built or run.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PAGE = "docs/sdks.md";

type Sdk = "Kotlin" | "iOS" | "Flutter" | "Unity";
const SDKS: readonly Sdk[] = ["Kotlin", "iOS", "Flutter", "Unity"];

/** Where each SDK's tests are, as the page's paragraph above the table says. */
const SOURCES: Record<Sdk, string[]> = {
  Kotlin: ["sdk/kotlin/src/test", "sdk/kotlin/consumers"],
  iOS: ["sdk/ios/Tests"],
  Flutter: ["sdk/flutter/test", "sdk/flutter/android/src/test"],
  Unity: ["sdk/unity/Tests~"],
};
/** The Flutter plugin's Android tests that the page names by their letter (`a`, `d2`). */
const LETTERED = "ServiceAttributionPluginTest";

const SKIP = new Set(["build", ".dart_tool", ".gradle", "obj", "bin", "node_modules"]);
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return SKIP.has(name) ? [] : files(path);
    return /\.(kt|java|swift|cs|dart)$/.test(name) ? [path] : [];
  });

/** The page's "…" in a name it cites: any text, none too. */
const ANY = "\u0000";
/** An interpolation (`$entry`, `${…}`) in a Dart test's description: one word, or none. */
const WORD = "\u0001";

/**
 * Whether the name the page cites (`citation`, which may hold ANY) can be a test's name `named`
 * (which may hold WORD): the page's "… through handleDeepLink" is Dart's
 * `'${vector['name']}, through $entry'`, while "stop, start and isPaused…" is not
 * `'$name: as the native SDK sends it'`.
 */
const sameName = (citation: string, named: string): boolean => {
  const seen = new Map<number, boolean>();
  const from = (i: number, j: number): boolean => {
    const key = i * (named.length + 1) + j;
    const known = seen.get(key);
    if (known !== undefined) return known;
    const c = citation[i];
    const n = named[j];
    let result: boolean;
    if (c === undefined && n === undefined) result = true;
    else if (c === ANY) result = from(i + 1, j) || (n !== undefined && from(i, j + 1));
    else if (n === WORD)
      result = from(i, j + 1) || (c !== undefined && /\S/.test(c) && from(i + 1, j));
    else result = c !== undefined && c === n && from(i + 1, j + 1);
    seen.set(key, result);
    return result;
  };
  return from(0, 0);
};

/** A cited name with its "…" read as any text. */
const cited = (name: string) => name.replaceAll("…", ANY);

/**
 * The Dart string literals that begin at `from` (adjacent ones joined, as Dart joins them),
 * each `$name` and `${…}` read as WORD; undefined when the argument is no literal.
 */
const dartString = (text: string, from: number): string | undefined => {
  let i = from;
  let value: string | undefined;
  for (;;) {
    while (/\s/.test(text[i] ?? "")) i++;
    const quote = text[i];
    if (quote !== "'" && quote !== '"') return value;
    value ??= "";
    i++;
    while (i < text.length && text[i] !== quote) {
      const c = text[i] ?? "";
      if (c === "\\") {
        value += text[i + 1] ?? "";
        i += 2;
      } else if (c === "$" && text[i + 1] === "{") {
        i++;
        let depth = 0;
        do {
          if (text[i] === "{") depth++;
          else if (text[i] === "}") depth--;
          i++;
        } while (i < text.length && depth > 0);
        value += WORD;
      } else if (c === "$") {
        i++;
        while (/\w/.test(text[i] ?? "")) i++;
        value += WORD;
      } else {
        value += c;
        i++;
      }
    }
    i++;
  }
};

/** A class of a source file (an extension of one too): its name and its text. */
type Declared = { name: string; text: string };
/** A source file: its path from the root, its text and the classes it declares. */
type Source = { path: string; text: string; classes: Declared[] };
const DECLARATION =
  /^([ \t]*)(?:(?:@\w+(?:\([^)\n]*\))?|public|private|internal|open|final|sealed|partial|static|abstract|data|enum|inner|value|fileprivate)\s+)*(?:class|object|extension|struct|enum|interface)\s+(\w+)/gm;
/**
 * A file's classes, each from its declaration to the next declaration indented no deeper, so
 * that a test is its own class's, not that of another class in the same file.
 */
const classesOf = (file: string, text: string): Declared[] => {
  const found = [...text.matchAll(DECLARATION)].map((m) => ({
    indent: (m[1] ?? "").length,
    name: m[2] ?? "",
    at: m.index ?? 0,
  }));
  const classes = found.map(({ indent, name, at }, i) => {
    const end = found.slice(i + 1).find((next) => next.indent <= indent)?.at ?? text.length;
    return { name, text: text.slice(at, end) };
  });
  // A Kotlin file of top-level functions is cited by its name (`PublicApiShape`).
  const own = basename(file).replace(/\.\w+$/, "");
  return classes.some((c) => c.name === own) ? classes : [...classes, { name: own, text }];
};
const sourcesOf = (sdk: Sdk): Source[] =>
  SOURCES[sdk]
    .flatMap((dir) => files(join(ROOT, dir)))
    .map((file) => {
      const text = readFileSync(file, "utf8");
      return { path: relative(ROOT, file), text, classes: classesOf(file, text) };
    });

const kotlinTests = (text: string) =>
  [...text.matchAll(/\bfun\s+`([^`]+)`/g)].map((m) => m[1] ?? "");
const swiftTests = (text: string) =>
  [...text.matchAll(/\bfunc\s+(test\w*)\s*\(/g)].map((m) => m[1] ?? "");
const csharpTests = (text: string) =>
  [...text.matchAll(/\bpublic\s+(?:async\s+)?(?:void|Task|IEnumerator)\s+(\w+)\s*\(/g)].map(
    (m) => m[1] ?? "",
  );
/** A Dart file's calls `kind(` (test, testWidgets, group) whose description is a literal. */
const dartCalls = (text: string, kinds: string[]) =>
  [...text.matchAll(new RegExp(`\\b(?:${kinds.join("|")})\\(`, "g"))].flatMap((m) => {
    const name = dartString(text, (m.index ?? 0) + m[0].length);
    return name === undefined ? [] : [name];
  });

/** One row of the table: its first cell, and the cell of each SDK. */
type Row = { api: string; cells: Record<Sdk, string> };
/** The table's rows, and the SDKs its header has no column for. */
type Table = { rows: Row[]; missing: Sdk[] };

/** The table whose header begins `| API |`, read by its header's SDK names in any order. */
const readTable = (page: string): Table => {
  const lines = page.split("\n");
  const cellsOf = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, "")
      .split("|")
      .map((cell) => cell.trim());
  const start = lines.findIndex((line) => /^\|\s*API\s*\|/.test(line));
  if (start < 0) return { rows: [], missing: [...SDKS] };
  const header = cellsOf(lines[start] ?? "");
  const column = Object.fromEntries(
    SDKS.map((sdk) => [sdk, header.findIndex((cell) => cell.split(/\s/)[0] === sdk)]),
  ) as Record<Sdk, number>;
  const rows: Row[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const cells = cellsOf(line);
    rows.push({
      api: cells[0] ?? "",
      cells: Object.fromEntries(SDKS.map((sdk) => [sdk, cells[column[sdk]] ?? ""])) as Record<
        Sdk,
        string
      >,
    });
  }
  return { rows, missing: SDKS.filter((sdk) => column[sdk] < 0) };
};

/** What a cell cites after its `test:`: the backticked names, the quoted ones, the keywords. */
type Token =
  | { kind: "code"; text: string }
  | { kind: "quote"; text: string }
  | { kind: "word"; text: string };
const tokensOf = (cell: string): Token[] | undefined => {
  const at = cell.search(/(^|<br>)\s*test:/);
  if (at < 0) return undefined;
  const tests = cell.slice(cell.indexOf("test:", at) + "test:".length);
  return [...tests.matchAll(/`([^`]+)`|"([^"]+)"|\b(Robolectric|groups?)\b|(;)/g)].map((m) => {
    if (m[1] !== undefined) return { kind: "code", text: m[1] };
    if (m[2] !== undefined) return { kind: "quote", text: m[2] };
    return { kind: "word", text: m[3] ?? m[4] ?? "" };
  });
};

/** Each problem with one cell's test references, as "reference: why". */
const problems = (sdk: Sdk, cell: string, sources: Source[]): string[] => {
  const tokens = tokensOf(cell);
  if (tokens === undefined) return [];
  if (tokens.length === 0) return ["test: cites no test"];
  const broken: string[] = [];
  const declaring = (name: string) =>
    sources.flatMap((s) => s.classes.filter((c) => c.name === name));
  const testsOf = (name: string, read: (text: string) => string[]) =>
    declaring(name).flatMap((c) => read(c.text));
  let current: string | undefined;
  switch (sdk) {
    case "Kotlin":
      for (const token of tokens) {
        if (token.kind === "code") {
          current = token.text;
          if (declaring(current).length === 0) broken.push(`\`${current}\`: no such test class`);
        } else if (token.kind === "quote") {
          if (current === undefined) broken.push(`"${token.text}": no class before it`);
          else if (!testsOf(current, kotlinTests).some((t) => sameName(cited(token.text), t))) {
            broken.push(`\`${current}\` "${token.text}": no such test in ${current}`);
          }
        }
      }
      break;
    case "iOS":
    case "Unity": {
      const read = sdk === "iOS" ? swiftTests : csharpTests;
      for (const token of tokens) {
        if (token.kind !== "code") {
          if (token.kind === "quote") broken.push(`"${token.text}": a quoted name, not a method`);
          continue;
        }
        const [left, right] = token.text.split(".");
        const isClass =
          right === undefined &&
          (sdk === "iOS" ? !left?.startsWith("test") : declaring(left ?? "").length > 0);
        if (isClass || right !== undefined) current = left;
        if (isClass) {
          if (declaring(token.text).length === 0) broken.push(`\`${token.text}\`: no such class`);
          continue;
        }
        const method = right ?? left ?? "";
        if (current === undefined) {
          broken.push(`\`${token.text}\`: no such class, and no class before it`);
        } else if (declaring(current).length === 0) broken.push(`\`${token.text}\`: no ${current}`);
        else if (!testsOf(current, read).includes(method)) {
          broken.push(`\`${token.text}\`: no test ${method} in ${current}`);
        }
      }
      break;
    }
    case "Flutter": {
      let mode: "default" | "group" | "lettered" = "default";
      let dartFile: Source | undefined;
      for (const token of tokens) {
        if (token.kind === "word") {
          mode =
            token.text === "Robolectric" ? "lettered" : token.text === ";" ? "default" : "group";
          continue;
        }
        if (token.kind === "quote") {
          mode = "default";
          if (dartFile === undefined) broken.push(`"${token.text}": no Dart file before it`);
          else if (
            !dartCalls(dartFile.text, ["test", "testWidgets"]).some((t) =>
              sameName(cited(token.text), t),
            )
          ) {
            broken.push(`"${token.text}": no such test in ${basename(dartFile.path)}`);
          }
          continue;
        }
        const name = token.text;
        if (name.endsWith(".dart")) {
          mode = "default";
          dartFile = sources.find((s) => basename(s.path) === name);
          if (dartFile === undefined) broken.push(`\`${name}\`: no such Dart test file`);
        } else if (mode === "lettered" && /^[a-z]\d*$/.test(name)) {
          if (!testsOf(LETTERED, kotlinTests).some((t) => t.startsWith(`${name} `))) {
            broken.push(`Robolectric \`${name}\`: no test ${name} in ${LETTERED}`);
          }
        } else if (mode === "group") {
          if (dartFile === undefined) broken.push(`group \`${name}\`: no Dart file before it`);
          else if (!dartCalls(dartFile.text, ["group"]).some((g) => sameName(cited(name), g))) {
            broken.push(`group \`${name}\`: no such group in ${basename(dartFile.path)}`);
          }
        } else if (declaring(name).length === 0 || !/Test$/.test(name)) {
          broken.push(`\`${name}\`: no such test class of the Android side`);
        }
      }
      break;
    }
  }
  return broken;
};

/** A row's first cell, cut short enough to read in a failure. */
const label = (api: string) => (api.length > 60 ? `${api.slice(0, 60).trimEnd()}…` : api);

describe(`the tests ${PAGE} cites`, () => {
  const { rows, missing } = readTable(readFileSync(join(ROOT, PAGE), "utf8"));

  it("finds the table, its four SDK columns and the tests its cells cite", () => {
    expect(missing, "SDKs with no column in the table").toEqual([]);
    expect(rows.length).toBeGreaterThan(20);
    for (const sdk of SDKS) {
      const citing = rows.filter((row) => (tokensOf(row.cells[sdk])?.length ?? 0) > 0);
      expect(citing.length, `${sdk}: cells that cite tests`).toBeGreaterThan(5);
    }
    for (const dirs of Object.values(SOURCES)) {
      for (const dir of dirs) expect(existsSync(join(ROOT, dir)), dir).toBe(true);
    }
  });

  it.each(SDKS)("%s: every test a cell cites is one of the SDK's tests", (sdk) => {
    const sources = sourcesOf(sdk);
    const broken = rows.flatMap((row) =>
      problems(sdk, row.cells[sdk], sources).map(
        (problem) => `row "${label(row.api)}", ${sdk} column: ${problem}`,
      ),
    );
    expect(broken).toEqual([]);
  });

  it("reads the SDK columns by their header, in whatever order they come", () => {
    const table = readTable(
      [
        "| API | Unity (`ServiceSDK`) | iOS | Kotlin | Flutter |",
        "| --- | --- | --- | --- | --- |",
        "| stop | u<br>test: `U` | i | k | f |",
      ].join("\n"),
    );
    expect(table.missing).toEqual([]);
    expect(table.rows).toEqual([
      { api: "stop", cells: { Kotlin: "k", iOS: "i", Flutter: "f", Unity: "u<br>test: `U`" } },
    ]);
  });

  it('reads the page\'s "…" as any text, a Dart interpolation as one word', () => {
    expect(sameName(cited("stop, start and isStopped…"), "stop, start and isStopped call it")).toBe(
      true,
    );
    expect(sameName(cited("… through handleDeepLink"), `${WORD}, through ${WORD}`)).toBe(true);
    expect(sameName(cited("stop, start and isPaused…"), `${WORD}: as it sends it`)).toBe(false);
    expect(sameName(cited("… 30 hours ahead …"), "a clock 30 hours ahead is taken")).toBe(true);
    expect(sameName(cited("stop, start and isStopped…"), "start, stop and isStopped")).toBe(false);
    expect(sameName("a test", "a test of more")).toBe(false);
    const dart = `test('a \\'b\\' ' "c $d $\{e['f']}", () {})`;
    expect(dartString(dart, 5)).toBe(`a 'b' c ${WORD} ${WORD}`);
    expect(dartString("test(vector['name'] as String, () {})", 5)).toBeUndefined();
  });
});

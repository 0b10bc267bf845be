/**
 * Every relative link of the README and the pages under docs/ resolves: its file or folder
 * exists, and its `#anchor` names a heading of the page it points to (GitHub's slugs). So does
 * every `docs/<page>.md#anchor` a code comment cites.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** Markdown without its fenced and inline code, where a bracket is no link. */
const prose = (text: string) => text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

const anchorsOf = (path: string): Set<string> => {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of readFileSync(path, "utf8")
    .replace(/```[\s\S]*?```/g, "")
    .split("\n")) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
};

const linksOf = (text: string) =>
  [...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? "");

describe("links in the README and docs/", () => {
  it("finds the pages", () => {
    expect(PAGES).toContain("README.md");
    expect(PAGES.length).toBeGreaterThan(5);
  });

  it.each(PAGES)("%s: every relative link resolves", (page) => {
    const from = join(ROOT, page);
    const broken: string[] = [];
    for (const link of linksOf(readFileSync(from, "utf8"))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
      const [path = "", anchor] = link.split("#");
      const target = path === "" ? from : resolve(dirname(from), decodeURI(path));
      if (!existsSync(target)) {
        broken.push(`${link}: no ${relative(ROOT, target)}`);
        continue;
      }
      if (anchor !== undefined && target.endsWith(".md") && !anchorsOf(target).has(anchor)) {
        broken.push(`${link}: no heading #${anchor} in ${relative(ROOT, target)}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("slugs headings as GitHub does", () => {
    expect(slug("Why dynalite for the embedded DynamoDB")).toBe(
      "why-dynalite-for-the-embedded-dynamodb",
    );
    expect(slug("Links, the link host and touches")).toBe("links-the-link-host-and-touches");
    expect(slug("`POST /v1/installs`")).toBe("post-v1installs");
  });

  it("resolves every docs/ page and heading that code cites", () => {
    const SOURCE = /\.(ts|tsx|mjs|kt|swift|cs|dart)$/;
    const SKIP = new Set(["node_modules", "build", ".dart_tool", ".gradle", "obj", "bin"]);
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) return SKIP.has(name) ? [] : files(path);
        return SOURCE.test(name) ? [path] : [];
      });
    const broken: string[] = [];
    for (const file of ["src", "lib", "lambdas", "bench", "sdk", "dashboard"].flatMap((d) =>
      files(join(ROOT, d)),
    )) {
      for (const [, page = "", anchor] of readFileSync(file, "utf8").matchAll(
        /\bdocs\/([\w-]+\.md)(?:#([\w-]+))?/g,
      )) {
        const target = join(ROOT, "docs", page);
        if (!existsSync(target)) broken.push(`${relative(ROOT, file)}: no docs/${page}`);
        else if (anchor && !anchorsOf(target).has(anchor)) {
          broken.push(`${relative(ROOT, file)}: no heading #${anchor} in docs/${page}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

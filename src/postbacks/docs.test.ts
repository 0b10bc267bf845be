/**
 * docs/postbacks.md against the code: its macro table is the one MACROS writes, its catalog
 * table says what PARTNERS says, and the webhook verification it shows in Node, Python and Go
 * accepts the service's signatures and refuses altered, stale and foreign ones (each run when
 * its runtime is on the machine; Node always is).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { docPage } from "../../test/support/doc-page.ts";
import { PARTNERS, type PartnerTemplate } from "./partners.ts";
import { signatureHeaderValue } from "./signing.ts";
import { macroTableMarkdown } from "./templates.ts";

const DOC = docPage("postbacks.md");
const PAGE = DOC.text;
const snippet = (language: string) => DOC.snippet(language);

const between = (begin: string, end: string): string => {
  const from = PAGE.indexOf(begin);
  const to = PAGE.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/postbacks.md lacks ${begin} … ${end}`);
  return PAGE.slice(from + begin.length, to).trim();
};

describe("docs/postbacks.md", () => {
  it("shows the macro table MACROS writes", () => {
    expect(between("<!-- macros:begin -->", "<!-- macros:end -->")).toBe(macroTableMarkdown());
  });

  it("shows each catalog partner as PARTNERS has it, and links its sources", () => {
    const rows = between("<!-- catalog:begin -->", "<!-- catalog:end -->").split("\n").slice(2);
    const catalog: readonly PartnerTemplate[] = PARTNERS;
    expect(rows).toHaveLength(catalog.length);
    for (const partner of catalog) {
      const values = partner.values
        .map((value) => `\`${value.name}\`${value.secret ? " (secret)" : ""}`)
        .join(", ");
      const names = partner.eventNames
        ? partner.eventNames.map((name) => `\`${name}\``).join(", ")
        : "any name";
      expect(rows).toContain(
        `| \`${partner.id}\` | ${partner.name} | ${partner.method} | ${partner.installs} | ${values} | ${names} |`,
      );
      for (const source of partner.sources) expect(PAGE).toContain(source.split(" ")[0]);
    }
  });
});

describe("the webhook verification shown in docs/postbacks.md", () => {
  const secret = "whsec_docs_example_secret_0123456789";
  const body = '{"type":"install","service_id":"3f2b9c1e","media_source":"tiktokglobal_int"}';
  const sent = new Date(1_793_527_200_000);
  const header = signatureHeaderValue([secret], body, sent);
  const t = Math.floor(sent.getTime() / 1000);
  /** A good delivery, then an altered body, a stale one, a foreign secret, no header. */
  const CASES = [
    { secret, header, body, now: t + 10 },
    { secret, header, body: body.replace("tiktok", "meta"), now: t },
    { secret, header, body, now: t + 301 },
    { secret: "whsec_someone_else_entirely_000000000", header, body, now: t },
    { secret, header: "", body, now: t },
  ];
  const EXPECTED = [true, false, false, false, false];
  const workdir = mkdtempSync(join(tmpdir(), "postbacks-docs-"));
  afterAll(() => rmSync(workdir, { recursive: true, force: true }));

  const available = (command: string, args: string[]): boolean =>
    spawnSync(command, args, { stdio: "ignore" }).status === 0;

  it("Node", () => {
    const harness = `
const cases = JSON.parse(process.env.CASES);
console.log(JSON.stringify(cases.map((c) =>
  verifyAttributionSignature(c.secret, c.header, Buffer.from(c.body, "utf8"), c.now * 1000))));
`;
    const output = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", `${snippet("node")}\n${harness}`],
      { env: { ...process.env, CASES: JSON.stringify(CASES) }, encoding: "utf8" },
    );
    expect(JSON.parse(output)).toEqual(EXPECTED);
  });

  it.runIf(available("python3", ["--version"]))("Python", () => {
    const harness = `
import json, os
cases = json.loads(os.environ["CASES"])
print(json.dumps([verify_attribution_signature(c["secret"], c["header"], c["body"].encode(), c["now"]) for c in cases]))
`;
    const output = execFileSync("python3", ["-c", `${snippet("python")}\n${harness}`], {
      env: { ...process.env, CASES: JSON.stringify(CASES) },
      encoding: "utf8",
    });
    expect(JSON.parse(output)).toEqual(EXPECTED);
  });

  it.runIf(available("go", ["version"]))("Go", () => {
    writeFileSync(
      join(workdir, "verify.go"),
      snippet("go").replace(/^package attribution$/m, "package main"),
    );
    writeFileSync(
      join(workdir, "main.go"),
      `package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

func main() {
	var cases []struct {
		Secret, Header, Body string
		Now                  int64
	}
	if err := json.Unmarshal([]byte(os.Getenv("CASES")), &cases); err != nil {
		panic(err)
	}
	results := []bool{}
	for _, c := range cases {
		results = append(results, VerifyAttributionSignature(c.Secret, c.Header, []byte(c.Body), time.Unix(c.Now, 0)))
	}
	out, _ := json.Marshal(results)
	fmt.Println(string(out))
}
`,
    );
    const output = execFileSync("go", ["run", "verify.go", "main.go"], {
      cwd: workdir,
      env: { ...process.env, CASES: JSON.stringify(CASES), GOTOOLCHAIN: "local", GOFLAGS: "" },
      encoding: "utf8",
    });
    expect(JSON.parse(output)).toEqual(EXPECTED);
  });
});

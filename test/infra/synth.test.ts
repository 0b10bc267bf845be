/**
 * The app as `cdk synth` builds it: real esbuild bundles of the Lambda entries and the
 * cdk-nag plugin, which fails synthesis on any unacknowledged finding.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Bucket } from "aws-cdk-lib/aws-s3";
import type { CloudAssembly } from "aws-cdk-lib/cx-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, STACK_ID } from "../../lib/app.ts";
import { ROUTES } from "../../src/http/routes.ts";

let outdir: string;
let assembly: CloudAssembly;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), "attribution-synth-"));
  assembly = createApp({ outdir }).app.synth();
});

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

const isJson = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const lambdaBundles = (): { id: string; code: string }[] => {
  const template: { Resources: Record<string, { Type: string; Properties: Json }> } =
    assembly.getStackByName(STACK_ID).template;
  return Object.entries(template.Resources)
    .filter(([, r]) => r.Type === "AWS::Lambda::Function")
    .map(([id, r]) => {
      // The asset's key is `<hash>.zip`; its staged directory is `asset.<hash>`.
      const code = r.Properties.Code;
      const key = isJson(code) ? code.S3Key : undefined;
      if (typeof key !== "string") throw new Error(`${id} has no asset`);
      const dir = join(outdir, `asset.${key.replace(/\.zip$/, "")}`);
      return { id, code: readFileSync(join(dir, "index.mjs"), "utf8") };
    });
};

describe("cdk synth", () => {
  it("runs the cdk-nag plugin: an unacknowledged finding fails synthesis", () => {
    const probeOut = mkdtempSync(join(tmpdir(), "attribution-nag-"));
    try {
      const { app, stack } = createApp({
        outdir: probeOut,
        context: { "aws:cdk:bundling-stacks": [] },
      });
      new Bucket(stack, "Unprotected");
      expect(() => app.synth()).toThrow(/AwsSolutions-S1/);
    } finally {
      rmSync(probeOut, { recursive: true, force: true });
    }
  });

  it("synthesizes with no unacknowledged cdk-nag finding", () => {
    const report = JSON.parse(readFileSync(join(outdir, "validation-report.json"), "utf8"));
    const failures = report.pluginReports.filter(
      (r: { conclusion: string }) => r.conclusion !== "success",
    );
    expect(failures).toEqual([]);
  });

  it("bundles each function as one ESM file exporting handler, AWS SDK included", () => {
    const bundles = lambdaBundles();
    // One function per route, and the authorizer.
    expect(bundles).toHaveLength(ROUTES.length + 1);
    for (const { id, code } of bundles) {
      expect(code, id).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
      expect(code, id).not.toMatch(/from\s*["']@aws-sdk\//);
      expect(code, id).toContain("createRequire");
    }
  });

  it("writes the template where the CLI expects it", () => {
    expect(existsSync(join(outdir, `${STACK_ID}.template.json`))).toBe(true);
  });
});

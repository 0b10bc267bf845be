/**
 * The run's one folder for CDK's synths: each test file's own (./cdk-outdir.test-support.ts)
 * and the shared stack's (./stack.test-support.ts) are made in it, and it is removed when the
 * run ends, however a worker's process ended.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    cdkOutRoot: string;
  }
}

export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), "cdk.out-run-"));
  project.provide("cdkOutRoot", root);
  return () => rmSync(root, { recursive: true, force: true });
}

/**
 * Each test file's CDK synths go to one folder of its own, removed after the file. An App given
 * no `outdir` makes a new folder in the system's temporary folder at each synth and leaves it
 * there: a test run would leave gigabytes of them behind.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const outdir = mkdtempSync(join(tmpdir(), "cdk.out-"));
// What `new App()` reads when it is given no outdir (aws-cdk-lib's cx-api OUTDIR_ENV).
process.env.CDK_OUTDIR = outdir;

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

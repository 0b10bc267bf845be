/**
 * Each test file's CDK synths go to one folder of its own, removed after the file. An App given
 * no `outdir` makes a new folder in the system's temporary folder at each synth and leaves it
 * there: a test run would leave gigabytes of them behind. The folder is in the run's
 * (./cdk-outdir.global-setup.ts), which goes at the run's end in any case.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, inject } from "vitest";

const outdir = mkdtempSync(join(inject("cdkOutRoot"), "file-"));
// What `new App()` reads when it is given no outdir (aws-cdk-lib's cx-api OUTDIR_ENV).
process.env.CDK_OUTDIR = outdir;

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

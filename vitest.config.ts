import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/** The test files under `dir`, as paths from the project's root. */
const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : testFiles(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });

// The browser tests need Chromium, which a fresh clone lacks: npm run test:browser runs them.
const TEST_FILES = ["src", "lib", "lambdas", "test"]
  .flatMap(testFiles)
  .filter((file) => !file.startsWith("test/browser/"));

/**
 * The files that replace a module with `vi.mock`: each runs in a fresh module registry of its
 * own, where the mock takes the module's place before anything imports it. Every other file
 * shares its worker's registry with the files that ran there before (a module is loaded once
 * per worker, not once per file), which halves the suite's time on two cores. The projects name
 * their files, and set no `exclude` of their own, so that a run's `--exclude` still applies.
 */
const MODULE_MOCKING = TEST_FILES.filter((file) => readFileSync(file, "utf8").includes("vi.mock("));
const SHARED = TEST_FILES.filter((file) => !MODULE_MOCKING.includes(file));

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A wait for something that is coming: given the time a machine busy with other builds
    // may take, since a test that passes only on an idle machine fails by chance.
    expect: { poll: { timeout: 10_000 } },
    pool: "forks",
    // Both cores: most files wait on a service, a child process or the disk much of the time.
    maxWorkers: 2,
    globalSetup: ["lib/cdk-outdir.global-setup.ts"],
    setupFiles: ["lib/cdk-outdir.test-support.ts", "test/support/seeded-properties.setup.ts"],
    // The SDK's notice about its 2027 releases needing Node 22 is noise in test output.
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      // The services the tests start never fetch the ECB's feed: nothing reaches the internet.
      ATTRIBUTION_FX_FEED_URL: "off",
      // CDK's built-in CloudFormation checks, which only warn, are left to `cdk synth`: they
      // cost seconds a synthesis, and the suite synthesizes the stack dozens of times. cdk-nag,
      // the plugin that fails a synthesis, still runs wherever the app registers it.
      CDK_VALIDATION: "false",
    },
    projects: [
      { extends: true, test: { name: "shared", include: SHARED, isolate: false } },
      { extends: true, test: { name: "isolated", include: MODULE_MOCKING } },
    ],
  },
});

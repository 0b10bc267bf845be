import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "lib/**/*.test.ts", "lambdas/**/*.test.ts", "test/**/*.test.ts"],
    // The browser tests need Chromium, which a fresh clone lacks: npm run test:browser runs them.
    exclude: [...configDefaults.exclude, "test/browser/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    setupFiles: ["lib/cdk-outdir.test-support.ts"],
    // The SDK's notice about its 2027 releases needing Node 22 is noise in test output.
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      // The services the tests start never fetch the ECB's feed: nothing reaches the internet.
      ATTRIBUTION_FX_FEED_URL: "off",
    },
  },
});

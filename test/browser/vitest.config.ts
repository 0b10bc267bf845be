/**
 * The dashboard's browser tests (test/browser/run.sh): the embedded runtime and the machine's
 * Chromium, one file at a time, with timeouts that allow for a shared, slow machine. The
 * project's own `npm test` leaves them out: a fresh clone has no browser.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/browser/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: "forks",
    fileParallelism: false,
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      // Nothing the tests start reaches the internet.
      ATTRIBUTION_FX_FEED_URL: "off",
    },
  },
});

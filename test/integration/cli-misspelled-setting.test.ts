/**
 * A setting misspelled in the environment is read by nothing, so the command runs with the
 * default: it says so first, naming the setting meant, and goes on.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { START_FLAGS } from "../support/service.ts";

const CLI = new URL("../../bin/attribution.js", import.meta.url).pathname;
const run = promisify(execFile);

describe("a misspelled setting", { timeout: 60_000 }, () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "attribution-misspelled-"));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("is named with the setting meant, and the command still runs", async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      [...START_FLAGS, CLI, "apps", "list", "--data-dir", dataDir],
      {
        env: {
          ...process.env,
          ATTRIBUTION_FX_FEED_URL: "off",
          ATTRIBUTION_DATADIR: "/nowhere",
          ATTRIBUTION_API_KYE: "key",
        },
        timeout: 30_000,
        killSignal: "SIGKILL",
      },
    );
    expect(stderr).toContain(
      "ATTRIBUTION_DATADIR is no setting of this service and is ignored: did you mean ATTRIBUTION_DATA_DIR?",
    );
    expect(stderr).toContain(
      "ATTRIBUTION_API_KYE is no setting of this service and is ignored: did you mean ATTRIBUTION_API_KEY?",
    );
    expect(stdout).toContain("No apps yet");
  });

  it("is not said of the settings themselves", async () => {
    const { stderr } = await run(
      process.execPath,
      [...START_FLAGS, CLI, "apps", "list", "--data-dir", dataDir],
      {
        env: { ...process.env, ATTRIBUTION_FX_FEED_URL: "off", ATTRIBUTION_API_KEY: "key" },
        timeout: 30_000,
        killSignal: "SIGKILL",
      },
    );
    expect(stderr).not.toContain("is no setting");
  });
});

/**
 * The flags of `attribution start` and of the commands that call the service, given wrong: each
 * is refused with code 1, naming the flag, before anything is opened, listened on or asked.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { START_FLAGS } from "../support/service.ts";

const CLI = new URL("../../bin/attribution.js", import.meta.url).pathname;
const run = promisify(execFile);

describe("the command line's flags given wrong", { timeout: 60_000 }, () => {
  /** Where the commands run: a value taken as "this folder" would fill it. */
  let cwd: string;
  let dataDir: string;

  beforeEach(async () => {
    cwd = await mkdtemp(join(tmpdir(), "attribution-options-cwd-"));
    dataDir = await mkdtemp(join(tmpdir(), "attribution-options-data-"));
  });

  afterEach(async () => {
    await rm(cwd, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The command, killed if it is still up after 30 s, which fails the test. */
  const attribution = (args: readonly string[], env: Record<string, string> = {}) =>
    run(process.execPath, [...START_FLAGS, CLI, ...args], {
      cwd,
      env: { ...process.env, ATTRIBUTION_FX_FEED_URL: "off", ...env },
      timeout: 30_000,
      killSignal: "SIGKILL",
    });

  it("refuses an empty --host, which would listen on every address of the machine", async () => {
    await expect(
      attribution([
        "start",
        "--host",
        "",
        "--port",
        "0",
        "--link-port",
        "0",
        "--data-dir",
        dataDir,
      ]),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        "option '--host <host>' argument '' is invalid. must not be empty.",
      ),
    });
  });

  it("refuses an empty --data-dir, which would be the folder the command runs in", async () => {
    await expect(attribution(["apps", "list", "--data-dir", ""])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("option '--data-dir <path>' argument '' is invalid."),
    });
    await expect(
      attribution(["start", "--port", "0", "--link-port", "0", "--data-dir", " "]),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("must not be empty.") });
    expect(await readdir(cwd)).toEqual([]);
  });

  it("refuses one port for both listeners, naming both flags rather than another program", async () => {
    await expect(
      attribution(["start", "--port", "18999", "--link-port", "18999", "--data-dir", dataDir]),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        "The API and the link host cannot share port 18999: give one of them another with --port (ATTRIBUTION_PORT) or --link-port (ATTRIBUTION_LINK_PORT).",
      ),
    });
  });

  it("says what --url must be when ATTRIBUTION_URL is no URL, and refuses an empty one", async () => {
    const exportTo = ["export", "--since", "2026-11-01", "-o", join(cwd, "events.csv")];
    await expect(
      attribution([...exportTo, "--key", "srv_x"], { ATTRIBUTION_URL: "127.0.0.1:8787" }),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        `--url must be the service's http or https address: "127.0.0.1:8787"`,
      ),
    });
    // Empty, it would be the service running on the data folder, which it does not say.
    await expect(
      attribution([...exportTo, "--key", "srv_x", "--url", "", "--data-dir", dataDir]),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("must not be empty.") });
  });
  it("takes links create's --landing-page as links update takes it, on or off, and refuses any other", async () => {
    const create = ["links", "create", "--app-id", "com.example.none", "--media-source", "x"];
    // Read as the flag's value, not a stray argument: the command goes on to the app.
    for (const state of ["on", "off"]) {
      await expect(
        attribution([...create, "--landing-page", state, "--data-dir", dataDir]),
      ).rejects.toMatchObject({
        code: 1,
        stderr: "App com.example.none does not exist.\n",
      });
    }
    await expect(
      attribution([...create, "--landing-page", "maybe", "--data-dir", dataDir]),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        "option '--landing-page [state]' argument 'maybe' is invalid. Allowed choices are on, off.",
      ),
    });
  });
});

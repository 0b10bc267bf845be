/**
 * What the command line refuses or reports: days that are none, a service that does not answer,
 * an app that does not exist.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { unreachable } from "../unreachable.ts";
import { exportCommand, parseSince } from "./export.ts";
import { listKeysCommand } from "./keys.ts";
import { postbackLogCommand } from "./partners.ts";
import { rangeOf } from "./skadnetwork.ts";

describe("the command line's days", () => {
  it("takes --since as a day, an ISO 8601 time or Unix seconds, and no day Date would roll over", () => {
    expect(parseSince("2026-11-01")).toBe(Date.UTC(2026, 10, 1) / 1000);
    expect(parseSince("2026-11-01T12:00:00Z")).toBe(Date.UTC(2026, 10, 1, 12) / 1000);
    expect(parseSince("1790000000")).toBe(1_790_000_000);
    for (const value of ["2026-02-30", "2026-02-30T10:00:00Z", "2026-13-01", "yesterday"]) {
      expect(() => parseSince(value), value).toThrow(/--since must be a date/);
    }
  });

  it("takes a --from and --to range of real days, --to not before --from", () => {
    expect(rangeOf("2026-11-01", "2026-11-01")).toEqual({
      from: new Date("2026-11-01T00:00:00.000Z"),
      to: new Date("2026-11-02T00:00:00.000Z"),
    });
    expect(() => rangeOf("2026-02-30", "2026-03-01")).toThrow("--from: must be a UTC day");
    expect(() => rangeOf("2026-11-29", "2026-11-01")).toThrow("--to: must be on or after --from");
  });
});

/** The address of a port just freed: nothing listens there. */
const unanswered = async (): Promise<string> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
};

describe("a service that does not answer", () => {
  it("is named with its address, the socket's code and the likely cause", async () => {
    const url = await unanswered();
    const error = await fetch(`${url}/v1/costs`).catch((caught: unknown) => caught);
    expect(unreachable(url, error).message).toBe(
      `The service at ${url} did not answer (ECONNREFUSED): is \`attribution start\` running, and is --url its address?`,
    );
  });

  it("fails an export that says where it looked, and leaves no file behind, in every way a format is written", async () => {
    const url = await unanswered();
    const dir = await mkdtemp(join(tmpdir(), "export-unanswered-"));
    try {
      for (const format of ["json", "csv", "parquet"] as const) {
        const output = join(dir, `out.${format}`);
        await expect(
          exportCommand({
            url,
            key: "srv_x",
            since: 0,
            format,
            output,
            progress: false,
          }),
        ).rejects.toThrow(/did not answer \(ECONNREFUSED\): is `attribution start` running/);
        expect(existsSync(output), format).toBe(false);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("a command about an app that does not exist", () => {
  it("says so, where a listing would have said there is nothing", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "unknown-app-"));
    try {
      await expect(listKeysCommand({ appId: "com.example.none", dataDir })).rejects.toThrow(
        "App com.example.none does not exist.",
      );
      await expect(postbackLogCommand({ appId: "com.example.none", dataDir })).rejects.toThrow(
        "App com.example.none does not exist.",
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

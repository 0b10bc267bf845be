/**
 * What the command line refuses or reports: days that are none, a service that does not answer,
 * an app that does not exist.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { SNAPSHOT_HEADER, SNAPSHOT_ROWS_HEADER } from "../../export/paging.ts";
import { unreachable } from "../unreachable.ts";
import { importCostsCommand } from "./costs.ts";
import { exportCommand, parseSince } from "./export.ts";
import { listKeysCommand } from "./keys.ts";
import { setLinkDisabledCommand, updateLinkCommand } from "./links.ts";
import { postbackLogCommand, removePostbackCommand } from "./partners.ts";
import { importRatesCommand } from "./rates.ts";
import { rangeOf } from "./skadnetwork.ts";

describe("the command line's days", () => {
  it("takes --since as a day, an ISO 8601 time or Unix seconds, and no day Date would roll over", () => {
    expect(parseSince("2026-11-01")).toBe(Date.UTC(2026, 10, 1) / 1000);
    expect(parseSince("2026-11-01T12:00:00Z")).toBe(Date.UTC(2026, 10, 1, 12) / 1000);
    expect(parseSince("1790000000")).toBe(1_790_000_000);
    // A time without an offset is UTC, wherever the command runs.
    const zone = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      expect(parseSince("2026-11-01T12:00:00")).toBe(Date.UTC(2026, 10, 1, 12) / 1000);
      expect(parseSince("2026-11-01T12:00")).toBe(Date.UTC(2026, 10, 1, 12) / 1000);
      expect(parseSince("2026-11-01T12:00:00-05:00")).toBe(Date.UTC(2026, 10, 1, 17) / 1000);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    for (const value of ["2026-02-30", "2026-02-30T10:00:00Z", "2026-13-01", "yesterday"]) {
      expect(() => parseSince(value), value).toThrow(/--since must be a date/);
    }
  });

  it("reads a --since time with a space, or with no seconds or offset, as UTC in any zone, and refuses what is no ISO 8601 time", () => {
    const zone = process.env.TZ;
    try {
      // Zones on both sides of UTC, one of them with a half hour: none may move the time.
      for (const tz of ["America/New_York", "Asia/Kolkata", "Pacific/Auckland"]) {
        process.env.TZ = tz;
        const at = (hours: number, minutes = 0, seconds = 0) =>
          Date.UTC(2026, 10, 1, hours, minutes, seconds) / 1000;
        expect(parseSince("2026-11-01 10:00"), tz).toBe(at(10));
        expect(parseSince("2026-11-01 10:00:30"), tz).toBe(at(10, 0, 30));
        expect(parseSince("2026-11-01 10:00:30.999"), tz).toBe(at(10, 0, 30));
        expect(parseSince("2026-11-01T10:00:30.5Z"), tz).toBe(at(10, 0, 30));
        expect(parseSince("2026-11-01 10:00+02:00"), tz).toBe(at(8));
        expect(parseSince("2026-11-01T10:00:00+0530"), tz).toBe(at(4, 30));
        expect(parseSince("2026-11-01T10:00:00-03"), tz).toBe(at(13));
        expect(parseSince("2026-11-01t10:00z"), tz).toBe(at(10));
        expect(parseSince("2026-11-01"), tz).toBe(at(0));
        for (const value of [
          "Nov 1 2026",
          "November 1, 2026 10:00",
          "2026/11/01",
          "11/01/2026",
          "2026-11-01 10",
          "2026-11-01T10:00:00 GMT",
          "2026-11-01T25:00",
          "2026-11-01T10:60",
          "2026-11-01T10:00:61",
          "2026-11-01T10:00+24:00",
          "2026-11-01  10:00",
          " 2026-11-01",
          "2026-11-1",
          "",
          "-1",
          "1.5",
        ]) {
          expect(() => parseSince(value), `${tz} ${value}`).toThrow(
            /^--since must be a date \(2026-11-01\), an ISO 8601 time/,
          );
        }
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
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

describe("an export whose -o names a folder", () => {
  it("is refused before the service is asked, in every way a format is written", async () => {
    let asked = 0;
    const server = createHttpServer((_request, response) => {
      asked += 1;
      response.statusCode = 500;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const dir = await mkdtemp(join(tmpdir(), "export-to-folder-"));
    try {
      for (const format of ["json", "csv", "xlsx", "parquet"] as const) {
        for (const output of [dir, `${dir}/`]) {
          await expect(
            exportCommand({
              url: `http://127.0.0.1:${port}`,
              key: "srv_x",
              since: 0,
              format,
              output,
              progress: false,
            }),
          ).rejects.toThrow(`Cannot write ${output}: it is a folder; name a file in it with -o.`);
        }
      }
      expect(asked).toBe(0);
    } finally {
      server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("a parquet export whose pages cannot be joined", () => {
  it("fails and leaves no file behind", async () => {
    const dir = await mkdtemp(join(tmpdir(), "export-unjoined-"));
    // Two pages of one snapshot whose columns differ, as no service sends: the join refuses them.
    const duckdb = await DuckDBInstance.create(":memory:");
    const connection = await duckdb.connect();
    const pages = [join(dir, "a.parquet"), join(dir, "b.parquet")];
    await connection.run(`COPY (SELECT 1 AS a) TO '${pages[0]}' (FORMAT parquet)`);
    await connection.run(`COPY (SELECT 'x' AS b) TO '${pages[1]}' (FORMAT parquet)`);
    connection.closeSync();
    duckdb.closeSync();
    const server = createHttpServer(async (request, response) => {
      const offset = Number(new URL(request.url ?? "/", "http://x").searchParams.get("offset"));
      response.writeHead(200, {
        "content-type": "application/vnd.apache.parquet",
        [SNAPSHOT_HEADER]: "snap-1",
        [SNAPSHOT_ROWS_HEADER]: "2",
      });
      response.end(await readFile(pages[offset] ?? ""));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const output = join(dir, "out.parquet");
    try {
      await expect(
        exportCommand({
          url: `http://127.0.0.1:${port}`,
          key: "srv_x",
          since: 0,
          format: "parquet",
          output,
          pageSize: 1,
          progress: false,
        }),
      ).rejects.toThrow();
      expect(existsSync(output)).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
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
      // Those that name something of the app too: the app is what is missing.
      await expect(
        updateLinkCommand({
          appId: "com.example.none",
          deeplinkId: "abc123",
          landingPage: "on",
          dataDir,
        }),
      ).rejects.toThrow("App com.example.none does not exist.");
      for (const disabled of [true, false]) {
        await expect(
          setLinkDisabledCommand({
            appId: "com.example.none",
            deeplinkId: "abc123",
            disabled,
            dataDir,
          }),
        ).rejects.toThrow("App com.example.none does not exist.");
      }
      for (const webhook of [false, true]) {
        await expect(
          removePostbackCommand({ appId: "com.example.none", configId: "foo", webhook, dataDir }),
        ).rejects.toThrow("App com.example.none does not exist.");
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe("a file a command reads that is not there", () => {
  it("is named as the command was given it, with why, before anything is sent or stored", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "command-errors-files-"));
    try {
      const missing = join(dataDir, "nope.csv");
      await expect(importCostsCommand({ file: missing, dryRun: true })).rejects.toThrow(
        `--file ${missing}: ENOENT: no such file or directory`,
      );
      await expect(importCostsCommand({ file: dataDir, dryRun: true })).rejects.toThrow(
        `--file ${dataDir}: EISDIR`,
      );
      await expect(importRatesCommand({ file: missing, dataDir })).rejects.toThrow(
        `${missing}: ENOENT: no such file or directory`,
      );
      await expect(importRatesCommand({ file: dataDir, dataDir })).rejects.toThrow(
        `${dataDir}: EISDIR`,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

/**
 * What an export leaves at its -o path when it does not finish: the file that was there before,
 * untouched, and nothing else beside it; and where it asks for pages below a --url.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { EXPORT_FORMATS } from "../../export/formats/names.ts";
import { SNAPSHOT_HEADER, SNAPSHOT_ROWS_HEADER } from "../../export/paging.ts";
import { exportCommand } from "./export.ts";

const EARLIER = "the export of last week, complete\n";

/** A service on a free port; `handle` answers each request. */
const serve = async (handle: (request: IncomingMessage, response: ServerResponse) => void) => {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
};

const queryOf = (request: IncomingMessage) => new URL(request.url ?? "/", "http://x");

describe("an export that fails part of the way", () => {
  let dir: string;
  let parquetPage: Buffer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "export-output-"));
    const duckdb = await DuckDBInstance.create(":memory:");
    const connection = await duckdb.connect();
    const page = join(dir, "page.parquet");
    await connection.run(`COPY (SELECT 1 AS a UNION ALL SELECT 2) TO '${page}' (FORMAT parquet)`);
    connection.closeSync();
    duckdb.closeSync();
    parquetPage = await readFile(page);
    await rm(page);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps the earlier file at the path, and leaves no temporary file, in every format", async () => {
    // The first page whole; the connection then drops in the middle of the second (a json
    // page, which every other format is made from, in the middle of the first).
    const service = await serve((request, response) => {
      const query = queryOf(request);
      const format = query.searchParams.get("format");
      const offset = Number(query.searchParams.get("offset"));
      response.writeHead(200, { [SNAPSHOT_HEADER]: "snap-1", [SNAPSHOT_ROWS_HEADER]: "6" });
      if (format === "json") {
        response.write('{"data": [');
        response.socket?.destroy();
      } else if (offset > 0) {
        response.write(format === "parquet" ? parquetPage.subarray(0, 20) : "c,d\n3,4\n");
        response.socket?.destroy();
      } else {
        response.end(format === "parquet" ? parquetPage : "a,b\n1,2\n");
      }
    });
    try {
      for (const format of EXPORT_FORMATS) {
        const output = join(dir, `events.${format}`);
        await writeFile(output, EARLIER);
        await expect(
          exportCommand({
            url: service.url,
            key: "srv_x",
            since: 0,
            format,
            output,
            pageSize: 2,
            progress: false,
          }),
          format,
        ).rejects.toThrow();
        expect(await readFile(output, "utf8"), format).toBe(EARLIER);
        expect(await readdir(dir), format).toEqual([`events.${format}`]);
        await rm(output);
      }
    } finally {
      await service.close();
    }
  });

  it("on Ctrl-C or SIGTERM, removes what it wrote, keeps the earlier file, and ends with 130 or 143", async () => {
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    try {
      for (const [format, signal, code] of [
        ["csv", "SIGINT", 130],
        ["parquet", "SIGTERM", 143],
      ] as const) {
        let secondPage: () => void = () => {};
        const asked = new Promise<void>((resolve) => {
          secondPage = resolve;
        });
        // The first page answered; the second waits, as a slow service's would.
        const service = await serve((request, response) => {
          if (Number(queryOf(request).searchParams.get("offset")) > 0) {
            secondPage();
            return;
          }
          response.writeHead(200, { [SNAPSHOT_HEADER]: "snap-1", [SNAPSHOT_ROWS_HEADER]: "6" });
          response.end(format === "parquet" ? parquetPage : "a,b\n1,2\n");
        });
        const output = join(dir, `events.${format}`);
        await writeFile(output, EARLIER);
        const before = new Set(process.listeners(signal));
        const exported = exportCommand({
          url: service.url,
          key: "srv_x",
          since: 0,
          format,
          output,
          pageSize: 2,
          progress: false,
        });
        exported.catch(() => undefined);
        try {
          await asked;
          // The first page is written (to a file, or a folder of pages) beside the output.
          await expect.poll(async () => (await readdir(dir)).length).toBeGreaterThan(1);
          // The export's own handler, as the signal would call it: the test runner's are left be.
          const handlers = process.listeners(signal).filter((handler) => !before.has(handler));
          expect(handlers, format).toHaveLength(1);
          for (const handler of handlers) (handler as (signal: string) => void)(signal);
          expect(exit).toHaveBeenCalledWith(code);
          expect(await readFile(output, "utf8"), format).toBe(EARLIER);
          expect(await readdir(dir), format).toEqual([`events.${format}`]);
        } finally {
          exit.mockClear();
          await service.close();
          await exported.catch(() => undefined);
        }
        expect(await readdir(dir), format).toEqual([`events.${format}`]);
        // Once the export is over, a signal is no longer its to handle.
        expect(process.listeners(signal).filter((handler) => !before.has(handler))).toEqual([]);
        await rm(output);
      }
    } finally {
      exit.mockRestore();
    }
  });
});

describe("an export to a --url", () => {
  it("asks for the pages below it, whether it ends in a slash or names a stage", async () => {
    const dir = await mkdtemp(join(tmpdir(), "export-url-"));
    const paths: string[] = [];
    const service = await serve((request, response) => {
      const url = queryOf(request);
      paths.push(url.pathname);
      if (url.pathname !== "/prod/api/v1/export") {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { [SNAPSHOT_HEADER]: "snap-1", [SNAPSHOT_ROWS_HEADER]: "1" });
      response.end("a,b\n1,2\n");
    });
    try {
      for (const url of [`${service.url}/prod/`, `${service.url}/prod`]) {
        const output = join(dir, "events.csv");
        await expect(
          exportCommand({ url, key: "srv_x", since: 0, format: "csv", output, progress: false }),
        ).resolves.toBe(1);
        expect(await readFile(output, "utf8")).toBe("a,b\n1,2\n");
      }
      expect(paths).toEqual(["/prod/api/v1/export", "/prod/api/v1/export"]);
    } finally {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("an export whose first page comes without the window's size", () => {
  it("pages in json through the snapshot that first page made, never a second one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "export-fallback-"));
    const asked: { format: string | null; offset: string | null; snapshot: string | null }[] = [];
    // A csv page naming its snapshot but neither count, as a service may that cannot tell
    // them: the export goes on in json, whose pages say how many they hold.
    const service = await serve((request, response) => {
      const { searchParams } = queryOf(request);
      const format = searchParams.get("format");
      asked.push({
        format,
        offset: searchParams.get("offset"),
        snapshot: searchParams.get("snapshot"),
      });
      response.writeHead(200, { [SNAPSHOT_HEADER]: `snap-${asked.length}` });
      response.end(format === "json" ? '{"data": [], "total_count": 0}' : "a,b\n");
    });
    try {
      await exportCommand({
        url: service.url,
        key: "srv_x",
        since: 0,
        format: "csv",
        output: join(dir, "events.csv"),
        progress: false,
      });
      expect(asked).toEqual([
        { format: "csv", offset: "0", snapshot: null },
        { format: "json", offset: "0", snapshot: "snap-1" },
      ]);
    } finally {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("an xlsx export", () => {
  it("is refused before a file is written when the window holds more events than a sheet's rows", async () => {
    const dir = await mkdtemp(join(tmpdir(), "export-xlsx-"));
    let windowRows = 1_048_576;
    let pages = 0;
    const service = await serve((_request, response) => {
      pages += 1;
      response.writeHead(200, {
        [SNAPSHOT_HEADER]: "snap-1",
        [SNAPSHOT_ROWS_HEADER]: String(windowRows),
      });
      response.end('{"data": [], "total_count": 0}');
    });
    const output = join(dir, "events.xlsx");
    const exported = () =>
      exportCommand({
        url: service.url,
        key: "srv_x",
        since: 0,
        format: "xlsx",
        output,
        progress: false,
      });
    try {
      await expect(exported()).rejects.toThrow(
        "The window holds 1048576 events, more than the 1048575 an xlsx sheet holds below its header: export it as csv or parquet, or a shorter window (a later --since).",
      );
      expect(pages).toBe(1);
      expect(await readdir(dir)).toEqual([]);
      // A sheet's last row is its own.
      windowRows = 1_048_575;
      await expect(exported()).resolves.toBe(0);
      expect(await readdir(dir)).toEqual(["events.xlsx"]);
    } finally {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("an export the service turns away for now", () => {
  it("says when to retry, from a Retry-After date or seconds", async () => {
    const dir = await mkdtemp(join(tmpdir(), "export-retry-"));
    let retryAfter = "";
    const service = await serve((_request, response) => {
      response.writeHead(429, { "content-type": "application/json", "retry-after": retryAfter });
      response.end(JSON.stringify({ error: "Too Many Requests", detail: "Too many exports." }));
    });
    const exported = () =>
      exportCommand({
        url: service.url,
        key: "srv_x",
        since: 0,
        format: "json",
        output: join(dir, "events.json"),
        progress: false,
      });
    try {
      retryAfter = new Date(Date.now() + 90_000).toUTCString();
      await expect(exported()).rejects.toThrow(
        /^Export failed with 429: Too many exports\. Retry in (8\d|9\d) s\.$/,
      );
      retryAfter = "30";
      await expect(exported()).rejects.toThrow(
        /^Export failed with 429: Too many exports\. Retry in 30 s\.$/,
      );
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

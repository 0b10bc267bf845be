/**
 * The embedded runtime keeps its exchange rates current from the ECB's 90-day feed, here a
 * stand-in on loopback: revenue of today's events gets a `revenue_usd`, which the shipped
 * table (ending 2025-05-09) cannot give; an unreachable feed leaves the rates as they were.
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { dataPaths } from "../../src/embedded/data-dir.ts";
import { logger } from "../../src/logging/logger.ts";
import type { ExportRecord } from "../../src/record/columns.ts";
import { installRequest } from "../support/installs.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const today = () => new Date().toISOString().slice(0, 10);

/** The feed of `day` and the day before (an event a minute old may be of either), newest first. */
const feedOf = (day: string) => {
  const before = new Date(Date.parse(day) - 86_400_000).toISOString().slice(0, 10);
  const cube = (time: string) =>
    `<Cube time="${time}"><Cube currency="USD" rate="1.25"/><Cube currency="JPY" rate="160"/></Cube>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <Cube>${cube(day)}${cube(before)}</Cube>
</gesmes:Envelope>`;
};

const standInFeed = async (answer: (res: import("node:http").ServerResponse) => void) => {
  let requests = 0;
  const server: Server = createServer((_req, res) => {
    requests += 1;
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/eurofxref-hist-90d.xml`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

describe("exchange rates on the embedded runtime", () => {
  let rt: TestRuntime | undefined;
  let feed: Awaited<ReturnType<typeof standInFeed>> | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await rt?.dispose();
    await feed?.close();
  });

  it("refreshes from the feed at start and converts today's revenue with it", async () => {
    // One day for the whole test, should midnight pass during it.
    const day = today();
    feed = await standInFeed((res) => {
      res.writeHead(200, { "content-type": "text/xml" });
      res.end(feedOf(day));
    });
    rt = await startTestRuntime({ fxFeedUrl: feed.url });
    await vi.waitFor(() => expect(rt?.fx.lastDate).toBe(day), { timeout: 10_000 });
    const table = await readFile(dataPaths(rt.config.dataDir).fxRates, "utf8");
    expect(table).toContain(`${day},1.25,160,`);
    // The history it was merged into is kept.
    expect(table).toContain("2025-05-09,");

    const keys = await rt.createApp("com.example.rates");
    const serviceId = randomUUID();
    expect((await rt.post("/v1/installs", installRequest(serviceId), keys.sdkKey)).status).toBe(
      202,
    );
    const eventTime = new Date(Date.now() - 60_000).toISOString();
    const sent = await rt.post(
      "/v1/events",
      {
        events: [
          {
            event_id: "e1",
            service_id: serviceId,
            event_type: "PURCHASE",
            event_time: eventTime,
            parameters: { revenue: 10, currency: "EUR" },
          },
        ],
      },
      keys.sdkKey,
    );
    expect(((await sent.json()) as { accepted: number }).accepted).toBe(1);
    await rt.flush();
    const since = Math.floor(Date.now() / 1000) - 3_600;
    const page = await rt.get(`/api/v1/export?timestamp=${since}`, keys.serverKey);
    // The purchase, whether or not the install's own event, which attribution writes, is in.
    const record = ((await page.json()) as { data: ExportRecord[] }).data.find(
      (r) => r.event_id === "e1",
    );
    expect(record?.revenue_usd).toBe(12.5);
  });

  it("goes on with the rates it has when the feed does not answer well, and says so", async () => {
    const warned = vi.spyOn(logger, "warn").mockImplementation(() => undefined);
    feed = await standInFeed((res) => {
      res.writeHead(503);
      res.end("Service unavailable");
    });
    rt = await startTestRuntime({ fxFeedUrl: feed.url });
    await vi.waitFor(() => expect(warned).toHaveBeenCalled(), { timeout: 10_000 });
    expect(warned).toHaveBeenCalledWith(
      "ECB rate feed not reachable: revenue_usd goes on with the rates it has",
      expect.objectContaining({ feedUrl: feed.url, lastDate: "2025-05-09" }),
    );
    expect(rt.fx.lastDate).toBe("2025-05-09");
    expect(feed.requests()).toBe(1);
  });
});

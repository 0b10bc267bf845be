/**
 * The AdServices client against a local stand-in that answers as Apple documents: the
 * attribution record, `attribution: false`, 404 while the record is not ready, 400 for a bad
 * token, 500 for Apple's own failure.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdServicesClient } from "./ad-services.ts";

/** Each token names its scripted answers, one per request: `200-true`, `404,404,200-true`. */
const ANSWERS: Record<string, { status: number; body?: unknown }> = {
  "200-true": {
    status: 200,
    body: {
      attribution: true,
      orgId: 40669820,
      campaignId: 542370539,
      conversionType: "Download",
      clickDate: "2026-11-24T09:17Z",
      claimType: "Click",
      adGroupId: 542317095,
      countryOrRegion: "US",
      keywordId: 87675432,
      adId: 542317136,
    },
  },
  "200-false": { status: 200, body: { attribution: false } },
  // An impression, with no click date, and one Apple wrote in a form that is no date.
  "200-view": {
    status: 200,
    body: { attribution: true, campaignId: "1", claimType: "Impression" },
  },
  "200-odd-date": {
    status: 200,
    body: { attribution: true, campaignId: 1, clickDate: "yesterday" },
  },
  "404": { status: 404 },
  "400": { status: 400 },
  "500": { status: 500 },
};

describe("Apple AdServices client", () => {
  let server: Server;
  let url: string;
  const requests: { contentType?: string; body: string }[] = [];
  const served = new Map<string, number>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => {
        requests.push({ contentType: req.headers["content-type"], body });
        const script = body.split(",");
        const n = served.get(body) ?? 0;
        served.set(body, n + 1);
        const answer = ANSWERS[script[Math.min(n, script.length - 1)] ?? ""] ?? { status: 400 };
        res.writeHead(answer.status, { "content-type": "application/json" });
        res.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const client = () => createAdServicesClient({ url, retryDelayMs: 5 });

  it("posts the token as text/plain and reads Apple's attribution record", async () => {
    expect(await client().resolve("200-true")).toEqual({
      attribution: true,
      campaignId: "542370539",
      adGroupId: "542317095",
      keywordId: "87675432",
      adId: "542317136",
      claimType: "Click",
      clickDate: "2026-11-24T09:17:00.000Z",
    });
    expect(requests.at(-1)).toEqual({ contentType: "text/plain", body: "200-true" });
  });

  it("reads an impression as such, a claim without a type as a click, and no date as none", async () => {
    expect(await client().resolve("200-view")).toEqual({
      attribution: true,
      campaignId: "1",
      adGroupId: null,
      keywordId: null,
      adId: null,
      claimType: "Impression",
      clickDate: null,
    });
    expect(await client().resolve("200-odd-date")).toMatchObject({
      claimType: "Click",
      clickDate: null,
    });
  });

  it("reads attribution false as no attribution, and so a token Apple refuses", async () => {
    expect(await client().resolve("200-false")).toEqual({ attribution: false });
    expect(await client().resolve("400")).toEqual({ attribution: false });
  });

  it("asks again while the record is not ready, up to three times", async () => {
    expect(await client().resolve("404,404,200-true")).toMatchObject({ attribution: true });
    expect(served.get("404,404,200-true")).toBe(3);
    await expect(client().resolve("404,404,404,200-true")).rejects.toThrow(/404/);
    expect(served.get("404,404,404,200-true")).toBe(3);
  });

  it("throws on Apple's failure, so the job is tried again later, asking once", async () => {
    await expect(client().resolve("500")).rejects.toThrow(/500/);
    expect(served.get("500")).toBe(1);
  });
});

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { costRequestSchema, costRowsOf } from "../../costs/cost-rows.ts";
import { parseEcbRates } from "../../fx/ecb-rates.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { costRowsOfCsv, importCostsCommand } from "./costs.ts";

/** The service's clock in these tests. */
const NOW = new Date("2026-11-29T12:00:00Z");
const FX = parseEcbRates("Date,USD,\n2026-11-27,1.05,\n");

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** A CSV file of the lines given, in a folder of its own, for `use`. */
const withFile = async (lines: readonly string[], use: (file: string) => Promise<void>) => {
  const dir = await mkdtemp(join(tmpdir(), "costs-import-"));
  try {
    const file = join(dir, "costs.csv");
    await writeFile(file, `${lines.join("\n")}\n`);
    await use(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/**
 * The service's POST /v1/costs in front of fetch: a body over the route's limit is a 413, one
 * with a row at fault a 422 naming it (src/costs/cost-rows.ts's rules), else its rows stored.
 */
const serviceStub = (
  options: { now?: Date; refuse?: (page: number) => string | undefined } = {},
) => {
  const bodies: number[] = [];
  const stored: unknown[] = [];
  vi.stubGlobal("fetch", async (_url: string, init: { body: string }) => {
    const bytes = Buffer.byteLength(init.body, "utf8");
    bodies.push(bytes);
    if (bytes > INGEST_LIMITS.maxBodyBytes) {
      return Response.json({ detail: `The body is ${bytes} bytes` }, { status: 413 });
    }
    const refusal = options.refuse?.(bodies.length);
    if (refusal) return Response.json({ detail: refusal }, { status: 422 });
    try {
      const rows = costRowsOf("app", JSON.parse(init.body), FX, options.now ?? NOW);
      stored.push(...rows);
      return Response.json({ accepted: rows.length, replaced: 0, warnings: [] });
    } catch (error) {
      return Response.json({ detail: (error as Error).message }, { status: 422 });
    }
  });
  vi.spyOn(console, "log").mockImplementation(() => {});
  return { bodies, stored };
};

const HEADER = "day,media_source,campaign_id,campaign_name,adset_name,ad_name,amount,currency";

describe("costs import's CSV", () => {
  it("reads numbers as numbers, leaves empty cells out, and keeps a number column's text that is none", () => {
    const { rows } = costRowsOfCsv(
      "day,media_source,campaign_id,amount,currency,clicks,impressions\n" +
        "2026-11-27,net,c1,12.5,EUR,30,\n" +
        "2026-11-27,net,c2,3,USD,many,1000\n",
    );
    expect(rows[0]).toEqual({
      day: "2026-11-27",
      media_source: "net",
      campaign_id: "c1",
      amount: 12.5,
      currency: "EUR",
      clicks: 30,
    });
    expect(rows[1]).toMatchObject({ clicks: "many", impressions: 1000 });
    // The API's rules then name the cell, rather than taking it as no value.
    const checked = costRequestSchema.safeParse({ rows });
    expect(checked.error?.issues.map((issue) => issue.path.join("."))).toEqual(["rows.1.clicks"]);
  });

  it("reads plain decimal numbers only: another spelling stays text, which the API's rules name", () => {
    const { rows } = costRowsOfCsv(
      "day,media_source,campaign_id,amount,currency,clicks,impressions\n" +
        "2026-11-27,net,c1,0x10,EUR,1e2,0b11\n" +
        "2026-11-27,net,c2,-0.5,USD,0012,7.\n",
    );
    expect(rows[0]).toMatchObject({ amount: "0x10", clicks: "1e2", impressions: "0b11" });
    expect(rows[1]).toMatchObject({ amount: -0.5, clicks: 12, impressions: "7." });
    const checked = costRequestSchema.safeParse({ rows });
    expect(checked.error?.issues.map((issue) => issue.path.join("."))).toEqual(
      expect.arrayContaining([
        "rows.0.amount",
        "rows.0.clicks",
        "rows.0.impressions",
        "rows.1.impressions",
      ]),
    );
  });

  it("refuses a header the Cost page refuses, in its words: a column named twice, one unknown, one required missing", () => {
    const refusal = (header: string) => {
      try {
        costRowsOfCsv(`${header}\n2026-11-27,net,c1,1,EUR,2\n`, "costs.csv");
      } catch (error) {
        return (error as Error).message;
      }
      return "read";
    };
    expect(refusal("day,media_source,campaign_id,amount,currency,amount")).toBe(
      "costs.csv: The first line names “amount” twice.",
    );
    expect(refusal("day,media_source,campaign_id,amount,currency,spend")).toMatch(
      /^costs\.csv: The first line names a column a cost row does not have: “spend”\. The columns are “day”, “media_source”, “campaign_id”, “campaign_name”/,
    );
    expect(refusal("Day,Media source,campaign_id,amount,currency,clicks")).toMatch(
      /^costs\.csv: The first line names columns a cost row does not have: “Day”, “Media source”\./,
    );
    expect(refusal("day,media_source,campaign_name,amount,currency,clicks")).toBe(
      "costs.csv: The first line lacks the column “campaign_id”: every row needs “day”, “media_source”, “campaign_id”, “amount”, “currency”.",
    );
    expect(() => costRowsOfCsv("day,media_source\n2026-11-27\n", "costs.csv")).toThrow(
      "costs.csv is not CSV: Line 2 has 1 cells, and the first line names 2 columns.",
    );
  });

  it("trims a quoted cell as an unquoted one", () => {
    const { rows } = costRowsOfCsv(
      'day,media_source,campaign_id,amount,currency\n"2026-11-27"," net "," c1 "," 5 ", "EUR"\n',
    );
    expect(rows).toEqual([
      { day: "2026-11-27", media_source: "net", campaign_id: "c1", amount: 5, currency: "EUR" },
    ]);
  });

  it("reads a spreadsheet's file: its byte order mark, and no row of a line of empty cells; a row named by its line", () => {
    const { rows, lines } = costRowsOfCsv(
      "\uFEFFday,media_source,campaign_id,amount,currency\r\n" +
        "2026-11-27,net,c1,10,EUR\r\n" +
        ",,,,\r\n" +
        "\r\n" +
        '2026-11-28,net,"c2",5,USD\r\n' +
        ",,,,\r\n",
    );
    expect(rows).toEqual([
      { day: "2026-11-27", media_source: "net", campaign_id: "c1", amount: 10, currency: "EUR" },
      { day: "2026-11-28", media_source: "net", campaign_id: "c2", amount: 5, currency: "USD" },
    ]);
    expect(lines).toEqual([2, 5]);
  });

  it("refuses a file with two rows of one day and keys, naming both lines, before sending any", async () => {
    const dir = await mkdtemp(join(tmpdir(), "costs-import-"));
    try {
      const file = join(dir, "costs.csv");
      await writeFile(
        file,
        "day,media_source,campaign_id,adset_name,amount,currency\n" +
          "2026-11-27,net,c1,Set A,12.5,EUR\n" +
          "2026-11-27,net,c2,Set A,3,USD\n" +
          "2026-11-27,net,c1, Set A ,13.5,USD\n",
      );
      // No service listens there: the file is refused before anything is sent.
      await expect(
        importCostsCommand({ file, url: "http://127.0.0.1:9", key: "k", now: () => NOW }),
      ).rejects.toThrow(
        `${file}: line 4: has the day, media source, campaign, ad set, ad and country of line 2: one row for them, in one currency`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a file with two rows of one ad set whose names differ only in case or Unicode form", async () => {
    await withFile(
      [
        HEADER,
        `2026-11-27,net,c1,,${"Café".normalize("NFC")},,1,USD`,
        `2026-11-27,net,c1,,${"Café".normalize("NFD")},,2,USD`,
        "2026-11-27,net,c1,,Set A,,1,USD",
        "2026-11-27,net,c1,,SET A,,2,USD",
      ],
      async (file) => {
        const { bodies } = serviceStub();
        await expect(
          importCostsCommand({ file, url: "http://svc", key: "k", now: () => NOW }),
        ).rejects.toThrow(
          `${file}: line 3: has the day, media source, campaign, ad set, ad and country of line 2: one row for them, in one currency; line 5: has the day, media source, campaign, ad set, ad and country of line 4: one row for them, in one currency`,
        );
        expect(bodies).toEqual([]);
      },
    );
  });
});

describe("costs import's requests", () => {
  it("each fit the route's body limit, however long the names (1,000 rows of 120 Japanese characters)", async () => {
    const name = (n: number, what: string) => `${what}${n}-${"広告キャンペーン".repeat(15)}`;
    const lines = [HEADER];
    for (let n = 0; n < 1_000; n++) {
      lines.push(`2026-11-27,net,c${n},${name(n, "c")},${name(n, "s")},${name(n, "a")},1.5,USD`);
    }
    await withFile(lines, async (file) => {
      const { bodies, stored } = serviceStub();
      await expect(
        importCostsCommand({ file, url: "http://svc", key: "k", now: () => NOW }),
      ).resolves.toBeUndefined();
      expect(bodies.length).toBeGreaterThan(1);
      expect(Math.max(...bodies)).toBeLessThanOrEqual(INGEST_LIMITS.maxBodyBytes);
      expect(stored).toHaveLength(1_000);
    });
  });

  it("go to the cost route below --url, whether it ends in a slash or names a stage", async () => {
    for (const [url, route] of [
      ["http://svc", "http://svc/v1/costs"],
      ["http://svc/", "http://svc/v1/costs"],
      [
        "https://abc.execute-api.eu-west-1.amazonaws.com/prod/",
        "https://abc.execute-api.eu-west-1.amazonaws.com/prod/v1/costs",
      ],
    ] as const) {
      await withFile([HEADER, "2026-11-27,net,c1,,,,1.5,USD"], async (file) => {
        serviceStub();
        const answer = globalThis.fetch;
        const urls: string[] = [];
        vi.stubGlobal("fetch", async (to: string | URL, init: { body: string }) => {
          urls.push(String(to));
          return answer(to, init);
        });
        await importCostsCommand({ file, url, key: "k", now: () => NOW });
        expect(urls).toEqual([route]);
      });
    }
  });

  it("send nothing of a file with a day the service refuses, wherever in the file it is", async () => {
    const lines = ["day,media_source,campaign_id,amount,currency"];
    for (let n = 0; n < 1_000; n++) lines.push(`2026-11-27,net,c${n},1.5,USD`);
    lines.push("2026-07-01,net,late,1.5,USD", "2026-12-01,net,early,1.5,USD");
    await withFile(lines, async (file) => {
      const { bodies, stored } = serviceStub();
      await expect(
        importCostsCommand({ file, url: "http://svc", key: "k", now: () => NOW }),
      ).rejects.toThrow(
        `${file}: line 1002, day: must be within 90 days (from 2026-08-31); line 1003, day: must not be after tomorrow (2026-11-30, UTC)`,
      );
      expect(bodies).toEqual([]);
      expect(stored).toEqual([]);
    });
  });

  it("say which rows were stored when the service refuses a later page", async () => {
    const lines = ["day,media_source,campaign_id,amount,currency"];
    for (let n = 0; n < 1_500; n++) lines.push(`2026-11-27,net,c${n},1.5,USD`);
    await withFile(lines, async (file) => {
      // A rule the service applies that the command could not (another clock than this one's).
      const { bodies, stored } = serviceStub({
        refuse: (page) => (page === 2 ? "body.rows[3].day: must be within 90 days" : undefined),
      });
      await expect(
        importCostsCommand({ file, url: "http://svc", key: "k", now: () => NOW }),
      ).rejects.toThrow(
        "The rows of lines 2 to 1001 were stored (0 replaced an earlier one); the service refused the rows of lines 1002 to 1501 (422): line 1005, day: must be within 90 days. Nothing after them was sent. Import the whole file again once it is fixed: a row stored again replaces itself.",
      );
      expect(bodies).toHaveLength(2);
      expect(stored).toHaveLength(1_000);
    });
    // The service gone after the first page: its rows stored, and said so.
    await withFile(lines, async (file) => {
      const { stored } = serviceStub();
      const answer = globalThis.fetch;
      let calls = 0;
      vi.stubGlobal("fetch", async (url: string, init: { body: string }) => {
        calls += 1;
        if (calls > 1) throw Object.assign(new Error("fetch failed"), { code: "ECONNREFUSED" });
        return answer(url, init);
      });
      await expect(
        importCostsCommand({ file, url: "http://svc", key: "k", now: () => NOW }),
      ).rejects.toThrow(
        "The service at http://svc did not answer (ECONNREFUSED): is `attribution start` running, and is --url its address? The rows of lines 2 to 1001 were stored (0 replaced an earlier one); nothing after them was sent. Import the whole file again once it answers: a row stored again replaces itself.",
      );
      expect(stored).toHaveLength(1_000);
    });
    // Refused at the first page: nothing stored, and said so.
    await withFile(lines.slice(0, 3), async (file) => {
      serviceStub({ refuse: () => "body.rows[1].amount: must be at least 0" });
      await expect(
        importCostsCommand({ file, url: "http://svc", key: "k", now: () => NOW }),
      ).rejects.toThrow(
        "Nothing was stored: the service refused the rows of lines 2 to 3 (422): line 3, amount: must be at least 0",
      );
    });
  });
});

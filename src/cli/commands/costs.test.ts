import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { costRequestSchema } from "../../costs/cost-rows.ts";
import { costRowsOfCsv, importCostsCommand } from "./costs.ts";

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
        importCostsCommand({ file, url: "http://127.0.0.1:9", key: "k" }),
      ).rejects.toThrow(
        `${file}: line 4: has the day, media source, campaign, ad set, ad and country of line 2: one row for them, in one currency`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

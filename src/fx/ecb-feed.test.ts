import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { mergeEcbRates, parseEcbFeed } from "./ecb-feed.ts";
import { EUR_PEGS, parseEcbRates, SHIPPED_ECB_RATES, USD_PEGS } from "./ecb-rates.ts";

/** The ECB's 90-day feed as it publishes it, cut to two days and three currencies. */
const FEED = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
\t\t<Cube time="2026-11-20">
\t\t\t<Cube currency="USD" rate="1.0512"/>
\t\t\t<Cube currency="JPY" rate="162.48"/>
\t\t\t<Cube currency="XYZ" rate="2.5"/>
\t\t</Cube>
\t\t<Cube time="2026-11-19">
\t\t\t<Cube currency="USD" rate="1.0498"/>
\t\t</Cube>
\t</Cube>
</gesmes:Envelope>`;

describe("the ECB's 90-day feed", () => {
  it("reads each day's rates", () => {
    const days = parseEcbFeed(FEED);
    expect([...days.keys()]).toEqual(["2026-11-20", "2026-11-19"]);
    expect(Object.fromEntries(days.get("2026-11-20") ?? [])).toEqual({
      USD: 1.0512,
      JPY: 162.48,
      XYZ: 2.5,
    });
  });

  it("refuses anything else, saying so", () => {
    expect(() => parseEcbFeed("<html><body>Service unavailable</body></html>")).toThrow(
      /ECB feed: not the reference-rate feed/,
    );
    expect(() => parseEcbFeed(FEED.replace('rate="1.0498"', 'rate="-1"'))).toThrow(/ECB feed/);
    expect(() => parseEcbFeed(FEED.replace("2026-11-19", "19.11.2026"))).toThrow(/ECB feed/);
    // A code that is no ISO 4217 one, and a second table of days beside the first.
    expect(() => parseEcbFeed(FEED.replace('currency="JPY"', 'currency="yen"'))).toThrow(
      /ECB feed/,
    );
    const twice = FEED.replace(
      "</gesmes:Envelope>",
      '<Cube><Cube time="2026-11-21"><Cube currency="USD" rate="9"/></Cube></Cube></gesmes:Envelope>',
    );
    expect(() => parseEcbFeed(twice)).toThrow(/ECB feed/);
  });

  it("merges into the history table: new days added, a day it has replaced, a new currency added", async () => {
    const history = [
      "Date,USD,JPY,GBP,",
      "2026-11-19,1.04,160.00,0.85,",
      "2026-11-18,1.0401,161.01,0.86,",
    ].join("\n");
    const merged = parseEcbRates(mergeEcbRates(history, parseEcbFeed(FEED)));
    expect(merged.lastDate).toBe("2026-11-20");
    expect(merged.firstDate).toBe("2026-11-18");
    expect(merged.currencies.filter((code) => !USD_PEGS.has(code) && !EUR_PEGS.has(code))).toEqual([
      "EUR",
      "GBP",
      "JPY",
      "USD",
      "XYZ",
    ]);
    // The feed's value of a day the table had stands; the table's other days stay.
    expect(merged.toUsd(1, "EUR", "2026-11-19")).toBe(1.0498);
    expect(merged.toUsd(1, "EUR", "2026-11-18")).toBe(1.0401);
    expect(merged.toUsd(162.48, "JPY", "2026-11-20")).toBe(1.0512);
    // A currency the feed lacks keeps the table's rates of the days the feed does not replace.
    expect(merged.toUsd(0.86, "GBP", "2026-11-18")).toBe(1.0401);
    expect(merged.toUsd(2.5, "XYZ", "2026-11-20")).toBe(1.0512);
  });

  it("writes the merged table as the ECB does: newest first, N/A where a day has no rate", () => {
    // Cells and names as a hand-edited table may hold them: spaced, an empty one, an empty name.
    const history = [
      "Date , USD , JPY,,",
      "2026-11-17 , 1.03 ,, 9,",
      "2026-11-18,1.0401,N/A,,",
    ].join("\n");
    expect(mergeEcbRates(history, parseEcbFeed(FEED))).toBe(
      [
        "Date,USD,JPY,XYZ",
        "2026-11-20,1.0512,162.48,2.5",
        "2026-11-19,1.0498,N/A,N/A",
        "2026-11-18,1.0401,N/A,N/A",
        "2026-11-17,1.03,N/A,N/A",
        "",
      ].join("\n"),
    );
    expect(() => mergeEcbRates("Day,USD\n2026-11-18,1.04\n", new Map())).toThrow(
      "ECB rates: header must start with Date",
    );
  });

  it("keeps the shipped history whole when it merges the feed into it", async () => {
    const shipped = await readFile(SHIPPED_ECB_RATES, "utf8");
    const before = parseEcbRates(shipped);
    const after = parseEcbRates(mergeEcbRates(shipped, parseEcbFeed(FEED)));
    expect(after.firstDate).toBe(before.firstDate);
    expect(after.lastDate).toBe("2026-11-20");
    expect(after.toUsd(100, "JPY", "2020-03-02")).toBe(before.toUsd(100, "JPY", "2020-03-02"));
    expect(after.toUsd(1, "EUR", "2026-11-19")).toBe(1.0498);
  });
});

/**
 * The ECB's feed of the last 90 days of reference rates (eurofxref-hist-90d.xml), and its merge
 * into the history table the service reads (eurofxref-hist.csv's layout, which `parseEcbRates`
 * takes): on AWS a daily job keeps the table current this way.
 */
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { XMLParser } from "fast-xml-parser";
import * as z from "zod";

export const ECB_90_DAY_FEED = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist-90d.xml";

/** Euro reference rates by day (yyyy-mm-dd), each a currency's units per euro. */
export type DailyRates = ReadonlyMap<string, ReadonlyMap<string, number>>;

const rate = z.strictObject({
  currency: z.string().regex(/^[A-Z]{3}$/),
  rate: z.coerce.number().positive(),
});
const feedSchema = z.object({
  Envelope: z.object({
    Cube: z
      .array(
        z.object({
          Cube: z
            .array(
              z.strictObject({
                time: z.iso.date(),
                Cube: z.array(rate).min(1),
              }),
            )
            .min(1),
        }),
      )
      .length(1),
  }),
});

// Every Cube is a list, so one day's or one currency's Cube reads like many.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "",
  removeNSPrefix: true,
  parseAttributeValue: false,
  isArray: (name) => name === "Cube",
});

/** The days of the ECB's XML feed. Throws, naming the problem, on anything else. */
export const parseEcbFeed = (xml: string): DailyRates => {
  const parsed = feedSchema.safeParse(parser.parse(xml));
  if (!parsed.success) {
    throw new Error(`ECB feed: not the reference-rate feed: ${z.prettifyError(parsed.error)}`);
  }
  const [root] = parsed.data.Envelope.Cube;
  return new Map(
    (root?.Cube ?? []).map((day) => [
      day.time,
      new Map(day.Cube.map((entry) => [entry.currency, entry.rate])),
    ]),
  );
};

/**
 * The history table with the feed's days in it: a day the table has is replaced by the feed's,
 * a currency new to the table is added (N/A on the days before it), and the rows are newest
 * first, as the ECB writes them.
 */
export const mergeEcbRates = (csvText: string, feed: DailyRates): string => {
  const { known, days } = tableCells(csvText);
  for (const [day, rates] of feed) {
    days.set(day, new Map([...rates].map(([code, value]) => [code, String(value)])));
  }
  const codes = [...new Set([...known, ...feedCodes(feed)])];
  const ordered = [...days.keys()].sort().reverse();
  return stringify([
    ["Date", ...codes],
    ...ordered.map((day) => [day, ...codes.map((code) => days.get(day)?.get(code) ?? "N/A")]),
  ]);
};

/** A history table's currencies, in its order, and each day's rates as written (N/A left out). */
const tableCells = (csvText: string) => {
  const rows: string[][] = parse(csvText, { skip_empty_lines: true, relax_column_count: true });
  const [header, ...body] = rows;
  if (header?.[0]?.trim() !== "Date") throw new Error("ECB rates: header must start with Date");
  const columns = header.slice(1).map((code) => code.trim());
  const days = new Map<string, Map<string, string>>();
  for (const row of body) {
    const cells = new Map<string, string>();
    columns.forEach((code, i) => {
      const cell = row[i + 1]?.trim() ?? "";
      if (code !== "" && cell !== "" && cell !== "N/A") cells.set(code, cell);
    });
    days.set(row[0]?.trim() ?? "", cells);
  }
  return { known: columns.filter((code) => code !== ""), days };
};

/** The currencies a history table has a column of, in its order. */
export const ecbTableCurrencies = (csvText: string): string[] => tableCells(csvText).known;

/**
 * The days of a history table after `after` (yyyy-mm-dd), as the feed's: what a table holds
 * that an older file of the ECB's lacks, to merge into that file.
 */
export const ecbTableDaysAfter = (csvText: string, after: string): DailyRates => {
  const { days } = tableCells(csvText);
  return new Map(
    [...days]
      .filter(([day]) => day > after)
      .map(([day, cells]) => [
        day,
        new Map([...cells].map(([code, cell]) => [code, Number(cell)])),
      ]),
  );
};

const feedCodes = (feed: DailyRates): string[] =>
  [...new Set([...feed.values()].flatMap((rates) => [...rates.keys()]))].sort();

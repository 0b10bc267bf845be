/**
 * `rates import`: newer ECB reference rates for the embedded runtime, which works offline. The
 * ECB publishes the whole history as eurofxref-hist.csv (zipped); give the unzipped file.
 */
import { readFile } from "node:fs/promises";
import { fileRatesTable } from "../../adapters/rates-file/rates-file.ts";
import { ValidationError } from "../../domain/errors.ts";
import { dataPaths } from "../../embedded/data-dir.ts";
import {
  type DailyRates,
  ecbTableCurrencies,
  ecbTableDaysAfter,
  mergeEcbRates,
} from "../../fx/ecb-feed.ts";
import { parseEcbRates } from "../../fx/ecb-rates.ts";

/** The table's days after the file's last; none of a table that cannot be read, replaced whole. */
const laterDays = (stored: string | undefined, after: string): DailyRates => {
  if (stored === undefined) return new Map();
  try {
    // Read whole first: a table the service could not convert with is no source of days.
    parseEcbRates(stored);
    return ecbTableDaysAfter(stored, after);
  } catch {
    return new Map();
  }
};

export const importRatesCommand = async (options: { file: string; dataDir: string }) => {
  const text = await readFile(options.file, "utf8").catch((error: unknown) => {
    throw new ValidationError(`${options.file}: ${(error as Error).message}`);
  });
  // Parsed first: a file that is not the ECB's table is refused, never half-imported.
  const rates = parseEcbRates(text);
  const table = fileRatesTable(dataPaths(options.dataDir).fxRates);
  // The days the data folder's table has after the file's last (the ECB's feed merged them in
  // since the file was made) are kept: a file older than the table takes none of them away. A
  // table that cannot be read is replaced whole.
  const later = laterDays(await table.read(), rates.lastDate);
  const merged = later.size > 0 ? mergeEcbRates(text, later) : text;
  const kept = parseEcbRates(merged);
  // The file's own columns: not the euro and the pegged currencies, which every table converts.
  const columns = ecbTableCurrencies(text).length;
  await table.write(merged);
  console.log(
    `Imported rates from ${rates.firstDate} to ${rates.lastDate} for ${columns} currencies${
      later.size > 0
        ? `, keeping the ${later.size} later days the table had (to ${kept.lastDate})`
        : ""
    }.`,
  );
  console.log("Restart the service (npm start) to use them.");
};

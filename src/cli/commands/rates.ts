/**
 * `rates import`: newer ECB reference rates for the embedded runtime, which works offline. The
 * ECB publishes the whole history as eurofxref-hist.csv (zipped); give the unzipped file.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { dataPaths } from "../../embedded/data-dir.ts";
import { parseEcbRates } from "../../fx/ecb-rates.ts";

export const importRatesCommand = async (options: { file: string; dataDir: string }) => {
  const text = await readFile(options.file, "utf8");
  // Parsed first: a file that is not the ECB's table is refused, never half-imported.
  const rates = parseEcbRates(text);
  const target = dataPaths(options.dataDir).fxRates;
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, text);
  console.log(
    `Imported rates from ${rates.firstDate} to ${rates.lastDate} for ${rates.currencies.length} currencies.`,
  );
  console.log("Restart the service (npm start) to use them.");
};

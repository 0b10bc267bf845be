/**
 * ECB reference rates laid out as the ECB's table is (`Date,USD,…,` then a row a day, newest
 * first, each line ending in a comma), for the last `days` days with the same rates every day:
 * what `attribution rates import` and the service's rate table read.
 */
export const ecbRatesCsv = (unitsPerEur: Readonly<Record<string, number>>, days: number) => {
  const currencies = Object.keys(unitsPerEur);
  const rows = Array.from({ length: days }, (_, i) => {
    const day = new Date(Date.now() - i * 86_400_000).toISOString().slice(0, 10);
    return `${day},${currencies.map((currency) => unitsPerEur[currency]).join(",")},`;
  });
  return `Date,${currencies.join(",")},\n${rows.join("\n")}\n`;
};

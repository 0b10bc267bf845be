/** The daily rates job's composition (its work: src/fx/refresh-rates.ts). */
import { composition } from "../functions/adapters.ts";
import { refreshRates } from "../fx/refresh-rates.ts";
import { logger } from "../logging/logger.ts";
import type { JobRun } from "./job-run.ts";
import { jobOf } from "./jobs.ts";

const FX_RATES = /* @__PURE__ */ jobOf("fx-rates");

/** On AWS: the ECB's feed merged into the stored table. */
export const fxRatesJob = /* @__PURE__ */ composition(
  { id: FX_RATES.id, uses: FX_RATES.aws.uses },
  ({ ratesTable, ratesFeed, shippedRates }): JobRun<Awaited<ReturnType<typeof refreshRates>>> => ({
    run: () => refreshRates({ table: ratesTable, feed: ratesFeed, shipped: shippedRates }),
    report: (covered) => logger.info("fx rates refreshed", covered),
  }),
);

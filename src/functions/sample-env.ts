/**
 * A valid environment for a function, from its row alone: a placeholder for each required
 * variable (a URL where the rule wants one), the real files for those naming a data file. The
 * entries test loads each Lambda entry with it, and the bench imports each bundle with it.
 */
import { fileURLToPath } from "node:url";
import type * as z from "zod";
import { defaultCountryDatabase } from "../adapters/geoip/country-resolver.ts";
import { envSchemaOf } from "./env.ts";
import type { Uses } from "./uses.ts";

/** The data files a function reads at start-up, here from the project. */
const DATA_FILES: Readonly<Record<string, string>> = {
  FX_RATES_FILE: fileURLToPath(new URL("../../data/ecb-eurofxref-hist.csv", import.meta.url)),
  GEOIP_DB_FILE: defaultCountryDatabase(),
};

export const sampleEnv = (uses: Uses): Record<string, string> => {
  const schema: z.ZodObject = envSchemaOf(uses);
  const env: Record<string, string> = {};
  for (const [variable, field] of Object.entries(schema.shape)) {
    if (field.safeParse(undefined).success) continue; // optional or defaulted
    const file = DATA_FILES[variable];
    if (!file && variable.endsWith("_FILE")) {
      throw new Error(`No real file known for ${variable}: add it to DATA_FILES`);
    }
    env[variable] =
      file ??
      (variable.endsWith("_URL")
        ? "https://sample.example.com"
        : `sample-${variable.toLowerCase().replaceAll("_", "-")}`);
  }
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new Error(`Sample environment rejected: ${parsed.error.message}`);
  return env;
};

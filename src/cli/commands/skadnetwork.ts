/**
 * `attribution skadnetwork schema|networks|report|export|unknown`: an app's SKAdNetwork
 * conversion value schema and ad network names, set and shown with the API's rules
 * (src/skadnetwork/settings.ts); its report; its postbacks from Apple written as CSV; and the
 * postbacks that named an App Store id no app has. The windows (and the report's `--include`)
 * are checked by the query schemas of the routes that answer the same
 * (src/http/handlers/skadnetwork.ts), their problems named as the flags.
 */
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { finished } from "node:stream/promises";
import { stringify } from "csv-stringify";
import type * as z from "zod";
import { ValidationError } from "../../domain/errors.ts";
import {
  skadnetworkPostbacksQuery,
  skadnetworkReportQuery,
  unknownPostbacksQuery,
} from "../../http/handlers/skadnetwork.ts";
import { startOfDay } from "../../reports/days.ts";
import { describeRule } from "../../skadnetwork/conversion-schema.ts";
import {
  createSkadnetworkSettings,
  POSTBACK_PAGE_LIMITS,
  postbackAnswer,
} from "../../skadnetwork/settings.ts";
import { UNKNOWN_SCAN_LIMIT, unknownPostbacks } from "../../skadnetwork/unknown.ts";
import { joinProblems, plainWords } from "../../validation/issues.ts";
import { type AdminStores, withAdminStores } from "../admin-stores.ts";
import { abandon, writeOutputFile } from "../output-file.ts";

const DAY_MS = 86_400_000;

const settingsOf = (stores: AdminStores) =>
  createSkadnetworkSettings({ apps: stores.apps, postbacks: stores.applePostbacks() });

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

/** The flags of the routes' query parameters. */
const FLAG_OF_PARAMETER: ReadonlyMap<PropertyKey, string> = new Map([
  ["from", "--from"],
  ["to", "--to"],
  ["include", "--include"],
]);
const flagOf = (name: PropertyKey | undefined) =>
  (name === undefined ? undefined : FLAG_OF_PARAMETER.get(name)) ?? String(name ?? "query");

/** The flags' values as the route's query, checked by its schema; a problem names its flag. */
const queryOf = <Query>(
  schema: z.ZodType<Query>,
  flags: Readonly<Record<string, string | undefined>>,
): Query => {
  const given = Object.fromEntries(
    Object.entries(flags).filter(([, value]) => value !== undefined),
  );
  const parsed = schema.safeParse(given, { error: plainWords });
  if (parsed.success) return parsed.data;
  throw new ValidationError(
    joinProblems(
      parsed.error.issues.map(
        (issue) =>
          `${flagOf(issue.path[0])}: ${issue.message.replace(/`(\w+)`/g, (named, name: string) => FLAG_OF_PARAMETER.get(name) ?? named)}`,
      ),
    ),
  );
};

/** A checked window's [from, to), both days included. */
const windowRange = (query: { readonly from: string; readonly to: string }) => ({
  from: startOfDay(query.from),
  to: new Date(startOfDay(query.to).getTime() + DAY_MS),
});

/**
 * `--from` and `--to` as [from, to), by the rules of the route `schema` checks (by default the
 * one of postbacks of no app): real days, to tomorrow (UTC) at the latest, `--to` on or after
 * `--from`, at most 366 days.
 */
export const rangeOf = (
  from: string,
  to: string,
  schema: z.ZodType<{ readonly from: string; readonly to: string }> = unknownPostbacksQuery,
) => windowRange(queryOf(schema, { from, to }));

export const setSchemaCommand = async (options: {
  appId: string;
  file: string;
  dataDir: string;
}) => {
  let body: unknown;
  try {
    body = JSON.parse(await readFile(options.file, "utf8"));
  } catch (error) {
    throw new ValidationError(`${options.file}: ${(error as Error).message}`);
  }
  const schema = await withAdminStores(options.dataDir, (stores) =>
    settingsOf(stores).saveSchema(options.appId, body),
  );
  const rules = schema.windows.map((window) => window.rules.length).join(", ");
  console.log(
    `Saved version ${schema.version} of ${options.appId}'s conversion value schema (rules per window: ${rules}); its SDKs take it at their next configuration refresh.`,
  );
};

export const showSchemaCommand = async (options: {
  appId: string;
  json?: boolean;
  dataDir: string;
}) => {
  const schema = await withAdminStores(options.dataDir, (stores) =>
    settingsOf(stores).schema(options.appId),
  );
  if (options.json) {
    print({ schema });
    return;
  }
  if (!schema) {
    console.log(
      `${options.appId} has no conversion value schema: set one with \`skadnetwork schema set\`.`,
    );
    return;
  }
  console.log(`Version ${schema.version}, saved ${schema.updated_at}:`);
  schema.windows.forEach((window, index) => {
    console.log(`  window ${index + 1}:`);
    for (const rule of window.rules) {
      const value = rule.fine === undefined ? rule.coarse : `${rule.fine} (${rule.coarse})`;
      console.log(`    ${value.padEnd(12)} ${describeRule(rule)}${rule.lock ? ", locks" : ""}`);
    }
  });
};

export const networksCommand = async (options: {
  appId: string;
  set?: Record<string, string>;
  json?: boolean;
  dataDir: string;
}) => {
  const { networks, dropped } = await withAdminStores(options.dataDir, async (stores) => {
    const settings = settingsOf(stores);
    if (!options.set) return { networks: await settings.networks(options.appId), dropped: [] };
    const before = await settings.networks(options.appId);
    const saved = await settings.saveNetworks(options.appId, { networks: options.set });
    const kept = new Set(saved.filter((network) => network.own).map((n) => n.ad_network_id));
    return {
      networks: saved,
      dropped: before
        .filter((network) => network.own && !kept.has(network.ad_network_id))
        .map((network) => network.ad_network_id),
    };
  });
  if (options.json) {
    print({ networks, dropped });
    return;
  }
  for (const network of networks) {
    console.log(
      `${network.ad_network_id.padEnd(32)} ${network.media_source}${network.own ? " (the app's)" : ""}`,
    );
  }
  // --set replaces the app's names, as the API's PUT does: one a second --set left out is said,
  // not lost without a word (the dashboard adds a name to the others).
  if (dropped.length > 0) {
    console.log(
      `No longer named by the app (--set replaces the app's names: repeat it with each to keep): ${dropped.join(", ")}`,
    );
  }
};

export const skadnetworkReportCommand = async (options: {
  appId: string;
  from: string;
  to: string;
  /** `development`, `unverified` or both, comma-separated: the API's `include`. */
  include?: string;
  dataDir: string;
}) => {
  const query = queryOf(skadnetworkReportQuery, {
    from: options.from,
    to: options.to,
    include: options.include,
  });
  const include = new Set(query.include?.split(",") ?? []);
  const report = await withAdminStores(options.dataDir, (stores) =>
    settingsOf(stores).report(options.appId, windowRange(query), {
      development: include.has("development"),
      unverified: include.has("unverified"),
    }),
  );
  print(report);
};

/** The CSV's columns: the listing's fields, in its order. */
const COLUMNS = Object.keys(
  postbackAnswer(
    {
      kind: "skadnetwork",
      version: "",
      adNetworkId: "",
      sourceIdentifier: "",
      appStoreId: "",
      transactionId: "",
      redownload: false,
      sourceAppId: null,
      sourceDomain: null,
      fidelityType: null,
      didWin: true,
      sequenceIndex: 0,
      conversionValue: null,
      coarseValue: null,
      countryCode: null,
      conversionType: null,
      verification: { status: "unverified", environment: null, keyId: null, reason: null },
      appId: null,
      receivedAt: "",
      valuesDisputed: false,
    },
    {},
  ),
);

export const exportPostbacksCommand = async (options: {
  appId: string;
  from: string;
  to: string;
  output: string;
  dataDir: string;
}) => {
  const range = rangeOf(options.from, options.to, skadnetworkPostbacksQuery);
  let count = 0;
  // Written beside the output and renamed onto it once whole: a refused app or range, a store
  // that fails part of the way or a Ctrl-C leaves the file that was there (if any) as it was.
  await writeOutputFile(options.output, async (path) => {
    // Unverified postbacks are anyone's text (the endpoints are public): a cell a spreadsheet
    // would run as a formula is written after a quote, as the dashboard's downloads are.
    // A false written as false: csv-stringify writes it as an empty cell, which reads as unknown.
    const csv = stringify({
      header: true,
      columns: COLUMNS,
      escape_formulas: true,
      cast: { boolean: (value) => String(value) },
    });
    const file = createWriteStream(path);
    csv.pipe(file);
    try {
      await withAdminStores(options.dataDir, async (stores) => {
        const settings = settingsOf(stores);
        let after: string | undefined;
        do {
          const page = await settings.postbacks(options.appId, range, {
            limit: POSTBACK_PAGE_LIMITS.maxLimit,
            ...(after ? { after } : {}),
          });
          for (const row of page.data) {
            if (!csv.write(row)) await once(csv, "drain");
            count += 1;
          }
          after = page.next_cursor ?? undefined;
        } while (after);
      });
    } catch (error) {
      csv.destroy();
      await abandon(file);
      throw error;
    }
    csv.end();
    await finished(file);
  });
  console.log(`Wrote ${count} postbacks to ${options.output}.`);
};

export const unknownPostbacksCommand = async (options: {
  from: string;
  to: string;
  dataDir: string;
}) => {
  const range = rangeOf(options.from, options.to);
  const unknown = await withAdminStores(options.dataDir, (stores) =>
    stores.apps.list().then((apps) => unknownPostbacks(stores.applePostbacks(), apps, range)),
  );
  if (unknown.app_store_ids.length === 0) {
    console.log("Every postback of the window named an app's App Store id.");
    return;
  }
  console.log(
    "Postbacks naming an App Store id no app has (set it with `apps config --app-store-id`):",
  );
  // Verified: Apple's production key signed the id. Development: a test's, anyone's, any id.
  console.log(
    `  ${"App Store id".padEnd(14)} ${"postbacks".padStart(9)} ${"verified".padStart(9)} ${"development".padStart(11)}`,
  );
  for (const id of unknown.app_store_ids) {
    // Set since those postbacks came: the verified ones are that app's, these (unverified and
    // development) stay under no app, and the id needs no setting again.
    const now = id.app_id === null ? "" : `  now ${id.app_id}'s`;
    console.log(
      `  ${id.app_store_id.padEnd(14)} ${String(id.postbacks).padStart(9)} ${String(id.verified).padStart(9)} ${String(id.development).padStart(11)}${now}`,
    );
  }
  if (unknown.truncated) {
    console.log(
      `  (the first ${UNKNOWN_SCAN_LIMIT} of the window's postbacks: a shorter window reads the rest)`,
    );
  }
};

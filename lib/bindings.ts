/**
 * What each function is given on AWS, derived from its manifest row (src/functions/uses.ts):
 * its environment (the names src/functions/env.ts derives, set to the stack's resources and
 * checked against the function's schema at synth), the data files shipped in its asset, and its
 * grants. No function's environment or grants are written anywhere else.
 */
import type { IRole } from "aws-cdk-lib/aws-iam";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import type * as z from "zod";
import { defaultCountryDatabase } from "../src/adapters/geoip/country-resolver.ts";
import { APPLE_ADSERVICES_URL } from "../src/config/defaults.ts";
import { envSchemaOf, queueUrlName, streamVariable, tableVariable } from "../src/functions/env.ts";
import type { FunctionSetting, Uses } from "../src/functions/uses.ts";
import { SHIPPED_ECB_RATES } from "../src/fx/ecb-rates.ts";
import { EXPORT_TABLES } from "../src/lake/export-query.ts";
import type { LakeTable, LakeTableName } from "../src/lake/lake-tables.ts";
import { REPORT_TABLES } from "../src/reports/queries.ts";
import type { FunctionBinding } from "./api.ts";
import { type QueryWorkgroup, RESULTS_PREFIX } from "./athena.ts";
import type { DashboardUsers } from "./dashboard-users.ts";
import type { ServiceTables } from "./dynamodb-tables.ts";
import { envFor } from "./env.ts";
import { type Lake, RATES_TABLE_KEY } from "./lake.ts";
import type { LakeStreams } from "./lake-streams.ts";
import type { SealingKey } from "./sealing-key.ts";
import { type BundledFile, bundledPath, projectFile } from "./service-function.ts";

/**
 * The data files functions read at start-up, the same ones the embedded runtime uses by
 * default: the ECB rate history (data/) and the country database of its registry package.
 */
export const INGEST_DATA = {
  fxRates: projectFile(SHIPPED_ECB_RATES),
  geoip: projectFile(defaultCountryDatabase()),
} as const;

/**
 * The stack's resources a binding may name. A construct that builds one function passes only
 * the parts its row uses; naming a part that is missing fails at synth, naming it.
 */
export interface StackParts {
  readonly tables?: ServiceTables;
  readonly lake?: Lake;
  readonly streams?: LakeStreams;
  readonly queries?: QueryWorkgroup;
  readonly sealingKey?: SealingKey;
  /** The dashboard's user pool. */
  readonly users?: DashboardUsers;
  /** A worker's queue, by the worker's id. */
  readonly queue?: (worker: string) => Queue;
  /** Known once the link host is built. */
  readonly linkBaseUrl?: () => string;
  /** The apps' own link hosts the link host serves beside its domain. */
  readonly linkAppHosts?: readonly string[];
  readonly settings?: { readonly [S in FunctionSetting]?: string };
}

const need = <T>(part: T | undefined, name: string): T => {
  if (part === undefined) throw new Error(`The function's row uses ${name}, which was not given`);
  return part;
};

type Grants = {
  readonly [K in
    | "sealingKey"
    | "postbackSecrets"
    | "rates"
    | "countries"
    | "queries"
    | "lake"
    | "credentials"]-?: {
    readonly [A in Exclude<NonNullable<Uses[K]>, "named">]: (
      role: IRole,
      parts: StackParts,
    ) => void;
  };
};

/** Queries over some lake tables: run in the workgroup, read the tables, write results. */
const grantQueries = (
  role: IRole,
  parts: StackParts,
  tables: readonly LakeTable<LakeTableName>[],
) => {
  const lake = need(parts.lake, "the lake");
  need(parts.queries, "the query workgroup").grantRunQueries(role);
  lake.catalog.grantRead(role, tables);
  lake.grantReadTables(role, tables);
  lake.grantResults(role);
};

/** What each access word of the non-table resources grants (tables: lib/dynamodb-tables.ts). */
const GRANTS: Grants = {
  sealingKey: {
    unwrap: (role, parts) => need(parts.sealingKey, "the sealing key").grantUnwrap(role),
    wrap: (role, parts) => need(parts.sealingKey, "the sealing key").grantWrap(role),
  },
  postbackSecrets: {
    open: (role, parts) => need(parts.sealingKey, "the sealing key").grantOpenPostbackSecrets(role),
    manage: (role, parts) => {
      const key = need(parts.sealingKey, "the sealing key");
      key.grantSealPostbackSecrets(role);
      key.grantOpenPostbackSecrets(role);
    },
  },
  credentials: {
    verify: (role, parts) => need(parts.users, "the user pool").grantVerify(role),
    manage: (role, parts) => need(parts.users, "the user pool").grantManage(role),
    list: (role, parts) => need(parts.users, "the user pool").grantList(role),
  },
  rates: {
    read: (role, parts) => need(parts.lake, "the lake").grantReadRates(role),
    write: (role, parts) => need(parts.lake, "the lake").grantWriteRates(role),
  },
  // A file in the asset: nothing to grant.
  countries: { read: () => {} },
  queries: {
    export: (role, parts) => grantQueries(role, parts, EXPORT_TABLES),
    // The reports read the touches too (a link's clicks, an install's deep link path).
    reports: (role, parts) => grantQueries(role, parts, REPORT_TABLES),
  },
  lake: {
    purge: (role, parts) => {
      const lake = need(parts.lake, "the lake");
      lake.grantPurgeTables(role);
      lake.grantDeleteResults(role, RESULTS_PREFIX);
    },
  },
};

/** A function's environment values: one per variable its row's schema has. */
const environmentOf = (uses: Uses, parts: StackParts): Record<string, string> => {
  const env: Record<string, string> = {};
  const tables = () => need(parts.tables, "the tables");
  const lake = () => need(parts.lake, "the lake");
  for (const id of Object.keys(uses.tables ?? {}) as (keyof ServiceTables["table"])[]) {
    env[tableVariable(id)] = tables().table[id].tableName;
  }
  for (const name of Object.keys(uses.streams ?? {}) as LakeTableName[]) {
    env[streamVariable(name)] = need(parts.streams, "the streams").streams[name].ref;
  }
  for (const worker of Object.keys(uses.queues ?? {})) {
    env[queueUrlName(worker)] = need(parts.queue, "the workers' queues")(worker).queueUrl;
  }
  if (uses.sealingKey || uses.postbackSecrets) {
    env.SEALING_KEY_ARN = need(parts.sealingKey, "the sealing key").keyArn;
  }
  if (uses.rates) {
    env.FX_RATES_FILE = bundledPath(INGEST_DATA.fxRates);
    env.FX_RATES_BUCKET = lake().bucket.bucketName;
    env.FX_RATES_KEY = RATES_TABLE_KEY;
  }
  if (uses.countries) env.GEOIP_DB_FILE = bundledPath(INGEST_DATA.geoip);
  if (uses.queries) {
    env.ATHENA_WORKGROUP = need(parts.queries, "the query workgroup").workGroupName;
    env.GLUE_DATABASE = lake().catalog.databaseName;
    env.RESULTS_BUCKET = lake().resultsBucket.bucketName;
  }
  if (uses.lake) {
    env.LAKE_BUCKET = lake().bucket.bucketName;
    env.RESULTS_BUCKET = lake().resultsBucket.bucketName;
  }
  if (uses.linkHost) {
    env.LINK_BASE_URL = need(parts.linkBaseUrl, "the link host's URL")();
    env.LINK_APP_HOSTS = (parts.linkAppHosts ?? []).join(",");
  }
  if (uses.appleAds) env.APPLE_ADS_URL = APPLE_ADSERVICES_URL;
  if (uses.credentials) {
    const users = need(parts.users, "the user pool");
    env.USER_POOL_ID = users.pool.userPoolId;
    env.USER_POOL_CLIENT_ID = users.client.userPoolClientId;
  }
  for (const setting of uses.settings ?? []) {
    const value = parts.settings?.[setting];
    const [variable] = Object.keys(envSchemaOf({ settings: [setting] }).shape);
    if (variable) env[variable] = need(value, `the setting ${setting}`);
  }
  return env;
};

/** The files shipped in a function's asset: those its row reads at start-up. */
const assetsOf = (uses: Uses): BundledFile[] => [
  ...(uses.rates ? [INGEST_DATA.fxRates] : []),
  ...(uses.countries ? [INGEST_DATA.geoip] : []),
];

/** A function's binding, from what its manifest row uses. */
export const bindingOf = (uses: Uses, parts: StackParts): FunctionBinding => {
  const assets = assetsOf(uses);
  return {
    environment: envFor(envSchemaOf(uses) as z.ZodObject, environmentOf(uses, parts)),
    ...(assets.length > 0 && { assets }),
    grant: (role) => {
      if (uses.tables) need(parts.tables, "the tables").grant(role, uses.tables);
      for (const worker of Object.keys(uses.queues ?? {})) {
        need(parts.queue, "the workers' queues")(worker).grantSendMessages(role);
      }
      if (uses.rates) GRANTS.rates[uses.rates](role, parts);
      for (const [name, access] of Object.entries(uses.streams ?? {})) {
        if (access === "put") {
          need(parts.streams, "the streams").grantPutRecords(role, name as LakeTableName);
        }
      }
      if (uses.sealingKey && uses.sealingKey !== "named") {
        GRANTS.sealingKey[uses.sealingKey](role, parts);
      }
      if (uses.postbackSecrets) GRANTS.postbackSecrets[uses.postbackSecrets](role, parts);
      if (uses.countries) GRANTS.countries[uses.countries](role, parts);
      if (uses.queries) GRANTS.queries[uses.queries](role, parts);
      if (uses.lake) GRANTS.lake[uses.lake](role, parts);
      if (uses.credentials) GRANTS.credentials[uses.credentials](role, parts);
    },
  };
};

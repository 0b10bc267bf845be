/**
 * Which provider module builds each kind of dependency on AWS (./provider.ts says what a
 * provider is), by the access a row asks for where the access changes the adapter. Data, as
 * the rows are: a function's Lambda entry (lambdas/entries.ts) imports only the providers of the
 * kinds its row uses, and the stores of its tables (each table's `store` in
 * src/adapters/dynamodb/table-definitions.ts).
 */
import type { HandlerRef } from "../functions/handler-ref.ts";
import type { Uses } from "../functions/uses.ts";
import type { ProvidedKind } from "./provider.ts";

type NonTableKind = Exclude<ProvidedKind, "tables">;

/** A provider for every access of the kind, or one per access. */
export const PROVIDERS: {
  readonly [K in NonTableKind]:
    | HandlerRef
    | { readonly [A in Extract<NonNullable<Uses[K]>, string>]: HandlerRef };
} = {
  streams: "aws/firehose-streams.ts#firehoseStreams",
  queues: "aws/sqs-queues.ts#sqsQueues",
  sealingKey: "aws/kms-keyrings.ts#kmsKeyrings",
  postbackSecrets: "aws/kms-keyrings.ts#kmsKeyWrapper",
  rates: { read: "aws/rates.ts#s3Rates", write: "aws/rates-job.ts#s3RatesJob" },
  countries: "aws/geoip-countries.ts#geoipCountries",
  queries: {
    export: "aws/athena-engine.ts#athenaEngine",
    reports: "aws/athena-reports.ts#athenaReports",
  },
  lake: "aws/s3-lake-purger.ts#s3LakePurger",
  appleAds: "aws/apple-ads.ts#appleAds",
  credentials: "aws/cognito-credentials.ts#cognitoCredentials",
};

export const NON_TABLE_KINDS = Object.keys(PROVIDERS) as NonTableKind[];

/** The provider of a kind a row uses, for the access it asks. */
export const providerOf = (kind: NonTableKind, uses: Uses): HandlerRef => {
  const provider: HandlerRef | Readonly<Record<string, HandlerRef>> = PROVIDERS[kind];
  if (typeof provider === "string") return provider;
  const access = uses[kind];
  const found = typeof access === "string" ? provider[access] : undefined;
  if (!found) throw new Error(`No provider of ${kind} for ${String(access)}`);
  return found;
};

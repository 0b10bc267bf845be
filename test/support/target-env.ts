/**
 * What the black-box suite's targets are and lack, and how a deployed stack is read: shared by
 * the suite (./target.ts) and by `npm run test:localstack` (test/localstack/run.ts), so without
 * the test runner's imports.
 */
import { readFileSync } from "node:fs";
import * as z from "zod";

export const TARGET_KINDS = ["embedded", "localstack", "aws"] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

/** ATTRIBUTION_TEST_TARGET's value as a target, the embedded runtime when unset. */
export const targetKindOf = (value: string | undefined): TargetKind => {
  const kind = value || "embedded";
  if (!(TARGET_KINDS as readonly string[]).includes(kind)) {
    throw new Error(`ATTRIBUTION_TEST_TARGET=${kind}: must be one of ${TARGET_KINDS.join(", ")}`);
  }
  return kind as TargetKind;
};

/**
 * What a test may need beyond the API's own routes, and which targets lack it, with why. The
 * reasons are printed in the names of the tests a target skips; the embedded runtime lacks
 * nothing, so every test runs there.
 */
export const CAPABILITIES = {
  /** The export route: Athena over the Glue tables of the Parquet lake that Firehose writes. */
  export: {
    localstack:
      "the export queries Athena over the Glue tables of the Parquet files Firehose converts; LocalStack's free plan has neither Athena nor Glue, so the stack is deployed without them (lakeQueries=false)",
  },
  /** Deletions completed by the purge, which rewrites the lake's Parquet files. */
  purge: {
    localstack:
      "the purge rewrites the lake's Parquet files, which Firehose writes only with the Glue tables left out on LocalStack, so the stack is deployed without the purge (lakeQueries=false)",
  },
  /** The link host: an API Gateway HTTP API. */
  linkHost: {
    localstack:
      "the link host is an API Gateway HTTP API (v2), which LocalStack's free plan lacks, so the stack is deployed without it (linkHost=false)",
  },
  /** A mock ad network on this machine, which the target's postbacks reach. */
  loopbackPartner: {
    localstack:
      "postbacks go to public https addresses only, and the stack's functions cannot reach a mock network on this machine",
    aws: "postbacks go to public https addresses only, and the stack's functions cannot reach a mock network on this machine",
  },
} as const satisfies Record<string, Partial<Record<TargetKind, string>>>;
export type Capability = keyof typeof CAPABILITIES;

/** Why `kind` cannot run a test that needs these, or undefined when it can. */
export const missingOn = (kind: TargetKind, needs: readonly Capability[]): string | undefined => {
  const reasons = needs.flatMap((need) => {
    const reason = (CAPABILITIES[need] as Partial<Record<TargetKind, string>>)[kind];
    return reason ? [reason] : [];
  });
  return reasons.length ? reasons.join("; ") : undefined;
};

/** The stack outputs the suite reads, as `cdk deploy --outputs-file` writes them. */
const StackOutputs = z.object({
  ApiUrl: z.url(),
  LinkHostUrl: z.url().optional(),
  AppsTableName: z.string(),
  KeysTableName: z.string(),
  LinksTableName: z.string(),
  SealingKeyArn: z.string().optional(),
  AthenaWorkGroupName: z.string().optional(),
  GlueDatabaseName: z.string().optional(),
});
export type StackOutputs = z.infer<typeof StackOutputs>;

/** The one stack of an outputs file (`{ "<stack>": { ApiUrl, … } }`). */
export const readStackOutputs = (file: string): StackOutputs => {
  const parsed = z.record(z.string(), z.unknown()).parse(JSON.parse(readFileSync(file, "utf8")));
  const stacks = Object.values(parsed);
  if (stacks.length !== 1) {
    throw new Error(`${file} holds ${stacks.length} stacks' outputs; the suite tests one`);
  }
  return StackOutputs.parse(stacks[0]);
};

/**
 * An API's URL as LocalStack answers it on its own endpoint, whatever host name its
 * CloudFormation gave the API (`https://<api>.execute-api.<region>.amazonaws.com/<stage>/`, or a
 * LocalStack host): `<endpoint>/_aws/execute-api/<api>/<stage>/`, which needs no DNS for the API's
 * host name and works for a LocalStack on another machine. Any other URL is kept.
 */
export const localstackUrl = (url: string, endpoint: string): string => {
  const parsed = new URL(url);
  const api = /^([a-z0-9]+)\.execute-api\./.exec(parsed.hostname);
  if (!api) return url;
  const base = new URL(endpoint).origin;
  return `${base}/_aws/execute-api/${api[1]}${parsed.pathname}${parsed.search}`;
};

/**
 * The environment the admin CLI acts on a deployed stack with: its tables and keys by the
 * stack's outputs (src/cli/admin-stores.ts); on LocalStack, its endpoint for every service.
 */
export const cliEnvOf = (
  outputs: StackOutputs,
  localstackEndpoint: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> => {
  const url = (value: string) =>
    localstackEndpoint ? localstackUrl(value, localstackEndpoint) : value;
  return {
    ATTRIBUTION_AWS_APPS_TABLE: outputs.AppsTableName,
    ATTRIBUTION_AWS_KEYS_TABLE: outputs.KeysTableName,
    ATTRIBUTION_AWS_LINKS_TABLE: outputs.LinksTableName,
    ...(outputs.SealingKeyArn ? { ATTRIBUTION_AWS_SEALING_KEY_ARN: outputs.SealingKeyArn } : {}),
    ...(outputs.LinkHostUrl ? { ATTRIBUTION_AWS_LINK_HOST_URL: url(outputs.LinkHostUrl) } : {}),
    ...(outputs.AthenaWorkGroupName && outputs.GlueDatabaseName
      ? {
          ATTRIBUTION_AWS_ATHENA_WORKGROUP: outputs.AthenaWorkGroupName,
          ATTRIBUTION_AWS_GLUE_DATABASE: outputs.GlueDatabaseName,
        }
      : {}),
    // LocalStack answers every service on one endpoint, with any credentials.
    ...(localstackEndpoint
      ? {
          AWS_ENDPOINT_URL: localstackEndpoint,
          AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID ?? "test",
          AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY ?? "test",
          AWS_REGION: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? "us-east-1",
        }
      : {}),
  };
};

/**
 * The installs an Athena export leaves out, as a list Athena reads from S3.
 *
 * A deleted install is left out of every export until its rows are purged, and after that
 * too. Written into the query as `NOT IN ('id', …)`, the list would grow with every deletion
 * request an app ever made, and Athena refuses a query over 262,144 bytes: about 6,000
 * deletions. So the list goes to an object in the results bucket, one install per line,
 * under a name made from its content, and the query reads it through the Glue table below
 * (its one partition key injected, so Athena reads only that list). The same list gets the
 * same name, so the same export of the same data is the same query, and Athena may reuse its
 * result. The objects expire with the other query results.
 */
import { createHash } from "node:crypto";
import { PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { isIdentifier } from "../../ingest/fields.ts";
import { type Exclusion, sqlString } from "../../lake/export-query.ts";

/** The Glue table over the lists, defined here for the CDK stack and the query alike. */
export const EXCLUSIONS_TABLE = {
  name: "export_exclusions",
  /** Under the results bucket; each list sits in `<prefix><list>/`. */
  prefix: "exclusions/",
  /** The partition key: which list. */
  partitionKey: "list",
  column: "service_id",
} as const;

export interface ExclusionList {
  /** The partition value, a digest of the content. */
  readonly list: string;
  /** How many ids it holds: the query checks that it read them all. */
  readonly count: number;
  /** The object key in the results bucket. */
  readonly key: string;
  readonly body: string;
}

/**
 * The list object of a set of service ids. Service ids are made of letters, digits and
 * `._:-` (the ingestion rule), so a line holds exactly one and needs no quoting.
 */
export const exclusionList = (serviceIds: readonly string[]): ExclusionList => {
  // Anything else could split a line, or read as Hive's null (\N) or field separator.
  if (!serviceIds.every(isIdentifier)) {
    throw new RangeError("a service id to leave out breaks the service id rule");
  }
  const ids = [...new Set(serviceIds)].sort();
  const body = ids.map((id) => `${id}\n`).join("");
  const list = createHash("sha256").update(body).digest("hex");
  return {
    list,
    count: ids.length,
    key: `${EXCLUSIONS_TABLE.prefix}${list}/service-ids.txt`,
    body,
  };
};

/**
 * Where a query reads the installs to leave out: their list, written to the results bucket
 * first. Never deleted by a query: another may be reading the same list, and it expires with
 * the results. `qualified` names a table of the query's database.
 */
export const uploadExclusion = async (
  options: {
    readonly s3: S3Client;
    readonly resultsBucket: string;
    readonly qualified: (table: string) => string;
  },
  serviceIds: readonly string[],
): Promise<Exclusion | undefined> => {
  if (serviceIds.length === 0) return undefined;
  const { list, count, key, body } = exclusionList(serviceIds);
  await options.s3.send(
    new PutObjectCommand({
      Bucket: options.resultsBucket,
      Key: key,
      Body: body,
      ContentType: "text/plain; charset=utf-8",
    }),
  );
  const { name, column, partitionKey } = EXCLUSIONS_TABLE;
  return {
    serviceIdsFrom: `SELECT ${column} FROM ${options.qualified(name)} WHERE ${partitionKey} = ${sqlString(list)}`,
    count,
  };
};

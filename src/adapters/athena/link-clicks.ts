/**
 * Clicks per link, counted by Athena from the lake's touches table (the CLI's `links list`
 * against a deployed stack): one query, its small CSV result read back from S3.
 */
import { randomUUID } from "node:crypto";
import type { AthenaClient } from "@aws-sdk/client-athena";
import type { S3Client } from "@aws-sdk/client-s3";
import { parse } from "csv-parse/sync";
import { TOUCHES_TABLE } from "../../lake/lake-tables.ts";
import { linkClicksQuery } from "../../lake/link-clicks-query.ts";
import { runQuery } from "./run-query.ts";
import { openObject, parseS3Uri, readText } from "./s3-object.ts";

export interface AthenaLinkClicksOptions {
  readonly athena: AthenaClient;
  readonly s3: S3Client;
  readonly workGroup: string;
  readonly database: string;
  readonly pollIntervalMs?: number;
}

export const athenaLinkClicks =
  (options: AthenaLinkClicksOptions) =>
  async (appId: string): Promise<Map<string, number>> => {
    const { location } = await runQuery(options.athena, {
      queryString: linkClicksQuery(`"${TOUCHES_TABLE.name}"`, appId),
      workGroup: options.workGroup,
      database: options.database,
      // Each count is asked anew, on the touches as they are then.
      idempotencyKey: `link-clicks/${appId}/${randomUUID()}`,
      pollIntervalMs: options.pollIntervalMs ?? 500,
      fresh: true,
    });
    const { body } = await openObject(options.s3, parseS3Uri(location));
    const rows: unknown = parse(await readText(body), { columns: true, skip_empty_lines: true });
    const counts = new Map<string, number>();
    for (const row of Array.isArray(rows) ? rows : []) {
      if (typeof row === "object" && row && "deeplink_id" in row && "clicks" in row) {
        counts.set(String(row.deeplink_id), Number(row.clicks));
      }
    }
    return counts;
  };

/**
 * The SKAdNetwork report's query, for both engines as the other reports (src/reports): an app's
 * postbacks received in a window, from the lake's `apple_postbacks` table, grouped by what the
 * report reads, each postback once (a transaction's window, as the postbacks table keys it: a row
 * put twice by a stream's or a device's retry counts once, and a verified copy over an
 * unverified one).
 * src/skadnetwork/report.ts folds the groups into the report.
 */
import { DAY_MS } from "../domain/time.ts";
import { type Dialect, sqlString } from "../lake/export-query.ts";
import {
  type ApplePostbackGroup,
  type CoarseValue,
  UNVERIFIED_POSTBACK_DAYS,
} from "../ports/apple-postbacks.ts";
import { dayOf } from "../reports/days.ts";
import { partitionsOfDays, timestampLiteral } from "../reports/queries.ts";
import { CAMPAIGN_ID_VERSIONS, REENGAGEMENT } from "./postbacks.ts";

/** The columns the report groups by, as the lake names them. */
const COLUMNS = [
  "ad_network_id",
  "source_identifier",
  "postback_sequence_index",
  "did_win",
  "redownload",
  "conversion_type",
  "conversion_value",
  "coarse_conversion_value",
  "verification",
  "environment",
] as const;

/**
 * How far apart in time a transaction's rows may lie: a device retries a postback it got no 200
 * for during up to 9 days, and each try whose item was not stored wrote its row. Rows this far
 * either side of a window are read to choose each transaction's row, so that the one chosen is
 * the same whatever window is asked: a transaction is in one day's report, never in two.
 */
export const COPY_SPREAD_DAYS = 10;

/** The days whose rows the query reads for a window (their partitions, and the late ones after). */
export const skadnetworkDaysOf = (from: Date, to: Date): { from: string; to: string } => ({
  from: dayOf(new Date(from.getTime() - COPY_SPREAD_DAYS * DAY_MS)),
  to: dayOf(new Date(to.getTime() + COPY_SPREAD_DAYS * DAY_MS)),
});

export const buildSkadnetworkQuery = (input: {
  readonly dialect: Dialect;
  readonly appId: string;
  /** Received from (included) to (left out). */
  readonly from: Date;
  readonly to: Date;
  /** The lake's apple_postbacks table as the engine names it. */
  readonly source: string;
  /**
   * Now: an unverified postback received more than UNVERIFIED_POSTBACK_DAYS before it is left
   * out, as the postbacks table forgets it then, so the CLI's report (which reads the table)
   * and this one give the same figures.
   */
  readonly now: Date;
}): string => {
  const { dialect, appId, from, to } = input;
  const unverifiedFrom = new Date(input.now.getTime() - UNVERIFIED_POSTBACK_DAYS * DAY_MS);
  const at = timestampLiteral[dialect];
  // A postback's row is its day's, or a later one's when the lake took it late.
  const days = skadnetworkDaysOf(from, to);
  const partitions = partitionsOfDays(days.from, days.to);
  const keys = [...COLUMNS, "identifier_field", "values_disputed"].join(", ");
  const versions = CAMPAIGN_ID_VERSIONS.map(sqlString).join(", ");
  const postback = "PARTITION BY p.kind, p.transaction_id, p.postback_sequence_index";
  /**
   * Whether the postback's copies Apple signed in this row's environment carry two values of
   * `column` (`none`: null's). A test's copy, signed with a development key, disputes no copy
   * signed for production, nor the reverse.
   */
  const signedDiffer = (column: string, none: string) => {
    const value = `CASE WHEN p.verification = 'verified' THEN coalesce(p.${column}, ${none}) END`;
    const alike = `${postback}, p.environment`;
    return `min(${value}) OVER (${alike}) <> max(${value}) OVER (${alike})`;
  };
  // Two copies Apple signed with other values (which it does not sign): the postback counts with
  // none, as the postbacks table marks it disputed.
  const disputed = `(${signedDiffer("conversion_value", "-1")} OR ${signedDiffer("coarse_conversion_value", "''")})`;
  const selected = COLUMNS.map((column) =>
    column === "conversion_value" || column === "coarse_conversion_value"
      ? `CASE WHEN ${disputed} THEN NULL ELSE p.${column} END AS ${column}`
      : column,
  );
  // One row per postback, chosen among all of its rows whatever the window: the copy of highest
  // standing, as the table keeps it (signed for production, then a test's, then unverified:
  // ports/apple-postbacks.ts's copyStanding), and of these the last received, the one whose
  // item the table kept (an earlier try's item was not stored, which is why the device tried
  // again). The transaction is the window's when that row was received in it.
  return `SELECT ${keys}, count(*) AS postbacks
FROM (
  SELECT ${selected.join(", ")},
    CASE WHEN p.kind = 'skadnetwork' AND p.version IN (${versions})
      THEN 'campaign-id' ELSE 'source-identifier' END AS identifier_field,
    CASE WHEN ${disputed} THEN 1 ELSE 0 END AS values_disputed,
    p.received_at,
    row_number() OVER (
      ${postback}
      ORDER BY CASE WHEN p.verification <> 'verified' THEN 2
        WHEN p.environment = 'production' THEN 0 ELSE 1 END, p.received_at DESC
    ) AS copy
  FROM ${input.source} AS p
  WHERE p.app_id = ${sqlString(appId)}
    AND p.dt BETWEEN ${sqlString(partitions.from)} AND ${sqlString(partitions.to)}
    AND p.received_at >= ${at(new Date(from.getTime() - COPY_SPREAD_DAYS * DAY_MS))}
    AND p.received_at < ${at(new Date(to.getTime() + COPY_SPREAD_DAYS * DAY_MS))}
) AS t
WHERE t.copy = 1
  AND t.received_at >= ${at(from)}
  AND t.received_at < ${at(to)}
  AND (t.verification <> 'unverified' OR t.received_at >= ${at(unverifiedFrom)})
GROUP BY ${keys}`;
};

const textOf = (value: unknown): string | null =>
  value === null || value === undefined || value === "" ? null : String(value);

const numberOf = (name: string, value: unknown): number => {
  const parsed = typeof value === "bigint" || typeof value === "string" ? Number(value) : value;
  if (typeof parsed !== "number" || !Number.isFinite(parsed) || value === "") {
    throw new Error(`skadnetwork result column ${name} is not a number: ${String(value)}`);
  }
  return parsed;
};

const COARSE = new Set<string>(["low", "medium", "high"]);

/** A result row as an engine reads it (DuckDB's values, Athena's CSV text) as a group. */
export const applePostbackGroupOf = (
  values: Readonly<Record<string, unknown>>,
): ApplePostbackGroup => {
  const fine = textOf(values.conversion_value);
  const coarse = textOf(values.coarse_conversion_value);
  const status = textOf(values.verification);
  const environment = textOf(values.environment);
  return {
    adNetworkId: textOf(values.ad_network_id) ?? "",
    sourceIdentifier: textOf(values.source_identifier) ?? "",
    identifierField:
      textOf(values.identifier_field) === "campaign-id" ? "campaign-id" : "source-identifier",
    sequenceIndex: numberOf("postback_sequence_index", values.postback_sequence_index),
    didWin: numberOf("did_win", values.did_win) === 1,
    redownload: numberOf("redownload", values.redownload) === 1,
    reengagement: textOf(values.conversion_type) === REENGAGEMENT,
    conversionValue: fine === null ? null : numberOf("conversion_value", fine),
    coarseValue: coarse !== null && COARSE.has(coarse) ? (coarse as CoarseValue) : null,
    verification: {
      status: status === "verified" ? "verified" : "unverified",
      environment:
        environment === "production" || environment === "development" ? environment : null,
    },
    valuesDisputed: numberOf("values_disputed", values.values_disputed) === 1,
    postbacks: numberOf("postbacks", values.postbacks),
  };
};

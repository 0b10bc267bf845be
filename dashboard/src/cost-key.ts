/**
 * The key the service stores a cost row under (src/costs/cost-rows.ts's costKeyOf, which
 * digests the same parts): its day, media source, campaign, ad set and ad, each of these two by
 * its id when it has one, else by its name (tagged, so an id and a name never meet), and country.
 * The rows of one answer differ in it, so it keys them in a table: ids alone would make every row
 * naming its ad set or ad by name one row of "no ad set".
 */
import type { CostRow } from "./api.ts";

const namedBy = (id: string | null, name: string | null) =>
  id !== null ? ["id", id] : name !== null ? ["name", name] : null;

export const costRowKey = (
  row: Pick<
    CostRow,
    | "day"
    | "media_source"
    | "campaign_id"
    | "adset_id"
    | "adset_name"
    | "ad_id"
    | "ad_name"
    | "country"
  >,
): string =>
  JSON.stringify([
    row.day,
    row.media_source,
    row.campaign_id,
    namedBy(row.adset_id, row.adset_name),
    namedBy(row.ad_id, row.ad_name),
    row.country,
  ]);

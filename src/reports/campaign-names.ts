/**
 * Campaigns renamed at their network. A network keeps a campaign's id when its name changes
 * ("Summer v1" to "Summer v2", id 123), and each touch carries the name of its moment, so a
 * report grouping campaigns by name would show the campaign twice and put a cost row of id 123
 * in one of the two. As AppsFlyer shows a campaign under the name its network reported last,
 * the overview and the cohorts show every row of a renamed campaign (its installs, touches and
 * active users, and the cost rows naming its id) under the name of its latest touch up to the
 * window's end, and a campaign filter names it by that name.
 *
 * The renamed campaigns are read first, by a small query of the touches alone
 * (./campaign-names-query.ts: the window's, and those before it that its installs' winning
 * touches may be), and given to the report's own query as literals, a CASE on media source and campaign id where it names a campaign: the
 * report's query reads no table more often than it did (Athena inlines a CTE at each place it
 * is named), and a name is dated by its touch, so that an install won late by a click from
 * before the rename does not bring the old name back.
 */
import { sqlString } from "../lake/export-query.ts";
import type { CostRow } from "../ports/costs.ts";
import type { RenamedCampaign } from "../ports/reports.ts";
import { idKey } from "./name-keys.ts";

/**
 * The renamed campaigns a report takes at most, the most recently touched: each is a literal in
 * the report's query wherever a campaign is named, which bounds its length. Past them, a
 * campaign is grouped by its name, else its id, as one that was never renamed.
 */
export const MAX_RENAMED_CAMPAIGNS = 100;

/** The columns (SQL) naming a row's campaign: its media source, campaign id and name. */
export interface CampaignColumns {
  readonly mediaSource: string;
  readonly id: string;
  readonly name: string;
}

/**
 * SQL: a row's campaign as the reports group and filter it: a renamed campaign's latest name,
 * else the row's name, else its id.
 */
export const campaignKeyOf = (
  renamed: readonly RenamedCampaign[] | undefined,
  columns: CampaignColumns,
): string => {
  const named = `coalesce(${columns.name}, ${columns.id})`;
  if (!renamed || renamed.length === 0) return named;
  // The id's test first: a row of a campaign never renamed (most rows) is one lookup.
  const ids = [...new Set(renamed.map((campaign) => sqlString(campaign.campaign_id)))];
  const cases = renamed
    .map(
      (campaign) =>
        `WHEN ${columns.mediaSource} = ${sqlString(campaign.media_source)} AND ${columns.id} = ${sqlString(campaign.campaign_id)} THEN ${sqlString(campaign.campaign_name)}`,
    )
    .join(" ");
  return `(CASE WHEN ${columns.id} IN (${ids.join(", ")}) THEN (CASE ${cases} ELSE ${named} END) ELSE ${named} END)`;
};

/** The columns of a relation's rows, under an alias, as the lake's tables name them. */
export const campaignColumnsOf = (alias: string): CampaignColumns => ({
  mediaSource: `${alias}.media_source`,
  id: `${alias}.campaign_id`,
  name: `${alias}.campaign_name`,
});

/**
 * Cost rows as the reports read them: one naming a renamed campaign's id takes its latest name,
 * so that it is the campaign's cost under either name it was sent with, and a filter by a name
 * the campaign no longer has finds neither its cost nor its installs.
 */
export const withLatestCampaignNames = (
  costs: readonly CostRow[],
  renamed: readonly RenamedCampaign[],
): CostRow[] => {
  if (renamed.length === 0) return [...costs];
  const latest = new Map(
    renamed.map((campaign) => [
      JSON.stringify([campaign.media_source, idKey(campaign.campaign_id)]),
      campaign.campaign_name,
    ]),
  );
  return costs.map((row) => {
    // Its id as the cost rule matches ids (./name-keys.ts): " 123" is 123.
    const name = latest.get(JSON.stringify([row.mediaSource, idKey(row.campaignId)]));
    return name === undefined ? row : { ...row, campaignName: name };
  });
};

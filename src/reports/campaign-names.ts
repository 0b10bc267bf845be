/**
 * Campaigns renamed at their network. A network keeps a campaign's id when its name changes
 * ("Summer v1" to "Summer v2", id 123), and each touch carries the name of its moment, so a
 * report grouping campaigns by name would show the campaign twice and put a cost row of id 123
 * in one of the two. As AppsFlyer shows a campaign under the name its network reported last,
 * the overview and the cohorts show every row of a renamed campaign (its installs, touches and
 * active users, and the cost rows naming its id) under the name of its latest touch up to the
 * window's end, and a campaign filter names it by that name. A row that names no campaign id
 * but one of its former names, of the same media source (a link made by hand with the name
 * alone), is of it too, unless another campaign of the media source had that name too.
 *
 * The renamed campaigns are read first, by a small query of the touches alone
 * (./campaign-names-query.ts: the window's, and those before it that its installs' winning
 * touches may be), and given to the report's own query as one literal relation
 * (`renamed_campaigns`, a VALUES list) that each relation naming a campaign joins: the report's
 * query reads no table more often than it did (Athena inlines a CTE at each place it is named,
 * and this one reads none), its text holds each name once, and a name is dated by its touch, so
 * that an install won late by a click from before the rename does not bring the old name back.
 */
import { sqlString } from "../lake/export-query.ts";
import type { CostRow } from "../ports/costs.ts";
import type { RenamedCampaign } from "../ports/reports.ts";
import { idKey, nameKey } from "./name-keys.ts";

/**
 * The renamed campaigns a report takes at most, the most recently touched, and the former
 * names of each: past them, a campaign is its name, else its id, as one never renamed (and a
 * row naming an older name alone is of that name).
 */
export const MAX_RENAMED_CAMPAIGNS = 100;
export const MAX_FORMER_NAMES = 20;

/**
 * The bytes of the renamed campaigns' literals a report's query text holds at most: Athena
 * takes a query of 262,144 bytes at most, and names may be long (200 characters, each up to 3
 * bytes, a quote written twice). The campaigns past it are left out, the least recently
 * touched first, from the report and its cost rows alike.
 */
export const RENAMED_LITERAL_BYTES = 64 * 1024;

/** The literal relation the report's query names them by. */
const RELATION = "renamed_campaigns";

const literalBytes = (text: string) => Buffer.byteLength(sqlString(text));

/**
 * The campaigns whose literals fit RENAMED_LITERAL_BYTES, in their order: their ids' rows first
 * (what merges a campaign), then their former names' while room is left (what takes the rare
 * row naming an old name and no id).
 */
export const withinLiteralBudget = (
  renamed: readonly RenamedCampaign[],
): readonly RenamedCampaign[] => {
  let bytes = 0;
  const kept: RenamedCampaign[] = [];
  for (const campaign of renamed) {
    const idRow =
      literalBytes(campaign.media_source) +
      literalBytes(campaign.campaign_id) +
      literalBytes(campaign.campaign_name);
    if (bytes + idRow > RENAMED_LITERAL_BYTES) break;
    bytes += idRow;
    kept.push({ ...campaign, former_names: [] });
  }
  return kept.map((campaign, index) => {
    const former = renamed[index]?.former_names ?? [];
    const fitting: string[] = [];
    for (const name of former) {
      // A former name's row repeats the media source and the latest name.
      const nameRow =
        literalBytes(name) +
        literalBytes(campaign.media_source) +
        literalBytes(campaign.campaign_name);
      if (bytes + nameRow > RENAMED_LITERAL_BYTES) break;
      bytes += nameRow;
      fitting.push(name);
    }
    return { ...campaign, former_names: fitting };
  });
};

/**
 * The former names a row that names no id is taken by: of one renamed campaign of its media
 * source, and no renamed campaign's latest name there (which would make the row that one's).
 */
const unambiguousFormerNames = (renamed: readonly RenamedCampaign[]) => {
  const owners = new Map<string, RenamedCampaign[]>();
  const latest = new Set(
    renamed.map((campaign) => JSON.stringify([campaign.media_source, campaign.campaign_name])),
  );
  for (const campaign of renamed) {
    for (const name of new Set(campaign.former_names)) {
      const key = JSON.stringify([campaign.media_source, name]);
      owners.set(key, [...(owners.get(key) ?? []), campaign]);
    }
  }
  return [...owners]
    .filter(([key, campaigns]) => campaigns.length === 1 && !latest.has(key))
    .map(([key, campaigns]) => {
      const [, name] = JSON.parse(key) as [string, string];
      return { campaign: campaigns[0] as RenamedCampaign, name };
    });
};

/**
 * The relation as the first of a query's CTEs (`WITH <this>report_rows AS …`), or nothing
 * when none is renamed: a row per campaign by its id, and one per former name a row naming no
 * id is taken by.
 */
export const renamedCampaignsCte = (renamed: readonly RenamedCampaign[] | undefined): string => {
  if (!renamed || renamed.length === 0) return "";
  const rows = [
    ...renamed.map(
      (campaign) =>
        `(${sqlString(campaign.media_source)}, ${sqlString(campaign.campaign_id)}, CAST(NULL AS VARCHAR), ${sqlString(campaign.campaign_name)})`,
    ),
    ...unambiguousFormerNames(renamed).map(
      ({ campaign, name }) =>
        `(${sqlString(campaign.media_source)}, CAST(NULL AS VARCHAR), ${sqlString(name)}, ${sqlString(campaign.campaign_name)})`,
    ),
  ];
  return `${RELATION} AS (
  SELECT * FROM (VALUES
    ${rows.join(",\n    ")}
  ) AS renamed (media_source, campaign_id, former_name, campaign_name)
),
`;
};

/**
 * The joins that give a relation's rows (under `alias`, with `media_source`, `campaign_id` and
 * `campaign_name`) their renamed campaign's latest name: by its id, or, naming none, by a
 * former name. Nothing when none is renamed. Each matches one row of the relation at most.
 */
export const renamedJoins = (
  renamed: readonly RenamedCampaign[] | undefined,
  alias: string,
): string =>
  !renamed || renamed.length === 0
    ? ""
    : `
  LEFT JOIN ${RELATION} AS ${alias}_renamed
    ON ${alias}_renamed.media_source = ${alias}.media_source
    AND ${alias}_renamed.campaign_id = ${alias}.campaign_id
  LEFT JOIN ${RELATION} AS ${alias}_former
    ON ${alias}_former.media_source = ${alias}.media_source
    AND ${alias}_former.former_name = CASE WHEN ${alias}.campaign_id IS NULL THEN ${alias}.campaign_name END`;

/** SQL: the name of a row of `alias` (joined by `renamedJoins`): a renamed campaign's latest. */
export const campaignNameOf = (
  renamed: readonly RenamedCampaign[] | undefined,
  alias: string,
): string =>
  !renamed || renamed.length === 0
    ? `${alias}.campaign_name`
    : `coalesce(${alias}_renamed.campaign_name, ${alias}_former.campaign_name, ${alias}.campaign_name)`;

/**
 * SQL: a row's campaign as the reports group and filter it: its name (a renamed campaign's
 * latest), else its id.
 */
export const campaignKeyOf = (
  renamed: readonly RenamedCampaign[] | undefined,
  alias: string,
): string => `coalesce(${campaignNameOf(renamed, alias)}, ${alias}.campaign_id)`;

/**
 * A cost row as the cohorts' fold reads it (./cohorts.ts): one of a renamed campaign named by
 * its latest name, and `sentCampaignName` the name it was sent with when that is one of the
 * campaign's former names (as the cost rule spells names: whatever their case), which it then
 * still matches the installs and touches naming no id by (a link made by hand with the old
 * name: its spend is in the network's row). A name another campaign of the media source had
 * too is no former name here, so that a cost row never takes that campaign's rows.
 */
export interface CohortCostRow extends CostRow {
  readonly sentCampaignName?: string | null;
}

/**
 * Cost rows as the reports read them: one naming a renamed campaign's id takes its latest name,
 * as the query's rows of that campaign do, so that it is the campaign's cost under whichever
 * name it was sent with, and a filter by a name the campaign no longer has finds neither its
 * cost nor its installs. (A cost row always names a campaign id.)
 */
export const withLatestCampaignNames = (
  costs: readonly CostRow[],
  renamed: readonly RenamedCampaign[],
): CohortCostRow[] => {
  const byId = new Map<string, RenamedCampaign>();
  // Ids as the cost rule matches them (./name-keys.ts: " 123" is 123); of two such, the most
  // recently touched, which comes first.
  for (const campaign of renamed) {
    const key = JSON.stringify([campaign.media_source, idKey(campaign.campaign_id)]);
    if (!byId.has(key)) byId.set(key, campaign);
  }
  return costs.map((row) => {
    const campaign = byId.get(JSON.stringify([row.mediaSource, idKey(row.campaignId)]));
    if (campaign === undefined || campaign.campaign_name === row.campaignName) return row;
    const sent = row.campaignName;
    const former =
      sent !== null && campaign.former_names.some((name) => nameKey(name) === nameKey(sent));
    return {
      ...row,
      campaignName: campaign.campaign_name,
      ...(former ? { sentCampaignName: sent } : {}),
    };
  });
};

/** The query reading an app's renamed campaigns (./campaign-names.ts), for both engines. */
import { type Dialect, sqlString } from "../lake/export-query.ts";
import type { RenamedCampaign } from "../ports/reports.ts";
import { MAX_FORMER_NAMES, MAX_RENAMED_CAMPAIGNS } from "./campaign-names.ts";
import { addDays } from "./days.ts";
import { partitionsOfDays, reportDays, touchDaysOf } from "./queries.ts";

export interface RenamedCampaignsQueryInput {
  readonly dialect: Dialect;
  readonly appId: string;
  /** The report's days of the time zone, both included. */
  readonly from: string;
  readonly to: string;
  readonly timeZone?: string;
  /** The touches table (or, embedded, the files of the days `touchDaysOf` gives). */
  readonly touches: string;
}

/**
 * The app's campaigns named by more than one name among the touches up to the window's end
 * that the window's installs may have won (src/reports/queries.ts's `touchDaysOf`): a row per
 * name, the latest (`name_rank` 1: of its latest touch, the greater name of two touches at one
 * moment) first, the campaigns most recently touched first (`campaign_rank`). An empty name is
 * none. A former name another campaign of the media source was named too (renamed or not: a
 * name the network gave a new campaign) is left out, since a row naming it alone is of either.
 */
export const buildRenamedCampaignsQuery = (input: RenamedCampaignsQueryInput): string => {
  const { dialect, appId, from, to } = input;
  const days = reportDays(dialect, input.timeZone, { from, to });
  const touchDays = touchDaysOf(from, to, days);
  const partitions = partitionsOfDays(touchDays.from, touchDays.to);
  const campaign = "PARTITION BY media_source, campaign_id";
  return `WITH names AS (
  SELECT t.media_source, t.campaign_id, t.campaign_name, max(t.touch_time) AS last_touch
  FROM ${input.touches} AS t
  WHERE t.app_id = ${sqlString(appId)}
    AND t.dt BETWEEN ${sqlString(partitions.from)} AND ${sqlString(partitions.to)}
    AND t.touch_time < ${days.startLiteral(addDays(to, 1))}
    AND t.media_source IS NOT NULL
    AND t.campaign_id IS NOT NULL
    AND t.campaign_name IS NOT NULL
    AND t.campaign_name <> ''
  GROUP BY t.media_source, t.campaign_id, t.campaign_name
),
ranked AS (
  SELECT names.*,
    row_number() OVER (${campaign} ORDER BY last_touch DESC, campaign_name DESC) AS name_rank,
    count(*) OVER (${campaign}) AS name_count,
    count(*) OVER (PARTITION BY media_source, campaign_name) AS name_campaigns,
    max(last_touch) OVER (${campaign}) AS campaign_touch
  FROM names
),
renamed AS (
  SELECT ranked.*,
    dense_rank() OVER (ORDER BY campaign_touch DESC, media_source, campaign_id) AS campaign_rank
  FROM ranked
  WHERE name_count > 1
)
SELECT media_source, campaign_id, campaign_name, name_rank, campaign_rank
FROM renamed
WHERE campaign_rank <= ${MAX_RENAMED_CAMPAIGNS}
  AND (name_rank = 1 OR (name_rank <= ${MAX_FORMER_NAMES + 1} AND name_campaigns = 1))
ORDER BY campaign_rank, name_rank`;
};

/**
 * That query's rows, as either engine gives them (Athena's every value a text): the campaigns
 * it names, most recently touched first, each with its former names, the latest first.
 */
export const renamedCampaignsOf = (
  rows: readonly Readonly<Record<string, unknown>>[],
): RenamedCampaign[] => {
  const ranked = rows
    .map((row) => ({
      mediaSource: String(row.media_source),
      campaignId: String(row.campaign_id),
      name: String(row.campaign_name),
      nameRank: Number(row.name_rank),
      campaignRank: Number(row.campaign_rank),
    }))
    .sort((a, b) => a.campaignRank - b.campaignRank || a.nameRank - b.nameRank);
  const campaigns = new Map<string, { name?: string; former: string[]; of: (typeof ranked)[0] }>();
  for (const row of ranked) {
    const key = JSON.stringify([row.mediaSource, row.campaignId]);
    const campaign = campaigns.get(key) ?? { former: [], of: row };
    campaigns.set(key, campaign);
    if (row.nameRank === 1) campaign.name = row.name;
    else campaign.former.push(row.name);
  }
  return [...campaigns.values()].flatMap(({ name, former, of }) =>
    name === undefined
      ? []
      : [
          {
            media_source: of.mediaSource,
            campaign_id: of.campaignId,
            campaign_name: name,
            former_names: former,
          },
        ],
  );
};

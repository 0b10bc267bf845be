/** The query reading an app's renamed campaigns (./campaign-names.ts), for both engines. */
import { type Dialect, sqlString } from "../lake/export-query.ts";
import type { RenamedCampaign } from "../ports/reports.ts";
import { MAX_RENAMED_CAMPAIGNS } from "./campaign-names.ts";
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
 * that the window's installs may have won (src/reports/queries.ts's `touchDaysOf`), each with
 * the name of its latest touch (the greater name, of two touches at one moment).
 */
export const buildRenamedCampaignsQuery = (input: RenamedCampaignsQueryInput): string => {
  const { dialect, appId, from, to } = input;
  const days = reportDays(dialect, input.timeZone, { from, to });
  const touchDays = touchDaysOf(from, to, days);
  const partitions = partitionsOfDays(touchDays.from, touchDays.to);
  return `WITH names AS (
  SELECT t.media_source, t.campaign_id, t.campaign_name, max(t.touch_time) AS last_touch
  FROM ${input.touches} AS t
  WHERE t.app_id = ${sqlString(appId)}
    AND t.dt BETWEEN ${sqlString(partitions.from)} AND ${sqlString(partitions.to)}
    AND t.touch_time < ${days.startLiteral(addDays(to, 1))}
    AND t.media_source IS NOT NULL
    AND t.campaign_id IS NOT NULL
    AND t.campaign_name IS NOT NULL
  GROUP BY t.media_source, t.campaign_id, t.campaign_name
),
ranked AS (
  SELECT names.*,
    row_number() OVER (
      PARTITION BY media_source, campaign_id ORDER BY last_touch DESC, campaign_name DESC
    ) AS name_rank,
    count(*) OVER (PARTITION BY media_source, campaign_id) AS name_count
  FROM names
)
SELECT media_source, campaign_id, campaign_name
FROM ranked
WHERE name_rank = 1 AND name_count > 1
ORDER BY last_touch DESC, media_source, campaign_id
LIMIT ${MAX_RENAMED_CAMPAIGNS}`;
};

/** A row of that query, as either engine gives it. */
export const renamedCampaignOf = (values: Readonly<Record<string, unknown>>): RenamedCampaign => ({
  media_source: String(values.media_source),
  campaign_id: String(values.campaign_id),
  campaign_name: String(values.campaign_name),
});

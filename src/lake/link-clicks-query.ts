/**
 * Clicks per link of one app, as both query engines count them from the touches table: taps
 * through the link host that were counted (a network's reported clicks name a link only when
 * the network said so, and are not the link's taps). A click may reach the lake more than once
 * (the click log applied again after a stop, the touches table's stream retried, Firehose
 * itself): each is counted once, by its id.
 */
import { sqlString } from "./export-query.ts";

/** `source` is the touches table as the engine names it (a Glue table, a DuckDB relation). */
export const linkClicksQuery = (source: string, appId: string): string =>
  `SELECT deeplink_id, count(DISTINCT click_id) AS clicks
     FROM ${source}
    WHERE app_id = ${sqlString(appId)}
      AND source = 'link' AND touch_type = 'click' AND deeplink_id IS NOT NULL
    GROUP BY deeplink_id`;

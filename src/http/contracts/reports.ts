/** The report routes' contracts: the dashboard's overview, link clicks and latest events. */
import * as z from "zod";
import type { OverviewReport } from "../../ports/reports.ts";
import { COHORT_DAYS } from "../../reports/cohort-query.ts";
import { COST_DAYS_MISSING_MAX, type CohortReport } from "../../reports/cohorts.ts";
import {
  cohortParamsSchema,
  latestEventsParamsSchema,
  linkClicksParamsSchema,
  overviewParamsSchema,
  REPORT_LIMITS,
} from "../../reports/params.ts";
import { TOP_DEEP_LINK_PATHS } from "../../reports/queries.ts";
import type { InTimeZone, LatestEventsAnswer, LinkClicksAnswer } from "../../reports/reports.ts";
import { exportRecordContractSchema } from "./export.ts";
import {
  INTERNAL,
  JSON_MEDIA_TYPE,
  OTHER_APP,
  type RouteContract,
  tiedTo,
  UNKNOWN_PARAMETER,
  unauthorized,
} from "./shared.ts";

const count = (description: string, example: number) =>
  z.int().min(0).meta({ description, example });
const usd = (description: string, example: number) =>
  z.number().meta({ description: `${description} In USD, to a millionth.`, example });
/** Revenue events no rate converts, per currency: the overview's and the cohorts' alike. */
const revenueUnconverted = (example: { currency: string; amount: number }) =>
  z
    .array(
      z.strictObject({
        currency: z.string().meta({ description: "ISO 4217.", example: example.currency }),
        events: count("Its revenue events left out.", 2),
        amount: z.number().meta({
          description: "Their revenue added up, in the currency (refunds negative).",
          example: example.amount,
        }),
      }),
    )
    .meta({ description: "Those events per currency, most first." });
const date = z.iso.date().meta({
  description: "A calendar day of the app's time zone (`time_zone`).",
  example: "2026-11-03",
});
const mediaSource = z
  .string()
  .nullable()
  .meta({
    description:
      "The media source the installs are credited to; `organic` for organic installs, null for " +
      "installs credited to none (attribution skipped, or not in the lake yet).",
    example: "meta_ads",
  });

export const overviewReportSchema = tiedTo<InTimeZone<OverviewReport>>()(
  z
    .strictObject({
      from: date,
      to: date,
      time_zone: z.string().meta({
        description:
          "The app's time zone (its settings' `time_zone`), in which the report's days are counted: an event's day is its day there.",
        example: "UTC",
      }),
      totals: z
        .strictObject({
          installs: count(
            "The installs (their `service_install` events) of the window, reinstalls left out: every install figure of the answer counts these.",
            120,
          ),
          paid_installs: count("Installs credited to a media source other than organic.", 80),
          organic_installs: count("Installs found organic.", 35),
          reinstalls: count(
            "The window's reinstalls: installs of a device that had the app before (an iPhone's IDFV seen before, or a phone of either platform installing again from the click its earlier install holds), counted apart from the installs.",
            4,
          ),
          events: count("Every event of the window, the installs' own included.", 2400),
          revenue_usd: usd(
            "The events' `revenue_usd` summed, a missing one as 0 (`revenue_events_unconverted` counts those of revenue no rate converts).",
            1234.5,
          ),
        })
        .meta({
          description:
            "The window's figures, as the export of the same window counts them. Installs " +
            "neither paid nor organic were skipped (attribution off) or are not attributed yet.",
        }),
      installs_by_day: z
        .array(
          z.strictObject({
            date,
            media_source: mediaSource,
            installs: count("Installs of the day from the source.", 12),
          }),
        )
        .meta({ description: "Each day's installs per media source, by day." }),
      match_status: z
        .array(
          z.strictObject({
            status: z.string().meta({
              description:
                "The install's latest attribution's status: `matched`, `matched_no_params`, " +
                "`organic`, `skipped`, or `pending` while it is not in the lake yet.",
              example: "matched",
            }),
            installs: count("Installs with this status.", 70),
          }),
        )
        .meta({ description: "Installs per attribution status, most first." }),
      match_method: z
        .array(
          z.strictObject({
            method: z.string().meta({
              description:
                "How the install was matched (`matching_type`: `network`, `geo`), else its " +
                "status (`organic`, `skipped`, `pending`).",
              example: "network",
            }),
            installs: count("Installs matched so.", 60),
          }),
        )
        .meta({ description: "Installs per matching method, most first." }),
      events_by_day: z
        .array(
          z.strictObject({
            date,
            event_name: z
              .string()
              .nullable()
              .meta({ description: "The exported event name.", example: "service_purchase" }),
            events: count("Events of the day with this name.", 40),
          }),
        )
        .meta({ description: "Each day's events per event name, by day." }),
      revenue_by_day: z
        .array(
          z.strictObject({
            date,
            revenue_usd: usd("The day's `revenue_usd` summed, a missing one as 0.", 98.7),
          }),
        )
        .meta({ description: "Each day's revenue, by day; days without events are left out." }),
      campaigns: z
        .array(
          z.strictObject({
            media_source: mediaSource,
            campaign: z.string().nullable().meta({
              description:
                "The campaign's name, else its id; null for none. A campaign its network renamed (its id kept) is one row, under the name of its latest touch up to the window's end.",
              example: "Winter Sale",
            }),
            installs: count("The campaign's installs in the window.", 40),
            reinstalls: count(
              "The campaign's reinstalls in the window: devices that had the app, installing it again (apart from `installs`).",
              2,
            ),
            events: count("The window's events of installs credited to the campaign.", 900),
            revenue_usd: usd("Their revenue.", 456.7),
            revenue_per_install: usd("`revenue_usd` / `installs`; 0 without installs.", 11.42),
          }),
        )
        .meta({
          description:
            "Per media source and campaign of the events' installs, most installs first.",
        }),
      deep_link_paths: z
        .array(
          z.strictObject({
            deep_link_path: z.string().meta({ example: "/levels/7" }),
            installs: count("Paid installs whose winning touch's link leads there.", 9),
          }),
        )
        .meta({
          description: `The ${TOP_DEEP_LINK_PATHS} deep link paths of the most paid installs, most first.`,
        }),
      countries: z
        .array(
          z.strictObject({
            country: z.string().nullable().meta({
              description:
                "The ISO 3166-1 alpha-2 code of the country the events were sent from; null where none is known.",
              example: "DE",
            }),
            installs: count("Installs sent from the country.", 25),
            events: count("The window's events sent from it, installs' own included.", 700),
            revenue_usd: usd("Their revenue.", 210.5),
          }),
        )
        .meta({
          description: "Per country the events were sent from, most installs first.",
        }),
      revenue_events_unconverted: count(
        "The window's revenue events left out of every revenue figure (the totals', each day's, each campaign's and country's): no ECB rate of their day (or the 7 days before), nor a peg to the dollar or the euro, converts their currency to USD, so their `revenue_usd` is null.",
        0,
      ),
      revenue_unconverted: revenueUnconverted({ currency: "VND", amount: 250000 }),
    })
    .meta({
      id: "OverviewReport",
      description:
        "An app's days in figures, each part one chart's. It counts the events the export of " +
        "the same window gives: each event once, with its install's latest attribution, the " +
        "installs of deletion requests left out.",
    }),
);

const linkClicksSchema = tiedTo<LinkClicksAnswer>()(
  z
    .strictObject({
      clicks: z
        .array(
          z.strictObject({
            deeplink_id: z.string().meta({ example: "Kx3v9QpZ2aQ" }),
            clicks: count("Counted taps on the link through the link host.", 12),
          }),
        )
        .meta({ description: "Every link tapped at least once, most clicked first." }),
    })
    .meta({ id: "LinkClicksReport" }),
);

const latestEventsSchema = tiedTo<LatestEventsAnswer>()(
  z
    .strictObject({
      events: z
        .array(exportRecordContractSchema)
        .meta({ description: "The newest events, newest first, as the export has them." }),
    })
    .meta({ id: "LatestEventsReport" }),
);

const share = (description: string, example: number) =>
  z.number().min(0).nullable().meta({ description, example });

const cohortFigures = {
  impressions: count(
    "Impressions: the service's own touches of the window, or for a campaign's day of which it has none, what the cost rows of that day report.",
    12000,
  ),
  clicks: count(
    "Clicks: link taps and networks' clicks the service recorded in the window, or for a campaign's day of which it has none, what the cost rows of that day report.",
    800,
  ),
  installs: count(
    "Installs of the window's days, reinstalls left out (as the overview's installs): a reinstall is in no figure of the cohorts but the active users and the cost (what a network charged for it was spent).",
    120,
  ),
  conversion_rate: share(
    "Paid installs (a media source other than organic won them) over clicks, of the campaigns whose clicks are known (the service's touches, else the cost rows'); null without clicks.",
    0.15,
  ),
  cost_usd: usd(
    "Cost of the window's days: the cost rows' (POST /v1/costs), and the cost links and networks' touches carried (CPI installs on their install day, CPC clicks and CPM impressions on their day) where no cost row names the same day, media source and campaign. Null when neither gives one; with a platform filter, whenever the window has cost rows of the filters' media source and campaign (they name no platform).",
    600,
  ).nullable(),
  ecpi_usd: usd(
    "Cost over the paid installs of the campaigns with a cost (effective cost per install): organic installs cost nothing, and the spend of a campaign of no cost row nor carried cost is not known, whatever its media source's other campaigns cost; null without cost or such installs.",
    5,
  ).nullable(),
  paid_installs: count("Installs a media source other than organic won.", 90),
  paid_installs_with_cost: count(
    "Of the paid installs, those of campaigns with a cost: those eCPI and ROAS weigh the cost against.",
    80,
  ),
  revenue_usd: usd(
    `Revenue of these installs' events up to day ${COHORT_DAYS} since each install.`,
    720,
  ),
  revenue_events_unconverted: count(
    `Revenue events of these installs up to day ${COHORT_DAYS} since each install left out of \`revenue_usd\`, ARPU and ROAS: no rate of their day converts their currency to USD (the report's \`revenue_unconverted\` lists them per currency).`,
    0,
  ),
  arpu_usd: usd(
    "That revenue over installs (average revenue per user), to date: installs too young to have reached day 30 lower it.",
    6,
  ).nullable(),
  arpu: z
    .strictObject({
      // Refunds may take it below 0, as `arpu_usd`.
      d0: z.number().nullable().meta({ description: "Day 0.", example: 0.4 }),
      d7: z.number().nullable().meta({ description: "Day 7.", example: 1.9 }),
      d30: z.number().nullable().meta({ description: "Day 30.", example: 4.2 }),
    })
    .meta({
      description:
        "Average revenue per user on day N: the revenue up to day N since install of the installs " +
        "of the install days that have reached day N by today, over those installs, in USD to a " +
        "millionth; null when no install day has.",
    }),
  paying_user_rate: z
    .strictObject({
      d0: share("Day 0.", 0.02),
      d7: share("Day 7.", 0.035),
      d30: share("Day 30.", 0.05),
    })
    .meta({
      description:
        "Paying users: the share of installs with revenue above 0 (in USD) on a day up to day N " +
        "since install, of the install days that have reached day N by today; null when none has.",
    }),
  retention: z
    .strictObject({
      d1: share("Day 1.", 0.4),
      d7: share("Day 7.", 0.18),
      d30: share("Day 30.", 0.07),
    })
    .meta({
      description:
        "Share of installs active (a session) on the N-th calendar day after their install " +
        "day, of the install days that have reached day N by today; null when none has.",
    }),
  roas: z
    .strictObject({
      d0: share("Day 0.", 0.3),
      d7: share("Day 7.", 0.8),
      d30: share("Day 30.", 1.2),
    })
    .meta({
      description:
        "Return on ad spend: the revenue up to day N since install of the paid installs of campaigns with a cost, " +
        "over the cost of the days that reached day N by today; null without cost.",
    }),
};

export const cohortReportSchema = tiedTo<InTimeZone<CohortReport>>()(
  z
    .strictObject({
      from: date,
      to: date,
      time_zone: z.string().meta({
        description:
          "The app's time zone (its settings' `time_zone`), in which the report's days are counted: an event's day is its day there.",
        example: "UTC",
      }),
      group_by: z.enum(["campaign", "adset", "ad", "country", "platform"]),
      filters: z
        .strictObject({
          media_source: z.string().optional(),
          campaign: z.string().optional(),
          country: z.string().optional(),
          platform: z.string().optional(),
        })
        .meta({ description: "The filters applied, as asked." }),
      active_users: z
        .strictObject({
          range: count(
            "Installs with at least one session on any day from `from` to `to`, each counted once however many days it was active.",
            340,
          ),
          average_daily: z.number().min(0).nullable().meta({
            description:
              "The daily active users' mean over the range's days that are over (today, under way, is not one yet); null when none is.",
            example: 41.5,
          }),
          daily: z
            .array(
              z.strictObject({
                day: date,
                active: count("Installs with at least one session on that day.", 42),
              }),
            )
            .meta({ description: "Daily active users: one per day of the range, in order." }),
        })
        .meta({
          description:
            "Active users, from the sessions (POST /v1/sessions): installs of any install day, not only the " +
            "window's, with a session on a day of the window. Media source and campaign are the " +
            "install's attribution's, platform and country its sessions'.",
        }),
      cost_rows_unconverted: count(
        "Cost rows of the window left out of every cost figure: no ECB rate of their day (or the 7 days before) converts their currency to USD.",
        0,
      ),
      touch_costs_unconverted: count(
        "Installs (and reinstalls) won by a CPI touch, and CPC clicks and CPM impressions, of the window whose price (a link's or a network touch's `cost_value` in `cost_currency`) is left out of every cost figure: no ECB rate of their day (or the 7 days before), nor a peg to the dollar or the euro, converts its currency to USD. Those a cost row replaces are not counted.",
        0,
      ),
      cost_days_missing: z
        .array(
          z.strictObject({
            media_source: mediaSource,
            campaign: z.string().nullable().meta({
              description: "The campaign as its installs name it: its name, else its id.",
              example: "Winter Sale",
            }),
            days: z.array(date).meta({
              description: "The install days of its paid installs that have no cost, in order.",
              example: ["2026-11-07"],
            }),
            paid_installs: count("Its paid installs of those days.", 12),
          }),
        )
        .max(COST_DAYS_MISSING_MAX)
        .meta({
          description: `Campaigns with a cost on some days of the window, and paid installs on days with none (no cost row, and no cost their links or clicks carried): those installs weigh in eCPI and ROAS as though they were free, which they read as until the network's cost of the day comes (often a day or two late). Most paid installs first, at most ${COST_DAYS_MISSING_MAX}. Empty when the window has no cost, or the filters leave it unknown.`,
        }),
      revenue_events_unconverted: count(
        `Revenue events of these installs (up to day ${COHORT_DAYS} since each install) left out of revenue, ARPU and ROAS: no ECB rate of their day (or the 7 days before), nor a peg to the dollar or the euro, converts their currency to USD.`,
        0,
      ),
      revenue_unconverted: revenueUnconverted({ currency: "KWD", amount: 5.5 }),
      totals: z.strictObject(cohortFigures).meta({ description: "Every install of the window." }),
      groups: z
        .array(
          z.strictObject({
            media_source: mediaSource,
            group: z.string().nullable().meta({
              description:
                "The group's value (a campaign's name, else its id, a renamed campaign's latest name; a country; ...).",
              example: "Winter Sale",
            }),
            ...cohortFigures,
          }),
        )
        .meta({ description: "Per media source and group, most installs first." }),
      cohorts: z
        .array(
          z.strictObject({
            day: date,
            installs: count("The install day's installs.", 14),
            retention: z.array(z.number().nullable()).meta({
              description: `Day 0 to ${COHORT_DAYS} since install: the share of the day's installs active that day; null for a day not reached yet.`,
            }),
            revenue_per_user: z.array(z.number().nullable()).meta({
              description: `Day 0 to ${COHORT_DAYS}: the installs' revenue up to that day since install, per install, USD; null for a day not reached yet.`,
            }),
          }),
        )
        .meta({ description: "The cohort table: one row per install day with installs." }),
    })
    .meta({ id: "CohortReport" }),
);

export const REPORT_CONTRACTS = {
  "report-overview": {
    summary: "An overview of the app's days",
    description:
      "The app's installs (paid and organic, by day and media source, attribution status and " +
      "method), events by day and name, revenue by day, campaigns and deep link paths, for the " +
      "days `from` to `to` of the app's time zone, both included; reinstalls apart from installs. Answers are kept 30 seconds, so the charts of a " +
      "page and a reload cost one query (on AWS, Athena may also reuse a result of the same " +
      "query up to 5 minutes old).",
    request: { query: overviewParamsSchema },
    success: {
      status: 200,
      description: "The overview.",
      content: { [JSON_MEDIA_TYPE]: overviewReportSchema },
    },
    errors: {
      401: unauthorized("reports"),
      404: OTHER_APP,
      422:
        "`from` or `to` is missing or not a day `YYYY-MM-DD`, `to` is before `from`, or the " +
        `window is longer than ${REPORT_LIMITS.maxDays} days. The detail names it. ${UNKNOWN_PARAMETER}`,
      500: INTERNAL,
    },
  },
  "report-cohorts": {
    summary: "Cohorts, retention, cost and ROAS of the app's installs",
    description:
      "For the installs of days `from` to `to` (of the app's time zone), filtered by media source, campaign, country " +
      "and platform: touches, installs, conversion, cost (the cost rows of POST /v1/costs, in " +
      "USD), eCPI, revenue, ARPU to date and on day 0, 7 and 30, paying users on day 0, 7 and 30, " +
      "retention on day 1, 7 and 30, and ROAS on day 0, 7 and 30, in " +
      "total and by media source and the group asked (`group_by`); and the cohort table, by " +
      "install day and days since install. Retention counts sessions (POST /v1/sessions) on " +
      "calendar days of that zone; revenue is the events' `revenue_usd`. Answers are kept 30 seconds.",
    request: { query: cohortParamsSchema },
    success: {
      status: 200,
      description: "The cohorts.",
      content: { [JSON_MEDIA_TYPE]: cohortReportSchema },
    },
    errors: {
      401: unauthorized("reports"),
      404: OTHER_APP,
      422:
        "The window is wrong (as for the overview), `group_by` is not one of campaign, adset, ad, " +
        `country, platform, or a filter is empty or over 200 characters. ${UNKNOWN_PARAMETER}`,
      500: INTERNAL,
    },
  },
  "report-link-clicks": {
    summary: "Clicks per link",
    description: "Counted taps of each of the app's links through the link host.",
    request: { query: linkClicksParamsSchema },
    success: {
      status: 200,
      description: "The counts.",
      content: { [JSON_MEDIA_TYPE]: linkClicksSchema },
    },
    errors: {
      401: unauthorized("reports"),
      404: OTHER_APP,
      422: UNKNOWN_PARAMETER,
      500: INTERNAL,
    },
  },
  "report-latest-events": {
    summary: "The app's latest events",
    description:
      "The newest `limit` events of yesterday and today (UTC), newest first, as the export " +
      "gives them.",
    request: { query: latestEventsParamsSchema },
    success: {
      status: 200,
      description: "The events.",
      content: { [JSON_MEDIA_TYPE]: latestEventsSchema },
    },
    errors: {
      401: unauthorized("reports"),
      404: OTHER_APP,
      422: `\`limit\` is not a whole number from 1 to ${REPORT_LIMITS.maxLimit}. ${UNKNOWN_PARAMETER}`,
      500: INTERNAL,
    },
  },
} as const satisfies Record<string, RouteContract>;

/**
 * The dashboard's reports, as the lake's query engine answers them (DuckDB embedded, Athena on
 * AWS): one query per report over the same relation the export reads (each event once, with
 * its install's latest attribution, deleted installs left out), so a report agrees with the
 * export of the same window; the overview and the cohorts after a small one of the touches'
 * campaign names (`renamedCampaigns`). Answers are in the API's words (docs: the dashboard API's
 * "Reports"), so the handlers send them as they are.
 */
import type { ExportRecord } from "../record/columns.ts";
import type { ApplePostbackGroup } from "./apple-postbacks.ts";

/** The installs to leave out of a report: those of the app's deletion requests. */
export interface Excluding {
  readonly excludeServiceIds: readonly string[];
}

/**
 * A campaign its network has named by more than one name (renamed at the network, its id
 * kept), with the name its latest touch gave it: the reports show its rows under that name
 * (src/reports/campaign-names.ts).
 */
export interface RenamedCampaign {
  readonly media_source: string;
  readonly campaign_id: string;
  /** The name of its latest touch up to the window's end. */
  readonly campaign_name: string;
  /** Its other names, the latest first: a row that names no id but one of them is of it. */
  readonly former_names: readonly string[];
}

/** The window a report's renamed campaigns are read for, as the report's own. */
export interface RenamedCampaignsQuery {
  readonly appId: string;
  readonly from: string;
  readonly to: string;
  readonly timeZone?: string;
}

/** Campaigns renamed at their network, each shown under its latest name; none: as named. */
interface Renaming {
  readonly renamed?: readonly RenamedCampaign[];
}

/** The overview's window: days `YYYY-MM-DD` of the app's time zone, both ends included. */
export interface OverviewQuery extends Excluding, Renaming {
  readonly appId: string;
  /** None: every install's. */
  readonly filters?: CohortFilters;
  readonly from: string;
  readonly to: string;
  /** The IANA time zone the days are counted in (src/domain/time-zone.ts); UTC unless given. */
  readonly timeZone?: string;
}

/** The newest events of the app, from the last two days' partitions (today's and yesterday's). */
export interface LatestEventsQuery extends Excluding {
  readonly appId: string;
  /** 1 to 200. */
  readonly limit: number;
  /** Today, the UTC day `YYYY-MM-DD`: its partition and the one before it are read. */
  readonly today: string;
}

export interface OverviewTotals {
  /**
   * The install events (`service_install`) of the window but the reinstalls: an install of a
   * device that had the app (the attribution's `reinstall`, of either platform), counted in
   * `reinstalls`.
   * Every other install figure (paid, organic, by day, status, method, path, campaign, country)
   * counts the same installs.
   */
  readonly installs: number;
  /** Installs credited to a media source other than organic. */
  readonly paid_installs: number;
  /** Installs found organic (media_source `organic`). */
  readonly organic_installs: number;
  /** The window's reinstalls: installs of a device that had the app (the attribution's `reinstall`). */
  readonly reinstalls: number;
  /** Every event of the window, the installs' own included. */
  readonly events: number;
  /** The sum of `revenue_usd`, nulls as 0. */
  readonly revenue_usd: number;
}

export interface OverviewReport {
  readonly from: string;
  readonly to: string;
  readonly totals: OverviewTotals;
  /** `media_source` is `organic` for organic installs, null for installs credited to none. */
  readonly installs_by_day: {
    readonly date: string;
    readonly media_source: string | null;
    readonly installs: number;
  }[];
  /** By the latest attribution's status; `pending` where it is not in the lake yet. */
  readonly match_status: { readonly status: string; readonly installs: number }[];
  /** By `matching_type` (network, geo), else the status (organic, skipped, pending). */
  readonly match_method: { readonly method: string; readonly installs: number }[];
  readonly events_by_day: {
    readonly date: string;
    readonly event_name: string | null;
    readonly events: number;
  }[];
  readonly revenue_by_day: { readonly date: string; readonly revenue_usd: number }[];
  /** By the installs' media source and campaign (its name, else its id), most installs first. */
  readonly campaigns: {
    readonly media_source: string | null;
    readonly campaign: string | null;
    readonly installs: number;
    /** The campaign's reinstalls in the window: devices it brought back to the app. */
    readonly reinstalls: number;
    readonly events: number;
    readonly revenue_usd: number;
    readonly revenue_per_install: number;
  }[];
  /** The ten deep link paths of the most paid installs (their winning touch's link). */
  readonly deep_link_paths: {
    readonly deep_link_path: string;
    readonly installs: number;
  }[];
  /** By the country the events were sent from (null: none known), most installs first. */
  readonly countries: {
    readonly country: string | null;
    readonly installs: number;
    readonly events: number;
    readonly revenue_usd: number;
  }[];
  /**
   * The window's revenue events left out of every revenue figure: no rate of their day converts
   * their currency to USD (their `revenue_usd` null).
   */
  readonly revenue_events_unconverted: number;
  /** Those events per currency, most first, with their amount in it. */
  readonly revenue_unconverted: {
    readonly currency: string;
    readonly events: number;
    readonly amount: number;
  }[];
}

/** What a cohort's installs may be grouped by, beside their media source. */
export type CohortGroup = "campaign" | "adset" | "ad" | "country" | "platform";

/** Filters on the installs (and touches): each narrows every figure to what it holds. */
export interface CohortFilters {
  readonly media_source?: string | undefined;
  readonly campaign?: string | undefined;
  readonly country?: string | undefined;
  readonly platform?: string | undefined;
}

/** What a cost row may name beyond its day and media source, which the rows must then carry. */
export type CohortCostKey = "campaign" | "adset" | "ad" | "country";

export interface CohortQuery extends Excluding, Renaming {
  readonly appId: string;
  /** Install days of the app's time zone, both included. */
  readonly from: string;
  readonly to: string;
  /** The IANA time zone the days are counted in (src/domain/time-zone.ts); UTC unless given. */
  readonly timeZone?: string;
  readonly groupBy: CohortGroup;
  readonly filters: CohortFilters;
  /**
   * The cost keys (CohortCostKeys) the rows carry: those the window's cost rows name, so that
   * with none (or none naming an ad) the rows are not split by what no cost row asks of them.
   */
  readonly costKeys: readonly CohortCostKey[];
}

/**
 * What an `installs` or `touches` row's own cost is of, beside its group
 * (src/reports/cohort-query.ts): its campaign, and the ad set, ad and country of the installs
 * and touches that cost something. A row without them (of no cost, or of another part) names no
 * campaign, and no cost row replaces its cost.
 */
export interface CohortCostKeys {
  readonly campaign_id: string | null;
  readonly campaign_name: string | null;
  readonly cost_adset_id: string | null;
  readonly cost_adset_name: string | null;
  readonly cost_ad_id: string | null;
  readonly cost_ad_name: string | null;
  readonly cost_country: string | null;
}

/**
 * A row of the cohorts query (src/reports/cohort-query.ts): a cohort's size (`installs`), its
 * installs active on one of the summary days since install and their revenue up to it
 * (`group_days`), those with revenue by then (`payers`, in `installs`), a campaign's paid
 * installs' revenue up to one of ROAS's days (`campaign_revenue`), or a day's touches
 * (`touches`), of one media source and group; or, of no group, a cohort's active installs and
 * revenue on each day since install (`days`), the installs active on a day of the range
 * (`active_day`, the day in `cohort_day`) or in the whole range (`active_range`), in `active`;
 * or a group's cohorts' revenue events of one currency that no rate converted
 * (`unconverted_revenue`).
 */
export interface CohortRow extends Partial<CohortCostKeys> {
  readonly part:
    | "installs"
    | "days"
    | "group_days"
    | "payers"
    | "campaign_revenue"
    | "touches"
    | "active_day"
    | "active_range"
    | "unconverted_revenue";
  /**
   * Of an `installs` or `touches` row grouped by ad set or ad when a cost row names one: the id
   * and name of its ad set or ad, whatever it cost.
   */
  readonly group_id?: string | null;
  readonly group_name?: string | null;
  /** Of an `unconverted_revenue` row: the currency, its events, and their amount in it. */
  readonly revenue_currency?: string | null;
  readonly revenue_events?: number;
  readonly revenue_amount?: number;
  readonly cohort_day: string;
  readonly media_source: string | null;
  readonly group_key: string | null;
  /**
   * Of an `installs`, `campaign_revenue` or `touches` row: its campaign, by name, else id,
   * whatever the grouping, by which eCPI and ROAS weigh cost against the installs it bought.
   */
  readonly campaign_key?: string | null;
  readonly day_n: number | null;
  readonly installs: number;
  readonly active: number;
  readonly revenue_usd: number;
  readonly clicks: number;
  readonly impressions: number;
  /** USD the service knows itself: the installs' (CPI) or the touches' (CPC, CPM) cost. */
  readonly cost_usd: number;
  /**
   * Of an `installs` or `touches` row: its installs won by a CPI touch, or its CPC clicks and CPM
   * impressions, whose price no rate converted to USD (in no `cost_usd`).
   */
  readonly cost_unconverted?: number;
}

/** An app's Apple postbacks received from `from` (included) to `to` (left out). */
export interface SkadnetworkQuery {
  readonly appId: string;
  readonly from: Date;
  readonly to: Date;
}

export interface ReportEngine {
  overview(query: OverviewQuery): Promise<OverviewReport>;
  cohorts(query: CohortQuery): Promise<CohortRow[]>;
  /**
   * The campaigns of the window's touches (and of its installs' winning touches) named by more
   * than one name, the most recently touched first, at most MAX_RENAMED_CAMPAIGNS, each with at
   * most MAX_FORMER_NAMES former names (src/reports/campaign-names.ts).
   */
  renamedCampaigns(query: RenamedCampaignsQuery): Promise<RenamedCampaign[]>;
  /** The postbacks grouped as the SKAdNetwork report reads them. */
  skadnetwork(query: SkadnetworkQuery): Promise<ApplePostbackGroup[]>;
  /** Newest first. */
  latestEvents(query: LatestEventsQuery): Promise<ExportRecord[]>;
  /** Counted taps per link of the app (every link tapped at least once). */
  linkClicks(appId: string): Promise<ReadonlyMap<string, number>>;
}

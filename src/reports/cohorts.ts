/**
 * The cohorts report from its query's rows (./cohort-query.ts) and the app's cost rows: per
 * media source and group (a campaign by default), and in total, what a marketer moves a budget
 * on (touches, installs, conversion, cost, eCPI, revenue, ARPU to date and on day 0, 7 and 30,
 * paying users on day 0, 7 and 30, retention on day 1, 7 and 30, and ROAS on day 0, 7 and 30),
 * and a table of cohorts by install day (retention and cumulative revenue per user on each day
 * since install). A day since install that a cohort has not reached yet (its install
 * day plus N is not over: today or later) is not a zero: such cohorts are left out of that day's
 * figures, and a figure no cohort has reached is null. Today is still under way, and a share of
 * its sessions and revenue counted as the whole day's would read as a drop.
 *
 * Cost is the cost rows' (`POST /v1/costs`) and what the service knows itself from its touches
 * (src/costs/touch-cost.ts): the installs CPI touches won, CPC clicks and CPM impressions, each
 * on its day (an install's on its install day, a touch's on its touch day). A cost row replaces
 * the service's own cost of what it names (its day, media source and campaign, and its ad set,
 * ad and country when it has them): it is the network's own figure, which the clicks' prices
 * only estimate, and counting both would count that spend twice. The rule is applied on those
 * keys, which the query gives whatever the grouping, and the cost is grouped after: the totals
 * never depend on the grouping asked. A campaign, ad set or ad is the same on both sides by its
 * id when both name one, else by its name; names match whatever their case, the spaces around
 * them and their Unicode form (a network's report and a link typed by hand spell them apart),
 * and the group keeps the touches' spelling.
 *
 * Clicks and impressions are the service's own touches; for a media source, campaign and day
 * of which it has none, what its cost rows of that day report. The totals are the groups' sum.
 * The totals' eCPI and ROAS weigh the cost against the paid installs (and their revenue) of the
 * media sources that have a cost: one with none, whose spend is not known, would otherwise
 * lower the eCPI and raise the ROAS as though its installs had come free.
 */
import type { CostRow } from "../ports/costs.ts";
import type { CohortCostKey, CohortFilters, CohortGroup, CohortRow } from "../ports/reports.ts";
import type { CohortCostRow } from "./campaign-names.ts";
import { COHORT_DAYS, SUMMARY_DAYS } from "./cohort-query.ts";
import { addDays, daysSpanned } from "./days.ts";
import { idKey, nameKey } from "./name-keys.ts";
import { ORGANIC } from "./queries.ts";

/** Whether day N since `day` is over by `today` (days of the app's time zone): today itself is still under way. */
const isOver = (day: string, n: number, today: string) => addDays(day, n) < today;

/** The campaigns `cost_days_missing` names at most: a page's warning, not a listing. */
export const COST_DAYS_MISSING_MAX = 20;

const numberOf = (name: string, value: unknown): number => {
  const parsed = typeof value === "bigint" || typeof value === "string" ? Number(value) : value;
  if (typeof parsed !== "number" || !Number.isFinite(parsed) || value === "") {
    throw new Error(`cohorts result column ${name} is not a number: ${String(value)}`);
  }
  return parsed;
};

const textOf = (value: unknown): string | null =>
  value === null || value === undefined || value === "" ? null : String(value);

const PARTS = new Set<string>([
  "installs",
  "days",
  "group_days",
  "payers",
  "campaign_revenue",
  "touches",
  "active_day",
  "active_range",
  "unconverted_revenue",
]);

/** A result row as an engine reads it (DuckDB's values, Athena's CSV text) as a CohortRow. */
export const cohortRowOf = (values: Readonly<Record<string, unknown>>): CohortRow => {
  const part = String(values.part);
  const day = textOf(values.cohort_day);
  if (!PARTS.has(part) || day === null) throw new Error(`cohorts result row of no part: ${part}`);
  const dayN = textOf(values.day_n);
  return {
    part: part as CohortRow["part"],
    cohort_day: day.slice(0, 10),
    media_source: textOf(values.media_source),
    group_key: textOf(values.group_key),
    campaign_key: textOf(values.campaign_key),
    day_n: dayN === null ? null : numberOf("day_n", dayN),
    installs: numberOf("installs", values.installs),
    active: numberOf("active", values.active),
    revenue_usd: numberOf("revenue_usd", values.revenue_usd ?? 0),
    clicks: numberOf("clicks", values.clicks),
    impressions: numberOf("impressions", values.impressions),
    cost_usd: numberOf("cost_usd", values.cost_usd ?? 0),
    campaign_id: textOf(values.campaign_id),
    campaign_name: textOf(values.campaign_name),
    cost_adset_id: textOf(values.cost_adset_id),
    cost_adset_name: textOf(values.cost_adset_name),
    cost_ad_id: textOf(values.cost_ad_id),
    cost_ad_name: textOf(values.cost_ad_name),
    cost_country: textOf(values.cost_country),
    group_id: textOf(values.group_id),
    group_name: textOf(values.group_name),
    revenue_currency: textOf(values.revenue_currency),
    revenue_events: numberOf("revenue_events", values.revenue_events ?? 0),
    revenue_amount: numberOf("revenue_amount", values.revenue_amount ?? 0),
    cost_unconverted: numberOf("cost_unconverted", values.cost_unconverted ?? 0),
  };
};

export interface CohortFigures {
  readonly impressions: number;
  readonly clicks: number;
  readonly installs: number;
  /** Installs over clicks; null without clicks. */
  readonly conversion_rate: number | null;
  /**
   * USD: the cost rows', and the service's own cost (CPI installs, CPC clicks, CPM impressions)
   * of the days and groups no cost row names; null when neither names these installs' days and
   * group.
   */
  readonly cost_usd: number | null;
  /** Over the paid installs of the campaigns with a cost. */
  readonly ecpi_usd: number | null;
  /** Installs a media source other than organic won: what cost buys. */
  readonly paid_installs: number;
  /**
   * Of them, those of campaigns with a cost (media source and campaign, whatever the grouping):
   * those eCPI and ROAS weigh the cost against.
   */
  readonly paid_installs_with_cost: number;
  /** The installs' revenue up to day 30 since each install (or today), USD. */
  readonly revenue_usd: number;
  /**
   * Revenue events of these installs, up to day 30 since each, left out of `revenue_usd`, ARPU
   * and ROAS: no rate of their day converts their currency to USD.
   */
  readonly revenue_events_unconverted: number;
  /** That revenue per install: to date, so young cohorts lower it (`arpu` is not so). */
  readonly arpu_usd: number | null;
  /**
   * Revenue up to day N since install per install, of the cohorts that reached it: comparable
   * across ranges and groups of different ages, as retention and ROAS are.
   */
  readonly arpu: {
    readonly d0: number | null;
    readonly d7: number | null;
    readonly d30: number | null;
  };
  /**
   * Share of installs with revenue above 0 on a day up to day N since install (paying users),
   * of the cohorts that reached it.
   */
  readonly paying_user_rate: {
    readonly d0: number | null;
    readonly d7: number | null;
    readonly d30: number | null;
  };
  /** Share of installs active on day N since install, of the cohorts that reached it. */
  readonly retention: {
    readonly d1: number | null;
    readonly d7: number | null;
    readonly d30: number | null;
  };
  /**
   * Revenue up to day N since install of the paid installs of campaigns with a cost, over
   * the cost, of the cohorts that reached it.
   */
  readonly roas: {
    readonly d0: number | null;
    readonly d7: number | null;
    readonly d30: number | null;
  };
}

/**
 * Active users: installs with at least one session, whatever their install day, narrowed by the
 * filters (media source and campaign of the install's attribution, platform and country of its
 * sessions).
 */
export interface ActiveUsers {
  /** Installs with a session on any day of the range: each once, however many days. */
  readonly range: number;
  /**
   * The daily figures' mean over the range's days that are over (today, under way, is not one
   * yet); null when none is.
   */
  readonly average_daily: number | null;
  /** One per day of the range (the app's time zone), in order: installs with a session that day. */
  readonly daily: { readonly day: string; readonly active: number }[];
}

export interface CohortReport {
  readonly from: string;
  readonly to: string;
  readonly group_by: CohortGroup;
  readonly filters: CohortFilters;
  readonly active_users: ActiveUsers;
  /**
   * Cost rows of the window and filters left out of every cost: no rate of their day gave a USD
   * amount. With a platform filter, those of the other filters (cost rows name no platform).
   */
  readonly cost_rows_unconverted: number;
  /**
   * Installs won by a CPI touch, and CPC clicks and CPM impressions, of the window and filters
   * whose price (carried by a link or a network's touch) is left out of every cost: no rate of
   * their day converts its currency. Those whose cost a cost row replaces are not counted: the
   * cost row stands for them.
   */
  readonly touch_costs_unconverted: number;
  /**
   * Campaigns with a cost on some days of the window and paid installs on others with none
   * (neither a cost row nor a cost their touches carried): those installs weigh in eCPI and ROAS
   * as though free, until the network's late cost of the day comes. Most paid installs first,
   * at most COST_DAYS_MISSING_MAX.
   */
  readonly cost_days_missing: {
    readonly media_source: string | null;
    readonly campaign: string | null;
    /** The install days, in order. */
    readonly days: string[];
    /** The paid installs of those days. */
    readonly paid_installs: number;
  }[];
  /**
   * Revenue events of these installs, up to day 30 since each install, left out of revenue, ARPU
   * and ROAS: no rate of their day converts their currency to USD.
   */
  readonly revenue_events_unconverted: number;
  /** Those events per currency, most first, with their amount in it. */
  readonly revenue_unconverted: {
    readonly currency: string;
    readonly events: number;
    readonly amount: number;
  }[];
  readonly totals: CohortFigures;
  readonly groups: (CohortFigures & {
    readonly media_source: string | null;
    readonly group: string | null;
  })[];
  /** One per install day with installs: index N of each list is day N since install. */
  readonly cohorts: {
    readonly day: string;
    readonly installs: number;
    readonly retention: (number | null)[];
    readonly revenue_per_user: (number | null)[];
  }[];
}

/**
 * The keys the query's rows must carry for these cost rows to be matched to them: the campaign's
 * id and name once there is any (a cost row always names one), and an ad set, ad or country only
 * when some cost row names one. With none, the rows are split by campaign only by its key
 * (`campaign_key`), which eCPI and ROAS are weighed by.
 */
export const costKeysNamedBy = (costs: readonly CostRow[]): CohortCostKey[] => {
  if (costs.length === 0) return [];
  const keys: CohortCostKey[] = ["campaign"];
  if (costs.some((row) => row.adsetId !== null || row.adsetName !== null)) keys.push("adset");
  if (costs.some((row) => row.adId !== null || row.adName !== null)) keys.push("ad");
  if (costs.some((row) => row.country !== null)) keys.push("country");
  return keys;
};

/** A campaign, ad set or ad as one side names it: by id, by name, or both. */
interface Named {
  readonly id: string | null | undefined;
  readonly name: string | null | undefined;
}

/** Whether two namings are of one thing: by id when both have one, else by name. */
const sameNamed = (a: Named, b: Named): boolean =>
  a.id != null && b.id != null
    ? idKey(a.id) === idKey(b.id)
    : a.name != null && b.name != null && nameKey(a.name) === nameKey(b.name);

/**
 * The namings a cost row matches installs and touches by: its campaign's name, and for a
 * campaign renamed at its network the name the row was sent with too (./campaign-names.ts).
 */
const campaignsOfCost = (row: CohortCostRow): Named[] => [
  { id: row.campaignId, name: row.campaignName },
  ...(row.sentCampaignName == null ? [] : [{ id: row.campaignId, name: row.sentCampaignName }]),
];
const campaignOfRow = (row: CohortRow): Named => ({
  id: row.campaign_id,
  name: row.campaign_name,
});

/**
 * Whether a cost row's level (an ad set, an ad) covers a row's: the cost row names none (it is
 * the whole campaign's), or the row names none (a link with no ad set: its taps' spend is in
 * one of the network's rows of the campaign, which cannot say which, so both would count it),
 * or both name the same.
 */
const covers = (cost: Named, row: Named): boolean =>
  (cost.id == null && cost.name == null) ||
  (row.id == null && row.name == null) ||
  sameNamed(cost, row);

/**
 * Whether a cost row names the installs or touches of a row that cost something (so that its
 * figure replaces theirs): the same day, media source and campaign, and the same ad set, ad and
 * country where both name one (a row of every country is every country's; touches of no known
 * country, as those of no ad set, are in the network's rows of their campaign, whichever).
 */
const replaces = (cost: CohortCostRow, row: CohortRow): boolean =>
  cost.day === row.cohort_day &&
  cost.mediaSource === row.media_source &&
  campaignsOfCost(cost).some((named) => sameNamed(named, campaignOfRow(row))) &&
  covers(
    { id: cost.adsetId, name: cost.adsetName },
    { id: row.cost_adset_id, name: row.cost_adset_name },
  ) &&
  covers({ id: cost.adId, name: cost.adName }, { id: row.cost_ad_id, name: row.cost_ad_name }) &&
  (cost.country === null || row.cost_country == null || cost.country === row.cost_country);

/**
 * The campaigns the query's rows name, by media source: a cost row's campaign is told by them
 * (its id may be the id of a campaign the clicks name by its name).
 */
class Campaigns {
  /** Rows by media source and campaign id; those of no id, by media source and name. */
  private readonly byId = new Map<string, CohortRow[]>();
  private readonly byName = new Map<string, CohortRow[]>();

  constructor(rows: readonly CohortRow[]) {
    for (const row of rows) {
      if (row.part !== "installs" && row.part !== "touches") continue;
      if (row.campaign_id != null) {
        listed(this.byId, [row.media_source, idKey(row.campaign_id)], row);
      } else if (row.campaign_name != null) {
        listed(this.byName, [row.media_source, nameKey(row.campaign_name)], row);
      }
    }
  }

  /**
   * The rows of the cost row's media source and campaign: of its id (a cost row always names
   * one), and, of those that name none, of its name (either, for a renamed campaign's).
   */
  of(cost: CohortCostRow): readonly CohortRow[] {
    const ofId = this.byId.get(JSON.stringify([cost.mediaSource, idKey(cost.campaignId)])) ?? [];
    const names = new Set(
      campaignsOfCost(cost).flatMap((named) => (named.name == null ? [] : [nameKey(named.name)])),
    );
    const ofName = [...names].flatMap(
      (name) => this.byName.get(JSON.stringify([cost.mediaSource, name])) ?? [],
    );
    return ofName.length === 0 ? ofId : [...ofId, ...ofName];
  }
}

/** Adds a value to the list of its key (a JSON array of its parts). */
const listed = <T>(lists: Map<string, T[]>, key: readonly unknown[], value: T): void => {
  const id = JSON.stringify(key);
  const list = lists.get(id);
  if (list) list.push(value);
  else lists.set(id, [value]);
};

/**
 * The group the query's rows give what a cost row names (its campaign, ad set or ad, the same by
 * id when both sides have one, else by name): the cost row may name by its id what the clicks
 * name by its name, and its cost belongs with their installs, not in a group of its own.
 */
const groupOfNamed = (
  campaignRows: readonly CohortRow[],
  named: Named,
  of: (row: CohortRow) => Named,
): string | undefined => {
  const groups = campaignRows
    .filter((found) => sameNamed(named, of(found)))
    .map((found) => found.group_key)
    .filter((key) => key !== null);
  return [...new Set(groups)].sort()[0];
};

/** The ad set or ad a row is grouped by, as it names it. */
const groupNaming = (row: CohortRow): Named => ({ id: row.group_id, name: row.group_name });

/**
 * The cost row's group (a platform names no cost row: undefined). By campaign, the group the
 * query's rows give that campaign, its name as they spell it, else the cost row's name or id;
 * by ad set or ad, likewise the group the query's rows give it (by the ad set's or ad's own id
 * and name, which they carry whatever it cost).
 */
const costGroupOf = (
  groupBy: CohortGroup,
  row: CostRow,
  campaignRows: readonly CohortRow[],
): string | null | undefined => {
  switch (groupBy) {
    case "campaign": {
      const named = [
        ...new Set(campaignRows.map((found) => found.group_key).filter((key) => key !== null)),
      ].sort();
      const own = nameKey(row.campaignName ?? row.campaignId);
      return (
        named.find((key) => nameKey(key) === own) ?? named[0] ?? row.campaignName ?? row.campaignId
      );
    }
    case "adset":
      return (
        groupOfNamed(campaignRows, { id: row.adsetId, name: row.adsetName }, groupNaming) ??
        row.adsetName ??
        row.adsetId
      );
    case "ad":
      return (
        groupOfNamed(campaignRows, { id: row.adId, name: row.adName }, groupNaming) ??
        row.adName ??
        row.adId
      );
    case "country":
      return row.country;
    case "platform":
      return undefined;
  }
};

/**
 * Whether a cost row is of the installs the filters keep; undefined: it cannot say. A campaign
 * filter names a campaign by its name, else its id, as the query's rows do; the query's rows are
 * then all of it, so a cost row naming their campaign by its id is of it too. A cost row names
 * no platform: of the filters' media source and campaign, a platform's share of it is not known,
 * and of another media source or campaign it is no cost of these installs at all.
 */
const costMatches = (
  row: CostRow,
  filters: CohortFilters,
  campaignRows: readonly CohortRow[],
): boolean | undefined => {
  if (filters.media_source !== undefined && row.mediaSource !== filters.media_source) return false;
  // Of no installs or touches the filter found, the cost row only as the filter spells it: the
  // query matches the name exactly, and "winter" beside installs of "Winter" would read as a cost
  // that bought nothing.
  if (
    filters.campaign !== undefined &&
    campaignRows.length === 0 &&
    (row.campaignName ?? row.campaignId) !== filters.campaign &&
    row.campaignId !== filters.campaign
  )
    return false;
  // Another country's row is no cost of these installs, whatever the platform.
  if (filters.country !== undefined && row.country !== null && row.country !== filters.country)
    return false;
  if (filters.platform !== undefined) return undefined;
  // A row of every country holds no one country's share: its cost there is not known, and the
  // touch costs it replaces do not come back for the filter.
  if (filters.country !== undefined && row.country === null) return undefined;
  return true;
};

/** Ratios to a ten-thousandth, money to a millionth (sums of doubles carry binary noise). */
const ratio = (value: number): number => Math.round(value * 1e4) / 1e4;
const money = (value: number): number => Math.round(value * 1e6) / 1e6;
const divided = (a: number, b: number | null, round: (value: number) => number) =>
  b === null || b === 0 ? null : round(a / b);

/**
 * Whether a row's installs are paid ones: won by a media source other than organic. Cost buys
 * those only, so conversion, eCPI and ROAS read them alone, as AppsFlyer's overview does;
 * organic installs, and those not attributed (yet), would dilute them.
 */
const isPaid = (row: CohortRow): boolean =>
  row.media_source !== null && row.media_source !== ORGANIC;

/** A figure by install day and day since install, as the query's summary rows give it. */
class ByDay {
  private readonly of = new Map<string, Map<number, number>>();

  add(day: string, n: number, value: number): void {
    const values = this.of.get(day) ?? new Map<number, number>();
    values.set(n, (values.get(n) ?? 0) + value);
    this.of.set(day, values);
  }

  /** Its value on day N since `day`; 0 where no row gave one. */
  at(day: string, n: number): number {
    return this.of.get(day)?.get(n) ?? 0;
  }
}

/** The parts a tally of a group (or all) takes; a campaign's takes `campaign_revenue` instead. */
const GROUP_PARTS = new Set<CohortRow["part"]>(["installs", "touches", "group_days", "payers"]);
const CAMPAIGN_PARTS = new Set<CohortRow["part"]>(["installs", "touches", "campaign_revenue"]);

/** What one set of cohorts adds up to (a group's, a media source's, or all). */
class Tally {
  /**
   * A campaign's, whose revenue is the query's `campaign_revenue` rows (its paid installs'), by
   * which eCPI and ROAS weigh its cost; a group's revenue and activity are its `group_days`.
   */
  constructor(readonly byCampaign = false) {}

  impressions = 0;
  clicks = 0;
  reportedClicks = 0;
  reportedImpressions = 0;
  /** Installs by install day. */
  readonly installs = new Map<string, number>();
  /** Of them, those a media source other than organic won: what cost bought. */
  readonly paidInstalls = new Map<string, number>();
  /** By install day, on each summary day since install: the installs active that day. */
  readonly activeOn = new ByDay();
  /** Their revenue up to that day: a campaign's, of its paid installs alone. */
  readonly revenueUpTo = new ByDay();
  /** The installs with revenue above 0 on a day up to it: paying users. */
  readonly payersBy = new ByDay();
  /** Cost by install day, USD (the cost rows' and the service's own); a day of none is absent. */
  readonly cost = new Map<string, number>();
  /**
   * A group's: the group of none, holding a cost row that names no ad set, ad or country (what
   * the report is grouped by) of a campaign that won installs in other groups. Its cost bought
   * those installs, which it cannot weigh.
   */
  costOfOtherGroups = false;
  /** Revenue events no rate converted, left out of the revenue. */
  revenueEventsUnconverted = 0;
  /** The days a cost row names, converted or not. */
  readonly costRowDays = new Set<string>();

  add(row: CohortRow): void {
    if (!(this.byCampaign ? CAMPAIGN_PARTS : GROUP_PARTS).has(row.part)) return;
    if (row.part === "touches") {
      this.clicks += row.clicks;
      this.impressions += row.impressions;
    } else if (row.part === "installs") {
      // A row of reinstalls alone brings cost, no install: no cohort of its day.
      if (row.installs === 0) return;
      const add = (counts: Map<string, number>) =>
        counts.set(row.cohort_day, (counts.get(row.cohort_day) ?? 0) + row.installs);
      add(this.installs);
      if (isPaid(row)) add(this.paidInstalls);
    } else if (row.day_n !== null) {
      const { cohort_day: day, day_n: n } = row;
      if (row.part === "payers") {
        this.payersBy.add(day, n, row.installs);
      } else {
        this.activeOn.add(day, n, row.active);
        this.revenueUpTo.add(day, n, row.revenue_usd);
      }
    }
  }

  /**
   * A cost row: its cost (none without a USD amount, no rate of its day), and its clicks and
   * impressions where the service has no touches of its media source and campaign.
   */
  addCost(row: CostRow, reported: { clicks: boolean; impressions: boolean }): void {
    this.costRowDays.add(row.day);
    if (row.amountUsd !== null) this.addDayCost(row.day, row.amountUsd);
    if (reported.clicks) this.reportedClicks += row.clicks ?? 0;
    if (reported.impressions) this.reportedImpressions += row.impressions ?? 0;
  }

  /** Cost of a day, USD: a cost row's, or what the service's own installs and touches cost. */
  addDayCost(day: string, usd: number): void {
    this.cost.set(day, (this.cost.get(day) ?? 0) + usd);
  }

  /** Whether any cost is known of it: a cost row's USD amount, or the service's own. */
  get hasCost(): boolean {
    return this.cost.size > 0;
  }

  get paidInstallCount(): number {
    return [...this.paidInstalls.values()].reduce((sum, n) => sum + n, 0);
  }

  /**
   * A campaign's paid installs' revenue up to day N since install (one of ROAS's days), of the
   * install days that reached it.
   */
  paidRevenueTo(n: number, today: string): number {
    return [...this.installs.keys()]
      .filter((day) => isOver(day, n, today))
      .reduce((sum, day) => sum + this.revenueUpTo.at(day, n), 0);
  }

  /**
   * Its figures. `costed`: the tallies whose paid installs and revenue eCPI and ROAS weigh its
   * cost against (its campaigns with a cost, by media source); by default itself.
   */
  figures(today: string, costs: boolean, costed: readonly Tally[] = [this]): CohortFigures {
    const totalInstalls = [...this.installs.values()].reduce((sum, n) => sum + n, 0);
    const paidInstalls = this.paidInstallCount;
    // The service's own touches, and the cost rows' of campaigns it has no touches of.
    const clicks = this.clicks + this.reportedClicks;
    const impressions = this.impressions + this.reportedImpressions;
    const totalCost =
      costs && this.cost.size > 0 ? [...this.cost.values()].reduce((sum, n) => sum + n, 0) : null;
    /** The install days whose day N since install is over. */
    const reached = (n: number) => [...this.installs.keys()].filter((day) => isOver(day, n, today));
    /** A figure on day N over the installs, of the install days that reached it. */
    const perInstall = (of: ByDay, n: number, round: (value: number) => number) => {
      const days = reached(n);
      const installs = days.reduce((sum, day) => sum + (this.installs.get(day) ?? 0), 0);
      return divided(
        days.reduce((sum, day) => sum + of.at(day, n), 0),
        installs,
        round,
      );
    };
    const retention = (n: number) => perInstall(this.activeOn, n, ratio);
    const arpu = (n: number) => perInstall(this.revenueUpTo, n, money);
    const payingRate = (n: number) => perInstall(this.payersBy, n, ratio);
    // Of the campaigns whose clicks are known (the service's touches, or the cost rows'): an
    // install of a campaign of no known click is no conversion of another campaign's clicks.
    const clickedPaid = costed
      .filter((tally) => tally.clicks + tally.reportedClicks > 0)
      .reduce((sum, tally) => sum + tally.paidInstallCount, 0);
    const weighed = totalCost === null ? [] : costed.filter((tally) => tally.hasCost);
    const paidWithCost = weighed.reduce((sum, tally) => sum + tally.paidInstallCount, 0);
    // The spend of every cost day that reached day N, installs that day or none: a day's spend
    // that won no install still bought the range's revenue.
    const roas = (n: number) => {
      // Spend whose installs are in other groups: not known to have earned nothing.
      if (totalCost === null || (paidWithCost === 0 && this.costOfOtherGroups)) return null;
      const cost = [...this.cost]
        .filter(([day]) => isOver(day, n, today))
        .reduce((sum, [, usd]) => sum + usd, 0);
      const revenue = weighed.reduce((sum, tally) => sum + tally.paidRevenueTo(n, today), 0);
      return cost === 0 ? null : ratio(revenue / cost);
    };
    // To date: up to day 30 since install, or today's for younger installs.
    const revenue = money(
      [...this.installs.keys()].reduce(
        (sum, day) => sum + this.revenueUpTo.at(day, COHORT_DAYS),
        0,
      ),
    );
    const [r1, r7, r30] = SUMMARY_DAYS.retention.map(retention);
    const [a0, a7, a30] = SUMMARY_DAYS.arpu.map(arpu);
    const [p0, p7, p30] = SUMMARY_DAYS.paying.map(payingRate);
    const [o0, o7, o30] = SUMMARY_DAYS.roas.map(roas);
    return {
      impressions,
      clicks,
      installs: totalInstalls,
      conversion_rate: divided(clickedPaid, clicks, ratio),
      cost_usd: totalCost === null ? null : money(totalCost),
      ecpi_usd: totalCost === null ? null : divided(totalCost, paidWithCost, money),
      paid_installs: paidInstalls,
      paid_installs_with_cost: paidWithCost,
      revenue_usd: revenue,
      revenue_events_unconverted: this.revenueEventsUnconverted,
      arpu_usd: divided(revenue, totalInstalls, money),
      retention: { d1: r1 ?? null, d7: r7 ?? null, d30: r30 ?? null },
      arpu: { d0: a0 ?? null, d7: a7 ?? null, d30: a30 ?? null },
      paying_user_rate: { d0: p0 ?? null, d7: p7 ?? null, d30: p30 ?? null },
      roas: { d0: o0 ?? null, d7: o7 ?? null, d30: o30 ?? null },
    };
  }
}

const byText = (a: string | null, b: string | null): number =>
  a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;

export const cohortReport = (input: {
  readonly from: string;
  readonly to: string;
  /** Today in the app's time zone, `YYYY-MM-DD`: which days since install each cohort has reached. */
  readonly today: string;
  readonly groupBy: CohortGroup;
  readonly filters: CohortFilters;
  readonly rows: readonly CohortRow[];
  /**
   * The app's cost rows of the days `from` to `to`, a renamed campaign's under its latest name
   * (./campaign-names.ts's `withLatestCampaignNames`).
   */
  readonly costs: readonly CohortCostRow[];
}): CohortReport => {
  const { today, groupBy, filters } = input;
  const total = new Tally();
  const groups = new Map<
    string,
    { media_source: string | null; group: string | null; tally: Tally }
  >();
  const groupOf = (mediaSource: string | null, key: string | null) => {
    const id = JSON.stringify([mediaSource, key]);
    let found = groups.get(id);
    if (!found) {
      found = { media_source: mediaSource, group: key, tally: new Tally() };
      groups.set(id, found);
    }
    return found.tally;
  };
  /**
   * By media source and campaign, of all and of each group: which have a cost, for their eCPI and
   * ROAS. A campaign of no cost has a spend not known, whatever its media source's other
   * campaigns cost: its installs and revenue would read as bought by their spend.
   */
  const campaignsOfAll = new Map<string, Tally>();
  const campaignsOfGroups = new Map<string, Map<string, Tally>>();
  /** Each of campaignsOfAll's keys as first spelt. */
  const campaignNames = new Map<string, { media_source: string | null; campaign: string | null }>();
  const campaignOf = (
    mediaSource: string | null,
    group: string | null | undefined,
    campaign: string | null | undefined,
  ): Tally[] => {
    const key = JSON.stringify([mediaSource, campaign == null ? null : nameKey(campaign)]);
    // Of the spellings one campaign's rows give, the first by text: the rows come in no order.
    const named = campaignNames.get(key);
    if (!named || (campaign != null && (named.campaign === null || campaign < named.campaign)))
      campaignNames.set(key, { media_source: mediaSource, campaign: campaign ?? null });
    const maps = [campaignsOfAll];
    if (group !== undefined) {
      const groupId = JSON.stringify([mediaSource, group]);
      let ofGroup = campaignsOfGroups.get(groupId);
      if (!ofGroup) {
        ofGroup = new Map();
        campaignsOfGroups.set(groupId, ofGroup);
      }
      maps.push(ofGroup);
    }
    return maps.map((map) => {
      let found = map.get(key);
      if (!found) {
        found = new Tally(true);
        map.set(key, found);
      }
      return found;
    });
  };
  const activeByDay = new Map<string, number>();
  let activeInRange = 0;
  const unconvertedRevenue = new Map<string, { events: number; amount: number }>();
  /** The table by install day: its active installs and revenue of each day since install. */
  const table = { active: new ByDay(), revenue: new ByDay() };
  for (const row of input.rows) {
    if (row.part === "days") {
      if (row.day_n !== null) {
        table.active.add(row.cohort_day, row.day_n, row.active);
        table.revenue.add(row.cohort_day, row.day_n, row.revenue_usd);
      }
      continue;
    }
    if (row.part === "active_day") {
      activeByDay.set(row.cohort_day, row.active);
      continue;
    }
    if (row.part === "active_range") {
      activeInRange = row.active;
      continue;
    }
    if (row.part === "unconverted_revenue") {
      const currency = row.revenue_currency ?? "";
      const events = row.revenue_events ?? 0;
      const counted = unconvertedRevenue.get(currency) ?? { events: 0, amount: 0 };
      unconvertedRevenue.set(currency, {
        events: counted.events + events,
        amount: counted.amount + (row.revenue_amount ?? 0),
      });
      total.revenueEventsUnconverted += events;
      groupOf(row.media_source, row.group_key).revenueEventsUnconverted += events;
      continue;
    }
    total.add(row);
    groupOf(row.media_source, row.group_key).add(row);
    for (const tally of campaignOf(row.media_source, row.group_key, row.campaign_key)) {
      tally.add(row);
    }
  }
  // Counted, not walked to `to`: a loop that compares days would never end at one no day after
  // it sorts above (`+010000-01-01` < `9999-12-31`). Up to today: a window may end tomorrow (a
  // caller's day ahead of the app's zone's), and a day not begun is no day without users.
  const daily: { day: string; active: number }[] = [];
  const rangeDays = Math.max(0, daysSpanned(input.from, input.to < today ? input.to : today));
  for (let n = 0; n < rangeDays; n++) {
    const day = addDays(input.from, n);
    daily.push({ day, active: activeByDay.get(day) ?? 0 });
  }
  // Today is shown as it stands, and left out of the mean: a day under way, weighed as a whole
  // one, would pull the average down every morning.
  const overDays = daily.filter(({ day }) => day < today);
  // Cost is known only where the filters can tell which rows are theirs.
  let costs = true;
  let costRowsSeen = 0;
  let unconverted = 0;
  const campaigns = new Campaigns(input.rows);
  /** The cost rows the filters keep, by day and media source. */
  const kept = new Map<string, CostRow[]>();
  for (const row of input.costs) {
    const campaignRows = campaigns.of(row);
    const matches = costMatches(row, filters, campaignRows);
    if (matches === undefined) costs = false;
    if (matches === false) continue;
    costRowsSeen++;
    // Counted by the filters it can be told by: a platform's is not known.
    if (
      row.amountUsd === null &&
      costMatches(row, { ...filters, platform: undefined }, campaignRows)
    )
      unconverted++;
    if (!matches) continue;
    // A row no rate converts still replaces: the network's figure is known, not in USD.
    listed(kept, [row.day, row.mediaSource], row);
    // Per day: a campaign whose link went live within the range has the network's clicks of
    // the days before it, and the service's own from then on, never both of one day.
    const touched = campaignRows.filter(
      (found) => found.part === "touches" && found.cohort_day === row.day,
    );
    const reported = {
      clicks: !touched.some((found) => found.clicks > 0),
      impressions: !touched.some((found) => found.impressions > 0),
    };
    total.addCost(row, reported);
    const group = costGroupOf(groupBy, row, campaignRows);
    if (group !== undefined) {
      const ofGroup = groupOf(row.mediaSource, group);
      ofGroup.addCost(row, reported);
      // A row of the whole campaign, grouped by what it does not name: in the group of none.
      if (
        group === null &&
        campaignRows.some(
          (found) => found.part === "installs" && found.installs > 0 && found.group_key !== null,
        )
      )
        ofGroup.costOfOtherGroups = true;
    }
    // The campaign as the query's rows spell it, so that its cost meets its installs: each of
    // their spellings (a campaign renamed within the window, or named by its id alone on some
    // rows), as the cost row matched them all by its id, and its cost bought them all.
    const spellings = new Map<string, string>();
    for (const found of campaignRows) {
      if (found.campaign_key != null)
        spellings.set(nameKey(found.campaign_key), found.campaign_key);
    }
    const spelt =
      spellings.size > 0 ? [...spellings.values()] : [row.campaignName ?? row.campaignId];
    for (const campaign of spelt) {
      for (const tally of campaignOf(row.mediaSource, group, campaign)) {
        tally.addCost(row, reported);
      }
    }
  }
  // The service's own cost, of what no cost row names; and what of it no rate converted,
  // counted as the cost rows no rate converted are: it lowers the cost it is left out of.
  let touchCostsUnconverted = 0;
  for (const row of input.rows) {
    if (row.part !== "installs" && row.part !== "touches") continue;
    const unconvertedTouches = row.cost_unconverted ?? 0;
    if (row.cost_usd === 0 && unconvertedTouches === 0) continue;
    const named = kept.get(JSON.stringify([row.cohort_day, row.media_source])) ?? [];
    if (named.some((cost) => replaces(cost, row))) continue;
    touchCostsUnconverted += unconvertedTouches;
    if (row.cost_usd === 0) continue;
    total.addDayCost(row.cohort_day, row.cost_usd);
    groupOf(row.media_source, row.group_key).addDayCost(row.cohort_day, row.cost_usd);
    for (const tally of campaignOf(row.media_source, row.group_key, row.campaign_key)) {
      tally.addDayCost(row.cohort_day, row.cost_usd);
    }
  }
  const cohortDays = [...total.installs.keys()].sort();
  // Of the campaigns with a cost in the window, the install days of paid installs with none: a
  // network's cost of a day often comes a day or two late, and until it does those installs
  // read as free in eCPI and ROAS.
  const costDaysMissing = costs
    ? [...campaignsOfAll]
        .flatMap(([key, tally]) => {
          // A campaign whose cost no rate converts has no eCPI or ROAS to mislead.
          if (!tally.hasCost) return [];
          const days = [...tally.paidInstalls.keys()]
            .filter((day) => !tally.cost.has(day) && !tally.costRowDays.has(day))
            .sort();
          const named = campaignNames.get(key);
          if (days.length === 0 || !named) return [];
          const paid = days.reduce((sum, day) => sum + (tally.paidInstalls.get(day) ?? 0), 0);
          return [{ ...named, days, paid_installs: paid }];
        })
        .sort(
          (a, b) =>
            b.paid_installs - a.paid_installs ||
            byText(a.media_source, b.media_source) ||
            byText(a.campaign, b.campaign),
        )
        .slice(0, COST_DAYS_MISSING_MAX)
    : [];
  return {
    from: input.from,
    to: input.to,
    group_by: groupBy,
    filters,
    active_users: {
      range: activeInRange,
      average_daily:
        overDays.length === 0
          ? null
          : ratio(overDays.reduce((sum, { active }) => sum + active, 0) / overDays.length),
      daily,
    },
    cost_rows_unconverted: unconverted,
    touch_costs_unconverted: touchCostsUnconverted,
    cost_days_missing: costDaysMissing,
    revenue_events_unconverted: [...unconvertedRevenue.values()].reduce(
      (sum, { events }) => sum + events,
      0,
    ),
    revenue_unconverted: [...unconvertedRevenue]
      .map(([currency, { events, amount }]) => ({ currency, events, amount: money(amount) }))
      .sort((a, b) => b.events - a.events || byText(a.currency, b.currency)),
    totals: total.figures(today, costs, [...campaignsOfAll.values()]),
    groups: [...groups.values()]
      .map(({ media_source, group, tally }) => ({
        media_source,
        group,
        // Cost rows name no platform: by platform, a group's cost is known without any.
        ...tally.figures(today, costs && (groupBy !== "platform" || costRowsSeen === 0), [
          ...(campaignsOfGroups.get(JSON.stringify([media_source, group]))?.values() ?? []),
        ]),
      }))
      .sort(
        (a, b) =>
          b.installs - a.installs ||
          (b.cost_usd ?? 0) - (a.cost_usd ?? 0) ||
          byText(a.media_source, b.media_source) ||
          byText(a.group, b.group),
      ),
    cohorts: cohortDays.map((day) => {
      const installs = total.installs.get(day) ?? 0;
      let cumulative = 0;
      const revenuePerUser: (number | null)[] = [];
      const retention: (number | null)[] = [];
      for (let n = 0; n <= COHORT_DAYS; n++) {
        cumulative += table.revenue.at(day, n);
        const isReached = isOver(day, n, today);
        retention.push(isReached ? ratio(table.active.at(day, n) / installs) : null);
        revenuePerUser.push(isReached ? money(cumulative / installs) : null);
      }
      return { day, installs, retention, revenue_per_user: revenuePerUser };
    }),
  };
};

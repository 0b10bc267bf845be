/**
 * The marketer's view of a range's installs (GET /v1/reports/cohorts): what they cost and
 * earned, how many came back, by media source and the group chosen, and by install day. The
 * range, the filters, the grouping and the cohort table's view are kept in the address's query,
 * so a reload or a shared address shows the same figures. Every figure is the report's own; the
 * page computes only the retention curve and the cohort table's total row, from its cohorts.
 * Active users are of every install with a session in the range, not only the range's installs,
 * so they are shown even when the range has no installs.
 */
import type { ChartConfiguration } from "chart.js";
import type { ComponentChildren } from "preact";
import { useEffect, useMemo } from "preact/hooks";
import { useLocation } from "wouter-preact";
import type {
  ActiveUsers,
  CohortFigures,
  CohortGroupBy,
  CohortGroupRow,
  CohortReport,
  CohortRow,
  ReportFilters,
} from "../api.ts";
import {
  costDaysMissingLine,
  hasAcquisition,
  noCostReason,
  noSessionsSeen,
  unconvertedCostLines,
} from "../cohort-figures.ts";
import { ChartFigure, seriesColour } from "../components/chart.tsx";
import { type Range, RangeForm, rangeProblem } from "../components/date-range.tsx";
import { useDefinition } from "../components/definition.tsx";
import { ErrorText, Page } from "../components/page.tsx";
import { type FilterOptions, FiltersForm, filterOptions } from "../components/report-filters.tsx";
import { csvOf, DownloadCsv, type TextTable, TextTableView } from "../components/text-table.tsx";
import { csvFileName, saveCsv } from "../download.ts";
import {
  formatCount,
  formatKnownUsd,
  formatShare,
  formatUsd,
  todayIn,
  UNKNOWN,
} from "../format.ts";
import { useHashQuery } from "../hash-route.ts";
import { cohortsOf } from "../report-cache.ts";
import { filtersInWords, filtersOf, putFilters, rangeOf } from "../report-query.ts";
import { leftOutColumn, unconvertedRevenueLine } from "../revenue-left-out.ts";
import { appPath, useReportZone, useZoneKnown } from "../session.tsx";
import { useAnswer } from "../use-answer.ts";
import { type ReportRange, useFilterOptions } from "../use-filter-options.ts";
import { groupByWord, platformWord, UNATTRIBUTED } from "../words.ts";

const GROUP_BYS: readonly CohortGroupBy[] = ["campaign", "adset", "ad", "country", "platform"];

/** The cohort table's days since install: the first days, then a week, two and a month. */
const TABLE_DAYS = [0, 1, 2, 3, 7, 14, 30] as const;
/** The report follows each cohort to day 30 since install. */
const LAST_DAY = 30;

type CohortView = "retention" | "revenue";

/** A group without a value: organic installs have no campaign, an install no country. */
const NO_VALUE = "(none)";

/** What the page shows, as the address's query holds it. */
interface Choices {
  readonly range: Range;
  readonly groupBy: CohortGroupBy;
  readonly filters: ReportFilters;
  readonly view: CohortView;
}

const choicesOf = (query: URLSearchParams, lastDay: string): Choices => {
  const groupBy = query.get("group_by");
  return {
    range: rangeOf(query, lastDay),
    groupBy: GROUP_BYS.find((one) => one === groupBy) ?? "campaign",
    filters: filtersOf(query),
    view: query.get("view") === "revenue" ? "revenue" : "retention",
  };
};

/** The choices as the address's query: the defaults (campaign, retention) left out. */
const queryOf = (choices: Choices): string => {
  const query = new URLSearchParams({ from: choices.range.from, to: choices.range.to });
  if (choices.groupBy !== "campaign") query.set("group_by", choices.groupBy);
  putFilters(query, choices.filters);
  if (choices.view !== "retention") query.set("view", choices.view);
  return query.toString();
};

/**
 * The filters' choices: the media sources and campaigns of the range's unfiltered cohorts by
 * campaign, and the countries of its cohorts by country (its installs' and touches').
 */
const filterChoicesOf = async (appId: string, range: ReportRange): Promise<FilterOptions> => {
  const unfiltered = (group_by: CohortGroupBy) =>
    cohortsOf(appId, { from: range.from, to: range.to, group_by }, range.zone);
  const [byCampaign, byCountry] = await Promise.all([
    unfiltered("campaign"),
    unfiltered("country"),
  ]);
  return filterOptions(
    byCampaign.groups.map((row) => ({ mediaSource: row.media_source, campaign: row.group })),
    byCountry.groups.map((row) => row.group),
  );
};

export function CohortsPage(props: { appId: string }) {
  const { appId } = props;
  const [, navigate] = useLocation();
  const query = useHashQuery();
  // The answers' zone once one came, the app list's before; the page asks in the list's.
  const { zone, listed: listedZone, answeredIn } = useReportZone(appId);
  const lastDay = todayIn(zone);
  const choices = useMemo(() => choicesOf(new URLSearchParams(query), lastDay), [query, lastDay]);
  const choose = (next: Partial<Choices>) =>
    navigate(`${appPath(appId, "cohorts")}?${queryOf({ ...choices, ...next })}`, {
      replace: true,
    });

  const { range, groupBy, filters } = choices;
  const zoneKnown = useZoneKnown();
  const problem = zoneKnown ? rangeProblem(range, lastDay, zone) : null;
  const valid = zoneKnown && problem === null;
  /**
   * The report's question: a text, so that a new view of the same figures asks nothing; with the
   * zone the app list names, so that a list read again with another zone asks again.
   */
  const question = JSON.stringify({
    zone: listedZone,
    from: range.from,
    to: range.to,
    group_by: groupBy,
    ...filters,
  });

  const {
    answer: report,
    loading,
    error,
    settled,
  } = useAnswer(valid ? question : null, (text) => {
    const { zone: askedIn, ...asked } = JSON.parse(text) as Parameters<typeof cohortsOf>[1] & {
      zone: string;
    };
    return cohortsOf(appId, asked, askedIn);
  });

  // The filters' choices: the range's media sources, campaigns and countries, unfiltered.
  const options = useFilterOptions(
    appId,
    valid ? { ...range, zone: listedZone } : null,
    settled,
    filterChoicesOf,
  );

  const shown = report !== null && valid;
  useEffect(() => answeredIn(shown ? report.time_zone : null), [shown, report, answeredIn]);
  const filterWords = report ? filtersInWords(report.filters) : "";
  return (
    <Page title="Cohorts" subtitle={appId}>
      <RangeForm
        range={range}
        problem={problem}
        lastDay={lastDay}
        zone={zone}
        onChange={(next) => choose({ range: next })}
      />
      <FiltersForm
        idPrefix="cohorts"
        legend="Filters and grouping"
        filters={filters}
        options={options}
        onChange={(next) => choose({ filters: next })}
        hint="The filters change every figure, table and chart below; the table is by media source and the group chosen. The choices come from the range's installs."
      >
        <div class="field">
          <label for="cohorts-group_by">Group by</label>
          <select
            id="cohorts-group_by"
            name="group_by"
            value={groupBy}
            onChange={(event) => {
              const value = event.currentTarget.value;
              const chosen = GROUP_BYS.find((one) => one === value);
              if (chosen) choose({ groupBy: chosen });
            }}
          >
            {GROUP_BYS.map((one) => (
              <option key={one} value={one}>
                {groupByWord(one)}
              </option>
            ))}
          </select>
        </div>
      </FiltersForm>
      <div role="status" class="status">
        {loading
          ? "Loading…"
          : shown
            ? `Showing ${report.from} to ${report.to}${filterWords ? `: ${filterWords}` : ""}.`
            : ""}
      </div>
      <ErrorText message={error} />
      {shown ? (
        <CohortsBody
          appId={appId}
          report={report}
          view={choices.view}
          busy={loading}
          onView={(view) => choose({ view })}
        />
      ) : null}
    </Page>
  );
}

/**
 * What each figure is, as the service computes it (src/reports/cohorts.ts,
 * docs/dashboard.md#cohorts): one click away from the figure.
 */
const DEFINITIONS = {
  impressions:
    "Views of the ads on the range's days (in the app's time zone), as ad networks reported them to the service (POST /v1/touches), with the filters' media source, campaign, country and platform. For a media source, campaign and day of which the service recorded none, the impressions its cost rows of the day report.",
  clicks:
    "Clicks on the range's days (in the app's time zone): taps on the app's links and the clicks ad networks reported (POST /v1/touches), with the filters' values. For a media source, campaign and day of which the service recorded none, the clicks its cost rows of the day report.",
  installs:
    "Installs whose first open falls on a day of the range (in the app's time zone), each counted once, with the filters' values; deleted installs and reinstalls (a device installing the app again, which the Overview counts apart) left out; what a network charged for a reinstall is in the cost all the same. Organic installs count too, unless a media source filter leaves them out.",
  conversion:
    "Paid installs (those a media source other than organic won) divided by clicks, of the campaigns whose clicks are known (the links' and networks' clicks, else the cost rows'): organic installs came from no click, and an install of a campaign whose network reports no click is no conversion of another campaign's clicks. — when there were no clicks.",
  cost: "What the range's days cost, in US dollars, from two sources added up. Cost rows: what was spent, as sent with POST /v1/costs or the CLI's attribution costs import, each converted at the European Central Bank's rate of its day (or of the nearest of the 7 days before), or at the fixed rate of a currency pegged to the dollar (the Gulf's riyals and dirham among them) or the euro (the CFA francs among them); a row whose currency had no rate is left out (the page says how many). Cost carried by links and ad networks' clicks (their cost model, value and currency): CPI, the price of each install a CPI click or link won (its latest attribution), on the install's day; CPC, the price of each click, and CPM, a thousandth of the price of each impression, on the click's or impression's day; each converted at the rate of that day, and one whose currency had no rate left out (the page says how many). A cost row replaces the carried cost of what it names: its day, media source and campaign (the same by id when both sides name one, else by name), and its ad set, ad and country when it has them; whatever the grouping, so the totals never change with it. A cost row left out for want of a rate still replaces what it names. With a media source, campaign or country filter, only the cost rows, installs and touches of that value count. — when neither source gives a cost for the range's days and filters, and with a country filter when a cost row for every country is among the range's (it holds no one country's share). With a platform filter, — whenever the range has any cost row of the filters' media source and campaign (of any, without those filters), since cost rows name no platform; without such cost rows, the cost the links and clicks carried for that platform's installs and touches shows.",
  ecpi: "Effective cost per install: the cost divided by the paid installs (those a media source other than organic won) of the campaigns with a cost, as the leading services count it: organic installs cost nothing, and a campaign with no cost row and no cost carried by its links and clicks has a spend that is not known, not nothing, whatever its media source's other campaigns cost. The card says how many paid installs count when some are left out. — without cost or such paid installs.",
  revenue:
    "The revenue of these installs' events in US dollars (each at the European Central Bank's rate of its day, or at the fixed rate of a currency pegged to the dollar or the euro), from the install day to day 30 after it, or to today for younger installs. An event whose currency no rate converts is left out, and the page says how many, and how much in each currency.",
  arpu: "Average revenue per user to date: that revenue divided by the installs. Installs too young to have reached day 30 lower it, so it reads lower for a recent range; ARPU D0, D7 and D30 do not. — without installs.",
  arpuDay: (day: number) =>
    `Average revenue per user on day ${day}: the installs' revenue ${day === 0 ? "on their install day" : `from their install day to day ${day} after it`}, of the install days whose day ${day} is over, divided by their installs (organic ones too). Younger installs are left out, so ranges and groups of different ages compare. — while no install day of the range has reached day ${day}.`,
  paying: (day: number) =>
    `Paying users: the share of installs with revenue (above 0, in US dollars) ${day === 0 ? "on their install day" : `on a day from their install day to day ${day} after it`}, counted over the install days whose day ${day} is over, organic ones too. A day whose refunds take its revenue to 0 or below is no paying day. — while no install day of the range has reached day ${day}.`,
  retention: (day: number) =>
    `The share of installs with a session (the SDKs send them: POST /v1/sessions) on the ${day === 1 ? "first" : `${day}th`} calendar day after their install day, in the app's time zone, counted over the install days whose day ${day} is over (today, still under way, counts once it ends). — while no install day of the range has reached day ${day}.`,
  roas: (day: number) =>
    `Return on ad spend: the installs' revenue ${day === 0 ? "on their install day" : `from their install day to day ${day} after it`}, divided by the spend of every day of the range whose day ${day} is over, whether it won installs or not. 100% is the spend earned back. Only the revenue of paid installs of campaigns with a cost counts: the cost bought no organic install, and the spend of a campaign with none is not known. — without spend (a cost above 0) on the days that have reached day ${day}.`,
  curve:
    "For each day since install, the share of installs with a session on that calendar day of the app's time zone, over the install days that have reached it: each install day weighs as many as its installs. Later days rest on fewer, older install days; a day none has reached has no point.",
  activeUsers:
    "Users (installs) that opened the app at least once in the range: an install with a session (the SDKs send one at launch and on coming back after 30 minutes away: POST /v1/sessions) on any day of the range, counted once however many days it was active, whatever day it was installed on. With the filters: the media source and campaign that won the install, and the platform and country its sessions came from. Deleted installs left out.",
  averageDau:
    "Daily active users (DAU) on average: for each day of the range that is over, the installs with at least one session that day, whatever day they were installed on, added up over those days and divided by their number. Today, still under way, is in the chart as it stands and left out of the average, which it would pull down. — while no day of the range is over.",
  dailyActive:
    "For each day of the range, the installs with at least one session that day (daily active users), whatever day they were installed on, with the filters' values.",
  table:
    "Each install day's installs, and for each day since install the share of them with a session that day (Retention), or their revenue from the install day to that day, divided by the installs (Revenue per user, cumulative). — for a day the install day has not reached yet. The last row weighs each install day by its installs, over those that reached the day.",
} as const;

/**
 * A figure's cards, one for each of its days since install as the report gives them (`d0`,
 * `d7`, `d30`): "ARPU D7", its test id `cohort-arpu-d7`.
 */
const dayCards = (figure: {
  label: string;
  id: string;
  days: Readonly<Record<string, number | null>>;
  text: (value: number | null) => string;
  why: (day: number) => string;
  note?: string | undefined;
  definition: (day: number) => string;
}) =>
  Object.entries(figure.days).map(([key, value]) => {
    const day = Number(key.slice(1));
    return {
      label: `${figure.label} D${day}`,
      testId: `cohort-${figure.id}-d${day}`,
      value,
      text: figure.text(value),
      why: figure.why(day),
      note: figure.note,
      definition: figure.definition(day),
    };
  });

/** Whether any install day has reached day N since install. */
const reached = (cohorts: readonly CohortRow[], day: number) =>
  cohorts.some((cohort) => cohort.retention[day] !== null && cohort.retention[day] !== undefined);

/** Why a figure is not known, in a few words under its "—" (the cost's: noCostReason). */
const whyUnknown = {
  notReached: (day: number) => `No install day has reached day ${day} yet.`,
  roas: (figures: CohortFigures, cohorts: readonly CohortRow[], noCost: string, day: number) =>
    figures.cost_usd === null
      ? noCost
      : reached(cohorts, day)
        ? `No spend on the days that reached day ${day}: a return on nothing spent is no ratio.`
        : `No install day has reached day ${day} yet.`,
};

function CohortsBody(props: {
  appId: string;
  report: CohortReport;
  view: CohortView;
  busy: boolean;
  onView: (view: CohortView) => void;
}) {
  const { report } = props;
  if (report.totals.installs === 0) {
    const filtered = filtersInWords(report.filters) !== "";
    // Spend, impressions or clicks that won no install are worth seeing most of all: the
    // acquisition figures and the table by media source stay, the install-day figures go.
    // Cost left out for want of a rate is acquisition too: its line says so.
    const acquisition = hasAcquisition(report.totals) || unconvertedCostLines(report).length > 0;
    return (
      <div class="cohorts" aria-busy={props.busy}>
        <section class="card" aria-label="No installs">
          {acquisition ? (
            <p class="empty" data-testid="cohorts-empty">
              No installs in this range{filtered ? " with these filters" : ""}: the cost,
              impressions and clicks below won none, so there is no revenue or retention to show.
              Installs are the SDKs' first opens; retention also needs the sessions the SDKs send
              (POST /v1/sessions).
            </p>
          ) : (
            <p class="empty" data-testid="cohorts-empty">
              No installs in this range{filtered ? " with these filters" : ""}, so there is nothing
              to show. Installs are the SDKs' first opens; retention also needs the sessions the
              SDKs send (POST /v1/sessions), and cost needs cost rows, sent with POST /v1/costs or
              the CLI's <code>attribution costs import</code>.
            </p>
          )}
        </section>
        {acquisition ? <Totals report={report} only="acquisition" /> : null}
        {/* Installs of earlier days may still have been active in the range. */}
        {report.active_users.range > 0 ? <ActiveUsersFigures active={report.active_users} /> : null}
        {acquisition ? <GroupsTable appId={props.appId} report={report} /> : null}
      </div>
    );
  }
  return (
    <div class="cohorts" aria-busy={props.busy}>
      <Totals report={report} />
      <ActiveUsersFigures active={report.active_users} />
      <GroupsTable appId={props.appId} report={report} />
      <RetentionChart cohorts={report.cohorts} />
      <CohortTable appId={props.appId} report={report} view={props.view} onView={props.onView} />
    </div>
  );
}

function FigureCard(props: {
  label: string;
  testId: string;
  value: number | null;
  text: string;
  /** Why the figure is not known, when it is not. */
  why: string;
  /** What the figure is over, when it is known and that is not all it could be. */
  note?: string | undefined;
  definition: ComponentChildren;
}) {
  const { label, testId } = props;
  const { toggle, text } = useDefinition(`${testId}-definition`, label, props.definition);
  return (
    <section class="card total" aria-label={label}>
      <div class="figure-head">
        <h3>{label}</h3>
        {toggle}
      </div>
      <p class="total-value" data-testid={testId} data-value={props.value ?? undefined}>
        {props.text}
      </p>
      {props.value === null ? (
        <p class="note">{props.why}</p>
      ) : props.note ? (
        <p class="note" data-testid={`${testId}-note`}>
          {props.note}
        </p>
      ) : null}
      {text}
    </section>
  );
}

interface Card {
  label: string;
  testId: string;
  value: number | null;
  text: string;
  why?: string;
  /** What a known figure is over, when that is not all it could be. */
  note?: string | undefined;
  definition: string;
}

/**
 * Over how many paid installs eCPI and ROAS are, when some paid installs' campaigns have no
 * cost (theirs is not known) and are left out of them.
 */
const costedNote = (figures: CohortFigures): string | undefined => {
  const left = figures.paid_installs - figures.paid_installs_with_cost;
  if (figures.cost_usd === null || left <= 0) return undefined;
  return `Over ${formatCount(figures.paid_installs_with_cost)} of ${formatCount(figures.paid_installs)} paid installs: the other ${formatCount(left)} are of campaigns with no cost.`;
};

function Totals(props: {
  report: CohortReport;
  /** One row of cards alone: acquisition, for a range without installs. */
  only?: "acquisition";
}) {
  const { totals: t, cohorts } = props.report;
  const noCost = noCostReason(props.report);
  const costed = costedNote(t);
  const groups: { id: string; title: string; cards: Card[] }[] = [
    {
      id: "acquisition",
      title: "Acquisition",
      cards: [
        {
          label: "Impressions",
          testId: "cohort-impressions",
          value: t.impressions,
          text: formatCount(t.impressions),
          definition: DEFINITIONS.impressions,
        },
        {
          label: "Clicks",
          testId: "cohort-clicks",
          value: t.clicks,
          text: formatCount(t.clicks),
          definition: DEFINITIONS.clicks,
        },
        {
          label: "Conversion rate",
          testId: "cohort-conversion",
          value: t.conversion_rate,
          text: formatShare(t.conversion_rate),
          why: "No clicks in this range.",
          definition: DEFINITIONS.conversion,
        },
        {
          label: "Installs",
          testId: "cohort-installs",
          value: t.installs,
          text: formatCount(t.installs),
          definition: DEFINITIONS.installs,
        },
        {
          label: "Cost",
          testId: "cohort-cost",
          value: t.cost_usd,
          text: formatKnownUsd(t.cost_usd),
          why: noCost,
          definition: DEFINITIONS.cost,
        },
        {
          label: "eCPI",
          testId: "cohort-ecpi",
          value: t.ecpi_usd,
          text: formatKnownUsd(t.ecpi_usd),
          why:
            t.cost_usd === null
              ? noCost
              : t.paid_installs === 0
                ? "No paid installs: organic installs cost nothing."
                : "No paid installs of a media source with a cost.",
          note: costed,
          definition: DEFINITIONS.ecpi,
        },
      ],
    },
    {
      id: "revenue",
      title: "Revenue",
      cards: [
        {
          label: "Cohort revenue",
          testId: "cohort-revenue",
          value: t.revenue_usd,
          text: formatUsd(t.revenue_usd),
          definition: DEFINITIONS.revenue,
        },
        {
          label: "ARPU to date",
          testId: "cohort-arpu",
          value: t.arpu_usd,
          text: formatKnownUsd(t.arpu_usd),
          why: "No installs.",
          definition: DEFINITIONS.arpu,
        },
        ...dayCards({
          label: "ARPU",
          id: "arpu",
          days: t.arpu,
          text: formatKnownUsd,
          why: whyUnknown.notReached,
          definition: DEFINITIONS.arpuDay,
        }),
      ],
    },
    {
      id: "paying",
      title: "Paying users",
      cards: dayCards({
        label: "Paying users",
        id: "paying",
        days: t.paying_user_rate,
        text: formatShare,
        why: whyUnknown.notReached,
        definition: DEFINITIONS.paying,
      }),
    },
    {
      id: "roas",
      title: "Return on ad spend",
      cards: dayCards({
        label: "ROAS",
        id: "roas",
        days: t.roas,
        text: formatShare,
        why: (day) => whyUnknown.roas(t, cohorts, noCost, day),
        note: costed,
        definition: DEFINITIONS.roas,
      }),
    },
    {
      id: "retention",
      title: "Retention",
      cards: dayCards({
        label: "Retention",
        id: "retention",
        days: t.retention,
        text: formatShare,
        why: whyUnknown.notReached,
        definition: DEFINITIONS.retention,
      }),
    },
  ];
  const costLeftOut = unconvertedCostLines(props.report);
  const costDaysMissing = costDaysMissingLine(props.report);
  const revenueLeftOut = unconvertedRevenueLine(props.report, "cohorts");
  const noSessions = noSessionsSeen(cohorts);
  const shown = props.only ? groups.filter((group) => group.id === props.only) : groups;
  return (
    <>
      {shown.map((group) => (
        <section key={group.id} class="figure-group" aria-labelledby={`${group.id}-heading`}>
          <h2 id={`${group.id}-heading`}>{group.title}</h2>
          <div class="totals">
            {group.cards.map((card) => (
              <FigureCard
                key={card.testId}
                label={card.label}
                testId={card.testId}
                value={card.value}
                text={card.text}
                why={card.why ?? ""}
                note={card.note}
                definition={card.definition}
              />
            ))}
          </div>
          {group.id === "acquisition"
            ? costLeftOut.map((line) => (
                <p key={line.testId} class="warning" data-testid={line.testId}>
                  {line.text}
                </p>
              ))
            : null}
          {group.id === "acquisition" && costDaysMissing !== null ? (
            <p class="warning" data-testid="cost-days-missing">
              {costDaysMissing}
            </p>
          ) : null}
          {group.id === "revenue" && revenueLeftOut !== null ? (
            <p class="warning" data-testid="revenue-unconverted">
              {revenueLeftOut}
            </p>
          ) : null}
          {group.id === "retention" && noSessions ? (
            <p class="hint" data-testid="no-sessions">
              No install of this range has a session: retention counts the sessions the SDKs send
              (POST /v1/sessions), which SDKs from this version on report at each launch.
            </p>
          ) : null}
        </section>
      ))}
    </>
  );
}

/** Average DAU to a tenth: a mean of counts, "12.5"; "—" while no day of the range is over. */
const formatAverage = (value: number | null): string =>
  value === null ? UNKNOWN : value.toLocaleString("en-US", { maximumFractionDigits: 1 });

function ActiveUsersFigures(props: { active: ActiveUsers }) {
  const { active } = props;
  const config = useMemo<ChartConfiguration<"bar">>(
    () => ({
      type: "bar",
      data: {
        labels: active.daily.map((point) => point.day),
        datasets: [
          {
            label: "Daily active users",
            data: active.daily.map((point) => point.active),
            backgroundColor: seriesColour(0),
          },
        ],
      },
      options: {
        responsive: true,
        scales: {
          x: { ticks: { maxRotation: 0, autoSkip: true } },
          y: { beginAtZero: true, ticks: { precision: 0 } },
        },
        plugins: { legend: { display: false } },
      },
    }),
    [active],
  );
  return (
    <section class="figure-group" aria-labelledby="active-users-heading">
      <h2 id="active-users-heading">Activity</h2>
      <div class="totals">
        <FigureCard
          label="Active users"
          testId="cohort-active-users"
          value={active.range}
          text={formatCount(active.range)}
          why=""
          definition={DEFINITIONS.activeUsers}
        />
        <FigureCard
          label="Average DAU"
          testId="cohort-average-dau"
          value={active.average_daily}
          text={formatAverage(active.average_daily)}
          why="No day of the range is over yet: today, under way, is not averaged."
          definition={DEFINITIONS.averageDau}
        />
      </div>
      <ChartFigure
        caption="Daily active users"
        config={config}
        table={{
          columns: ["Date", "Daily active users"],
          rows: active.daily.map((point) => [point.day, formatCount(point.active)]),
        }}
        empty={active.daily.every((point) => point.active === 0)}
        definition={{ id: "daily-active-definition", text: DEFINITIONS.dailyActive }}
      />
    </section>
  );
}

const figureCells = (figures: CohortFigures): string[] => [
  formatCount(figures.impressions),
  formatCount(figures.clicks),
  formatCount(figures.installs),
  formatShare(figures.conversion_rate),
  formatKnownUsd(figures.cost_usd),
  formatKnownUsd(figures.ecpi_usd),
  formatUsd(figures.revenue_usd),
  formatKnownUsd(figures.arpu_usd),
  formatKnownUsd(figures.arpu.d0),
  formatKnownUsd(figures.arpu.d7),
  formatKnownUsd(figures.arpu.d30),
  formatShare(figures.paying_user_rate.d0),
  formatShare(figures.paying_user_rate.d7),
  formatShare(figures.paying_user_rate.d30),
  formatShare(figures.retention.d1),
  formatShare(figures.retention.d7),
  formatShare(figures.retention.d30),
  formatShare(figures.roas.d0),
  formatShare(figures.roas.d7),
  formatShare(figures.roas.d30),
];

const FIGURE_COLUMNS = [
  "Impressions",
  "Clicks",
  "Installs",
  "Conversion rate",
  "Cost",
  "eCPI",
  "Cohort revenue",
  "ARPU to date",
  "ARPU D0",
  "ARPU D7",
  "ARPU D30",
  "Paying users D0",
  "Paying users D7",
  "Paying users D30",
  "Retention D1",
  "Retention D7",
  "Retention D30",
  "ROAS D0",
  "ROAS D7",
  "ROAS D30",
];

const groupWord = (groupBy: CohortGroupBy, value: string | null): string =>
  value === null ? NO_VALUE : groupBy === "platform" ? platformWord(value) : value;

export const groupsTable = (report: CohortReport): TextTable => {
  // Last, and only when a row's revenue lacks events no rate converted.
  const leftOut = leftOutColumn([...report.groups, report.totals]);
  const extra = (figures: CohortFigures) => (leftOut ? [leftOut.cell(figures)] : []);
  return {
    head: [
      "Media source",
      groupByWord(report.group_by),
      ...FIGURE_COLUMNS,
      ...(leftOut ? [leftOut.head] : []),
    ],
    body: report.groups.map((row: CohortGroupRow) => ({
      key: JSON.stringify([row.media_source, row.group]),
      cells: [
        row.media_source ?? UNATTRIBUTED,
        groupWord(report.group_by, row.group),
        ...figureCells(row),
        ...extra(row),
      ],
    })),
    foot: ["Total", "", ...figureCells(report.totals), ...extra(report.totals)],
    numeric: [
      false,
      false,
      ...FIGURE_COLUMNS.map(() => true),
      ...extra(report.totals).map(() => true),
    ],
  };
};

const fileName = (appId: string, report: CohortReport, what: string) =>
  csvFileName(appId, what, report.from, report.to, report.filters);

function GroupsTable(props: { appId: string; report: CohortReport }) {
  const { report } = props;
  const table = useMemo(() => groupsTable(report), [report]);
  const name = `By media source and ${groupByWord(report.group_by).toLowerCase()}`;
  return (
    <section class="card" aria-labelledby="cohort-groups-heading">
      <div class="section-head">
        <h2 id="cohort-groups-heading">{name}</h2>
        <DownloadCsv
          of={`the table ${name.toLowerCase()}`}
          onDownload={() =>
            saveCsv(csvOf(table), fileName(props.appId, report, `cohorts-by-${report.group_by}`))
          }
        />
      </div>
      <TextTableView table={table} label={name} testId="cohort-groups" />
      <p class="hint">
        Most installs first; each column is the figure of the same name above, for the row's
        installs.{" "}
        {report.group_by === "platform"
          ? "Cost rows name no platform: when the range has any (of the media source and campaign chosen, if any), no row has a cost and the total's is that of every platform; without them, a row's cost is what its links and clicks carried."
          : `A row's cost is that of the cost rows naming its media source and ${groupByWord(report.group_by).toLowerCase()}, and what its links and clicks carried that no cost row replaces; cost rows that name no ${groupByWord(report.group_by).toLowerCase()} make a row of their own, ${NO_VALUE}, and organic installs have none.`}
      </p>
    </section>
  );
}

/** The share or amount of day N of all install days that reached it, each weighed by its installs. */
const weighted = (
  cohorts: readonly CohortRow[],
  day: number,
  of: (cohort: CohortRow) => (number | null)[],
): { value: number | null; installs: number } => {
  let installs = 0;
  let sum = 0;
  for (const cohort of cohorts) {
    const value = of(cohort)[day];
    if (value === null || value === undefined) continue;
    installs += cohort.installs;
    sum += value * cohort.installs;
  }
  return { value: installs === 0 ? null : sum / installs, installs };
};

const VIEWS: { view: CohortView; label: string }[] = [
  { view: "retention", label: "Retention" },
  { view: "revenue", label: "Revenue per user (cumulative)" },
];

export const cohortTable = (cohorts: readonly CohortRow[], view: CohortView): TextTable => {
  const of = (cohort: CohortRow) =>
    view === "retention" ? cohort.retention : cohort.revenue_per_user;
  const format = view === "retention" ? formatShare : formatKnownUsd;
  const installs = cohorts.reduce((sum, cohort) => sum + cohort.installs, 0);
  return {
    head: ["Install day", "Installs", ...TABLE_DAYS.map((day) => `Day ${day}`)],
    body: cohorts.map((cohort) => ({
      key: cohort.day,
      cells: [
        cohort.day,
        formatCount(cohort.installs),
        ...TABLE_DAYS.map((day) => format(of(cohort)[day] ?? null)),
      ],
    })),
    foot: [
      "All install days",
      formatCount(installs),
      ...TABLE_DAYS.map((day) => format(weighted(cohorts, day, of).value)),
    ],
    numeric: [false, true, ...TABLE_DAYS.map(() => true)],
  };
};

function CohortTable(props: {
  appId: string;
  report: CohortReport;
  view: CohortView;
  onView: (view: CohortView) => void;
}) {
  const { report, view } = props;
  const table = useMemo(() => cohortTable(report.cohorts, view), [report, view]);
  const { toggle, text } = useDefinition(
    "cohort-table-definition",
    "Cohorts by install day",
    DEFINITIONS.table,
  );
  return (
    <section class="card" aria-labelledby="cohort-table-heading">
      <div class="section-head">
        <div class="figure-head">
          <h2 id="cohort-table-heading">Cohorts by install day</h2>
          {toggle}
        </div>
        <DownloadCsv
          of="the cohort table"
          onDownload={() =>
            saveCsv(
              csvOf(table),
              fileName(
                props.appId,
                report,
                view === "retention" ? "retention" : "revenue-per-user",
              ),
            )
          }
        />
      </div>
      {text}
      <fieldset class="view-toggle">
        <legend class="visually-hidden">The cohort table shows</legend>
        {VIEWS.map((one) => (
          <button
            key={one.view}
            type="button"
            class="secondary"
            aria-pressed={view === one.view}
            onClick={() => props.onView(one.view)}
          >
            {one.label}
          </button>
        ))}
      </fieldset>
      <TextTableView
        table={table}
        label={`Cohorts by install day: ${VIEWS.find((one) => one.view === view)?.label ?? ""}`}
        testId="cohort-table"
      />
      <p class="hint">Days since install 0, 1, 2, 3, 7, 14 and 30; — for a day not reached yet.</p>
    </section>
  );
}

function RetentionChart(props: { cohorts: CohortRow[] }) {
  const { cohorts } = props;
  const points = useMemo(
    () =>
      Array.from({ length: LAST_DAY + 1 }, (_, day) => ({
        day,
        ...weighted(cohorts, day, (cohort) => cohort.retention),
      })),
    [cohorts],
  );
  const config = useMemo<ChartConfiguration<"line">>(
    () => ({
      type: "line",
      data: {
        labels: points.map((point) => String(point.day)),
        datasets: [
          {
            label: "Retention",
            // Percent, to a tenth, as the tables show it.
            data: points.map((point) =>
              point.value === null ? null : Math.round(point.value * 1000) / 10,
            ),
            borderColor: seriesColour(0),
            backgroundColor: seriesColour(0),
            tension: 0,
            spanGaps: false,
          },
        ],
      },
      options: {
        responsive: true,
        scales: {
          x: {
            title: { display: true, text: "Days since install" },
            ticks: { maxRotation: 0, autoSkip: true },
          },
          y: {
            beginAtZero: true,
            suggestedMax: 100,
            ticks: { callback: (value: number | string) => `${value}%` },
          },
        },
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              title: (items) => `Day ${items[0]?.label ?? ""} since install`,
              label: (item) => `Retention ${item.formattedValue}%`,
            },
          },
        },
      },
    }),
    [points],
  );
  return (
    <ChartFigure
      caption="Retention by day since install"
      config={config}
      table={{
        columns: ["Day since install", "Retention", "Installs counted"],
        rows: points.map((point) => [
          `Day ${point.day}`,
          formatShare(point.value),
          point.value === null ? UNKNOWN : formatCount(point.installs),
        ]),
      }}
      empty={cohorts.length === 0}
      definition={{ id: "retention-curve-definition", text: DEFINITIONS.curve }}
    />
  );
}

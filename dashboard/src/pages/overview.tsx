import type { ChartConfiguration, Scale } from "chart.js";
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { Link, useLocation } from "wouter-preact";
import {
  type CampaignRow,
  type DeliveryCounts,
  errorMessage,
  getPostbacks,
  type Overview,
  type ReportFilters,
} from "../api.ts";
import { ORGANIC_COLOUR, OTHER_COLOUR, UNATTRIBUTED_COLOUR } from "../colours.ts";
import { ChartFigure, seriesColour } from "../components/chart.tsx";
import { type Range, RangeForm, rangeProblem } from "../components/date-range.tsx";
import { DefinitionText, InfoButton, useDefinition } from "../components/definition.tsx";
import { ErrorText, Page, TableScroll } from "../components/page.tsx";
import { type FilterOptions, FiltersForm, filterOptions } from "../components/report-filters.tsx";
import { DownloadCsv } from "../components/text-table.tsx";
import { type DaySeries, eventSeries, seriesByDay } from "../day-series.ts";
import { csvFileName, saveCsv } from "../download.ts";
import { formatCount, formatUsd, todayIn, UNKNOWN } from "../format.ts";
import { useHashQuery } from "../hash-route.ts";
import { overviewOf } from "../report-cache.ts";
import {
  filterParams,
  filtersInWords,
  filtersOf,
  hasFilters,
  putFilters,
  rangeOf,
} from "../report-query.ts";
import { unconvertedRevenueLine } from "../revenue-left-out.ts";
import { appPath, useReportZone, useSession, useZoneKnown } from "../session.tsx";
import { useAnswer } from "../use-answer.ts";
import { type ReportRange, useFilterOptions } from "../use-filter-options.ts";
import { matchMethodWord, matchStatusWord, NO_EVENT_NAME, UNATTRIBUTED } from "../words.ts";
import { SkadnetworkSection } from "./overview-skadnetwork.tsx";

/** Events per day: the 6 most frequent event names, then one "other". */
const TOP_EVENT_NAMES = 6;
/** Installs per day: the 7 largest media sources, then one "other" (organic, none apart). */
const TOP_MEDIA_SOURCES = 7;

/** What the overview shows, as the address's query holds it. */
interface Choices {
  readonly range: Range;
  readonly filters: ReportFilters;
}

const queryOf = (choices: Choices): string =>
  putFilters(
    new URLSearchParams({ from: choices.range.from, to: choices.range.to }),
    choices.filters,
  ).toString();

/**
 * The filters' choices: the media sources and campaigns of the range's unfiltered campaign
 * table (every one the range's events name, those of installs of earlier days too), and the
 * countries its events were sent from.
 */
const filterChoicesOf = async (appId: string, range: ReportRange): Promise<FilterOptions> => {
  const unfiltered = await overviewOf(appId, { from: range.from, to: range.to }, range.zone);
  return filterOptions(
    unfiltered.campaigns.map((row) => ({ mediaSource: row.media_source, campaign: row.campaign })),
    unfiltered.countries.map((row) => row.country),
  );
};

export function OverviewPage(props: { appId: string }) {
  const { appId } = props;
  const { currentAppId, currentAppOnIos } = useSession();
  const onIos = currentAppId === appId && currentAppOnIos === true;
  const [, navigate] = useLocation();
  const query = useHashQuery();
  // The answers' zone once one came, the app list's before; the page asks in the list's.
  const { zone, listed: listedZone, answeredIn } = useReportZone(appId);
  const lastDay = todayIn(zone);
  const choices = useMemo<Choices>(() => {
    const params = new URLSearchParams(query);
    return { range: rangeOf(params, lastDay), filters: filtersOf(params) };
  }, [query, lastDay]);
  const choose = (next: Partial<Choices>) =>
    navigate(`${appPath(appId, "overview")}?${queryOf({ ...choices, ...next })}`, {
      replace: true,
    });
  const { range, filters } = choices;
  /** The answer shown, with the filters it was asked with (the answer does not name them). */
  const zoneKnown = useZoneKnown();
  const problem = zoneKnown ? rangeProblem(range, lastDay, zone) : null;
  const valid = zoneKnown && problem === null;
  /**
   * The report's question: a text, so that the same choices ask nothing again; with the zone the
   * app list names, so that a list read again with another zone asks again.
   */
  const question = JSON.stringify({ zone: listedZone, from: range.from, to: range.to, ...filters });

  // The answer keeps the filters it was asked with, which the overview's answer does not name.
  const {
    answer: shownAnswer,
    loading,
    error,
    settled,
  } = useAnswer(valid ? question : null, async (text) => {
    const { zone: askedIn, ...asked } = JSON.parse(text) as Parameters<typeof overviewOf>[1] & {
      zone: string;
    };
    return { data: await overviewOf(appId, asked, askedIn), filters: filterParams(asked) };
  });

  // The filters' choices, of the range unfiltered (the same answer as above when no filter is set).
  const options = useFilterOptions(
    appId,
    valid ? { ...range, zone: listedZone } : null,
    settled,
    filterChoicesOf,
  );

  const data = valid ? (shownAnswer?.data ?? null) : null;
  useEffect(() => answeredIn(data?.time_zone), [data, answeredIn]);
  const filterWords = shownAnswer ? filtersInWords(shownAnswer.filters) : "";
  const filtered = shownAnswer !== null && hasFilters(shownAnswer.filters);
  return (
    <Page title="Overview" subtitle={appId}>
      <RangeForm
        range={range}
        problem={problem}
        lastDay={lastDay}
        zone={zone}
        onChange={(next) => choose({ range: next })}
      />
      <FiltersForm
        idPrefix="overview"
        legend="Filters"
        filters={filters}
        options={options}
        onChange={(next) => choose({ filters: next })}
        hint="The filters narrow every figure, chart and table below: the installs credited to the media source and campaign chosen, with their events, and what was sent from the country and platform chosen. The media sources, campaigns and countries are those of the range's events."
      />
      <div role="status" class="status">
        {loading
          ? "Loading…"
          : data
            ? `Showing ${data.from} to ${data.to}${filterWords ? `: ${filterWords}` : ""}.`
            : ""}
      </div>
      <ErrorText message={error} />
      {data && !filtered && data.totals.events === 0 ? (
        // An app just made has nothing to show on any chart: say what makes the first data come.
        <p class="hint" data-testid="no-events-hint">
          No event in this range. An app that has sent none yet needs its SDK set up with an SDK key
          from the <Link href={appPath(appId, "keys")}>Keys page</Link> (the SDK guide,
          docs/sdks.md, shows how); its events then show on the{" "}
          <Link href={appPath(appId, "live")}>Live page</Link> as they arrive.
        </p>
      ) : null}
      {data && shownAnswer ? (
        <OverviewBody
          appId={appId}
          data={data}
          busy={loading}
          filtered={filtered}
          filters={shownAnswer.filters}
        />
      ) : null}
      {onIos && valid ? (
        <SkadnetworkSection
          appId={appId}
          from={range.from}
          to={range.to}
          filtered={hasFilters(filters)}
        />
      ) : null}
      <PostbackCounts appId={appId} />
    </Page>
  );
}

/**
 * What each figure of the overview is, as the service computes it (docs/dashboard.md#figures):
 * one click away from the figure.
 */
const DEFINITIONS = {
  installs:
    "Installs whose first open falls on a day of the range (in the app's time zone, set in its settings), each counted once. Deleted installs are left out, and so are reinstalls, counted apart: every install figure of the page counts these.",
  reinstalls:
    "Devices that installed the app again on a day of the range, after an earlier install on the same device: an iPhone or iPad the app had seen, or a phone installing again from the tap its first install came from. They are not among the installs, here, in the charts or in the cohorts.",
  paid: "Installs of the range credited to a media source: a link, an ad network's click or impression, or Apple Ads.",
  organic: "Installs of the range that no link, click or impression explains.",
  events:
    "Everything the apps reported on the days of the range, the installs themselves included, whenever the app was installed.",
  revenue:
    "The revenue of the range's events, each converted to US dollars at the European Central Bank's rate of its day, or at the fixed rate of a currency pegged to the dollar or the euro. An event without revenue counts as 0. An event whose currency no rate converts is left out, here and in every revenue figure of the page, and a line under these figures says how many, and how much in each currency.",
  matchStatus:
    "Each install of the range by what its attribution found. Matched (with deep link): a touch won and the app was handed its deep link. Matched (no deep link): a touch won, but it carried no deep link or the match was not sure enough to hand one over. Organic: no touch explains it. Waiting for attribution: not in the reports yet, for a few minutes.",
  matchMethod:
    "How each install of the range was matched. Click id or advertising id: the touch named the device or the click for sure. Probabilistic: a click from the install's address on a like device, shortly before the first open. An install not matched shows its status.",
  campaignInstalls: "Installs of the range credited to this media source and campaign.",
  campaignReinstalls:
    "Reinstalls of the range credited to this media source and campaign: devices that installed the app again, an iPhone or iPad the app had seen, or a phone installing again from the tap its first install came from. They are not among its installs.",
  campaignEvents:
    "Events of the range (the installs included) of the installs credited to this campaign, whenever those were installed.",
  campaignRevenue:
    "The revenue in US dollars of those events: revenue earned in the range, also from installs of earlier days.",
  revenuePerInstall:
    "The campaign's revenue in the range divided by its installs in the range. Revenue from installs of earlier days counts too, so it is not what the range's installs earned each; — when the campaign has no install in the range.",
} as const;

function OverviewBody(props: {
  appId: string;
  data: Overview;
  busy: boolean;
  filtered: boolean;
  /** The filters the answer was asked with, which name its files too. */
  filters: ReportFilters;
}) {
  const { data, filtered } = props;
  /** Saves a table's rows as the CSV file of its name, for the range and filters shown. */
  const download = (rows: string[][], what: string) =>
    saveCsv(rows, csvFileName(props.appId, what, data.from, data.to, props.filters));
  return (
    <div class="overview" aria-busy={props.busy}>
      <Totals data={data} />
      <div class="charts">
        <InstallsChart data={data} />
        <PaidOrganicChart data={data} />
        <BreakdownChart
          id="match-status"
          caption="Installs by match status"
          definition={DEFINITIONS.matchStatus}
          rows={data.match_status.map((row) => ({
            key: row.status,
            label: matchStatusWord(row.status),
            value: row.installs,
          }))}
        />
        <BreakdownChart
          id="match-method"
          caption="Installs by match method"
          definition={DEFINITIONS.matchMethod}
          rows={data.match_method.map((row) => ({
            key: row.method,
            label: matchMethodWord(row.method),
            value: row.installs,
          }))}
        />
        <EventsChart data={data} />
        <RevenueChart data={data} />
      </div>
      <CampaignTable
        campaigns={data.campaigns}
        filtered={filtered}
        onDownload={(rows) => download(rows, "campaigns")}
      />
      <DeepLinkTable
        rows={data.deep_link_paths}
        filtered={filtered}
        onDownload={(rows) => download(rows, "deep-link-paths")}
      />
    </div>
  );
}

function TotalCard(props: {
  label: string;
  testId: string;
  value: number;
  text: string;
  definition: ComponentChildren;
}) {
  const { label, testId } = props;
  const { toggle, text } = useDefinition(`${testId}-definition`, label, props.definition);
  return (
    <section class="card total" aria-label={label}>
      <div class="figure-head">
        <h2>{label}</h2>
        {toggle}
      </div>
      <p class="total-value" data-testid={testId} data-value={props.value}>
        {props.text}
      </p>
      {text}
    </section>
  );
}

function Totals(props: { data: Overview }) {
  const { totals } = props.data;
  const revenueLeftOut = unconvertedRevenueLine(props.data, "overview");
  const cards: [label: string, testId: string, value: number, text: string, definition: string][] =
    [
      [
        "Installs",
        "total-installs",
        totals.installs,
        formatCount(totals.installs),
        DEFINITIONS.installs,
      ],
      [
        "Paid installs",
        "total-paid",
        totals.paid_installs,
        formatCount(totals.paid_installs),
        DEFINITIONS.paid,
      ],
      [
        "Organic installs",
        "total-organic",
        totals.organic_installs,
        formatCount(totals.organic_installs),
        DEFINITIONS.organic,
      ],
      [
        "Reinstalls",
        "total-reinstalls",
        totals.reinstalls,
        formatCount(totals.reinstalls),
        DEFINITIONS.reinstalls,
      ],
      ["Events", "total-events", totals.events, formatCount(totals.events), DEFINITIONS.events],
      [
        "Revenue USD",
        "total-revenue",
        totals.revenue_usd,
        formatUsd(totals.revenue_usd),
        DEFINITIONS.revenue,
      ],
    ];
  return (
    <>
      <div class="totals">
        {cards.map(([label, testId, value, text, definition]) => (
          <TotalCard
            key={testId}
            label={label}
            testId={testId}
            value={value}
            text={text}
            definition={definition}
          />
        ))}
      </div>
      {revenueLeftOut !== null ? (
        <p class="warning" data-testid="revenue-unconverted">
          {revenueLeftOut}
        </p>
      ) : null}
    </>
  );
}

/** A chart's series: a name as shown in the legend, its values, its colour. */
interface Series {
  label: string;
  values: number[];
  colour: string;
}

/**
 * The `top` largest of `names` (ranked by total, largest first) as their own series, the rest
 * summed into one "other" series; all of them as they are when that would leave one or none
 * in "other". The visually hidden table keeps every name.
 */
const topAndOther = <K,>(
  days: string[],
  names: K[],
  series: Map<K, number[]>,
  top: number,
  what: string,
): { kept: K[]; other: Series | null } => {
  if (names.length <= top + 1) return { kept: names, other: null };
  const rest = names.slice(top);
  const values = days.map((_, i) =>
    rest.reduce((sum, name) => sum + (series.get(name)?.[i] ?? 0), 0),
  );
  return {
    kept: names.slice(0, top),
    other: { label: `other (${rest.length} ${what})`, values, colour: OTHER_COLOUR },
  };
};

/** Days along the x axis: level, and as MM-DD when the chart is narrow (a phone). */
const dayTicks = {
  maxRotation: 0,
  autoSkip: true,
  callback(this: Scale, value: number | string) {
    const label = this.getLabelForValue(Number(value));
    return this.chart.width < 480 ? label.slice(5) : label;
  },
};

const stackedBarOptions = {
  responsive: true,
  interaction: { mode: "index" as const, intersect: false },
  scales: {
    x: { stacked: true, ticks: dayTicks },
    y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } },
  },
  plugins: {
    legend: { position: "bottom" as const, labels: { boxWidth: 12, boxHeight: 12 } },
  },
};

/** The doughnuts' legend, with the bar charts' small boxes. */
const doughnutLegend = {
  position: "bottom" as const,
  labels: { boxWidth: 12, boxHeight: 12 },
};

/** A bar chart of one series per name, stacked day by day. */
const stackedBars = (days: string[], series: Series[]): ChartConfiguration<"bar"> => ({
  type: "bar",
  data: {
    labels: days,
    datasets: series.map((one) => ({
      label: one.label,
      data: one.values,
      backgroundColor: one.colour,
    })),
  },
  options: stackedBarOptions,
});

/** A chart's table: a column per series, headed by its label (its key unless given). */
const tableOf = <K,>(
  firstColumn: string,
  built: DaySeries<K>,
  label: (key: K) => string = String,
) => ({
  columns: [firstColumn, ...built.names.map(label)],
  rows: built.days.map((d, i) => [d, ...built.names.map((n) => built.series.get(n)?.[i] ?? 0)]),
});

function InstallsChart(props: { data: Overview }) {
  const { data } = props;
  const built = useMemo(() => {
    const result = seriesByDay(
      data,
      data.installs_by_day,
      (r) => r.date,
      (r) => r.media_source ?? UNATTRIBUTED,
      (r) => r.installs,
    );
    // Organic is its own, grey series, drawn last (on top of the paid sources).
    const last = new Set(["organic", UNATTRIBUTED]);
    const names = [
      ...result.names.filter((n) => !last.has(n)),
      ...result.names.filter((n) => n === UNATTRIBUTED),
      ...result.names.filter((n) => n === "organic"),
    ];
    return { ...result, names };
  }, [data]);
  const config = useMemo<ChartConfiguration<"bar">>(() => {
    const own = (name: string) => name === "organic" || name === UNATTRIBUTED;
    const { kept, other } = topAndOther(
      built.days,
      built.names.filter((name) => !own(name)),
      built.series,
      TOP_MEDIA_SOURCES,
      "media sources",
    );
    const of = (name: string, colour: string): Series => ({
      label: name,
      values: built.series.get(name) ?? [],
      colour,
    });
    const series: Series[] = [
      ...kept.map((name, i) => of(name, seriesColour(i))),
      ...(other ? [other] : []),
      ...built.names.filter((n) => n === UNATTRIBUTED).map((n) => of(n, UNATTRIBUTED_COLOUR)),
      ...built.names.filter((n) => n === "organic").map((n) => of(n, ORGANIC_COLOUR)),
    ];
    return stackedBars(built.days, series);
  }, [built]);
  return (
    <ChartFigure
      caption="Installs per day by media source"
      config={config}
      table={tableOf("Date", built)}
      empty={built.names.length === 0}
    />
  );
}

function PaidOrganicChart(props: { data: Overview }) {
  const { paid_installs: paid, organic_installs: organic } = props.data.totals;
  const config = useMemo<ChartConfiguration<"doughnut">>(
    () => ({
      type: "doughnut",
      data: {
        labels: ["Paid", "Organic"],
        datasets: [{ data: [paid, organic], backgroundColor: [seriesColour(0), ORGANIC_COLOUR] }],
      },
      options: { responsive: true, plugins: { legend: doughnutLegend } },
    }),
    [paid, organic],
  );
  return (
    <ChartFigure
      caption="Paid and organic installs"
      config={config}
      table={{
        columns: ["Kind", "Installs"],
        rows: [
          ["Paid", paid],
          ["Organic", organic],
        ],
      }}
      empty={paid + organic === 0}
    />
  );
}

/** One slice of a breakdown: the stored word, the reader's word, the installs. */
interface Slice {
  key: string;
  label: string;
  value: number;
}

function BreakdownChart(props: { id: string; caption: string; definition: string; rows: Slice[] }) {
  const { caption, rows } = props;
  const config = useMemo<ChartConfiguration<"doughnut">>(
    () => ({
      type: "doughnut",
      data: {
        labels: rows.map((row) => row.label),
        datasets: [
          {
            data: rows.map((row) => row.value),
            backgroundColor: rows.map((row, i) =>
              row.key === "organic" ? ORGANIC_COLOUR : seriesColour(i),
            ),
          },
        ],
      },
      options: { responsive: true, plugins: { legend: doughnutLegend } },
    }),
    [rows],
  );
  return (
    <ChartFigure
      caption={caption}
      config={config}
      table={{ columns: ["Kind", "Installs"], rows: rows.map((row) => [row.label, row.value]) }}
      empty={rows.every((row) => row.value === 0)}
      definition={{ id: `${props.id}-definition`, text: props.definition }}
    />
  );
}

function EventsChart(props: { data: Overview }) {
  const { data } = props;
  // A series per stored name, labelled by its word: two names of one word stay apart.
  const built = useMemo(() => eventSeries(data), [data]);
  const labelOf = (name: string | null) => built.labels.get(name) ?? NO_EVENT_NAME;
  const config = useMemo<ChartConfiguration<"bar">>(() => {
    const { kept, other } = topAndOther(
      built.days,
      built.names,
      built.series,
      TOP_EVENT_NAMES,
      "event names",
    );
    const series: Series[] = [
      ...kept.map((name, i) => ({
        label: built.labels.get(name) ?? NO_EVENT_NAME,
        values: built.series.get(name) ?? [],
        colour: seriesColour(i),
      })),
      ...(other ? [other] : []),
    ];
    return stackedBars(built.days, series);
  }, [built]);
  return (
    <ChartFigure
      caption="Events per day by event name"
      config={config}
      table={tableOf("Date", built, labelOf)}
      empty={built.names.length === 0}
    />
  );
}

function RevenueChart(props: { data: Overview }) {
  const { data } = props;
  const built = useMemo(
    () =>
      seriesByDay(
        data,
        data.revenue_by_day,
        (r) => r.date,
        () => "Revenue USD",
        (r) => r.revenue_usd,
      ),
    [data],
  );
  const values = built.series.get("Revenue USD") ?? built.days.map(() => 0);
  const config = useMemo<ChartConfiguration<"line">>(
    () => ({
      type: "line",
      data: {
        labels: built.days,
        datasets: [
          {
            label: "Revenue USD",
            data: values,
            borderColor: seriesColour(2),
            backgroundColor: seriesColour(2),
            // Straight segments: a curve would dip below a day's figure (under zero after one).
            tension: 0,
          },
        ],
      },
      options: {
        responsive: true,
        scales: { x: { ticks: dayTicks }, y: { beginAtZero: true } },
        plugins: { legend: { display: false } },
      },
    }),
    [built, values],
  );
  return (
    <ChartFigure
      caption="Revenue per day (USD)"
      config={config}
      table={{
        columns: ["Date", "Revenue USD"],
        rows: built.days.map((d, i) => [d, formatUsd(values[i] ?? 0)]),
      }}
      empty={data.revenue_by_day.length === 0}
    />
  );
}

type SortKey =
  | "media_source"
  | "campaign"
  | "installs"
  | "reinstalls"
  | "events"
  | "revenue_usd"
  | "rpi";

const COLUMNS: { key: SortKey; label: string; numeric: boolean; definition?: string }[] = [
  { key: "media_source", label: "Media source", numeric: false },
  { key: "campaign", label: "Campaign", numeric: false },
  { key: "installs", label: "Installs", numeric: true, definition: DEFINITIONS.campaignInstalls },
  {
    key: "reinstalls",
    label: "Reinstalls",
    numeric: true,
    definition: DEFINITIONS.campaignReinstalls,
  },
  { key: "events", label: "Events", numeric: true, definition: DEFINITIONS.campaignEvents },
  {
    key: "revenue_usd",
    label: "Revenue USD",
    numeric: true,
    definition: DEFINITIONS.campaignRevenue,
  },
  {
    key: "rpi",
    label: "Revenue per install in range",
    numeric: true,
    definition: DEFINITIONS.revenuePerInstall,
  },
];

/**
 * The campaign's revenue in the range over its installs in the range (the report's own
 * figure); none for a campaign without installs in the range, whose revenue came from earlier
 * installs.
 */
export const revenuePerInstallInRange = (row: CampaignRow): number | null =>
  row.installs > 0 ? (row.revenue_per_install ?? row.revenue_usd / row.installs) : null;

const sortValue = (row: CampaignRow, key: SortKey): string | number => {
  switch (key) {
    case "media_source":
      return row.media_source ?? "";
    case "campaign":
      return row.campaign ?? "";
    case "rpi":
      return revenuePerInstallInRange(row) ?? -1;
    default:
      return row[key];
  }
};

const columnDefinitionId = (key: SortKey) => `campaigns-${key}-definition`;

/** A campaign's cells as the table shows them, and its CSV holds them. */
const campaignCells = (row: CampaignRow): string[] => [
  row.media_source ?? UNATTRIBUTED,
  row.campaign ?? UNKNOWN,
  formatCount(row.installs),
  formatCount(row.reinstalls),
  formatCount(row.events),
  formatUsd(row.revenue_usd),
  formatUsd(revenuePerInstallInRange(row)),
];

function CampaignTable(props: {
  campaigns: CampaignRow[];
  filtered: boolean;
  /** The table's header and rows, in the order shown, to save as CSV. */
  onDownload: (rows: string[][]) => void;
}) {
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({
    key: "installs",
    descending: true,
  });
  /** The columns whose definitions are open. */
  const [explained, setExplained] = useState<ReadonlySet<SortKey>>(new Set());
  const rows = useMemo(() => {
    const sorted = [...props.campaigns].sort((a, b) => {
      const x = sortValue(a, sort.key);
      const y = sortValue(b, sort.key);
      const order =
        typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return sort.descending ? -order : order;
    });
    return sorted;
  }, [props.campaigns, sort]);
  const explain = (key: SortKey) =>
    setExplained((open) => {
      const next = new Set(open);
      if (!next.delete(key)) next.add(key);
      return next;
    });

  return (
    <section class="card">
      <div class="section-head">
        <h2 id="campaigns-heading">Campaigns</h2>
        {rows.length > 0 ? (
          <DownloadCsv
            of="the campaign table"
            onDownload={() =>
              props.onDownload([COLUMNS.map((column) => column.label), ...rows.map(campaignCells)])
            }
          />
        ) : null}
      </div>
      {COLUMNS.map((column) =>
        column.definition ? (
          <DefinitionText
            key={column.key}
            id={columnDefinitionId(column.key)}
            open={explained.has(column.key)}
          >
            <strong>{column.label}:</strong> {column.definition}
          </DefinitionText>
        ) : null,
      )}
      {rows.length === 0 ? (
        <p class="empty">
          No installs or events in this range{props.filtered ? " with these filters" : ""}.
        </p>
      ) : (
        <TableScroll label="Campaigns">
          <table aria-label="Campaigns" class="sortable">
            <thead>
              <tr>
                {COLUMNS.map((column) => {
                  const active = sort.key === column.key;
                  return (
                    <th
                      key={column.key}
                      scope="col"
                      class={column.numeric ? "num" : undefined}
                      aria-sort={
                        active ? (sort.descending ? "descending" : "ascending") : undefined
                      }
                    >
                      <div class="column-head">
                        <button
                          type="button"
                          class="sort"
                          onClick={() =>
                            setSort(
                              active
                                ? { key: column.key, descending: !sort.descending }
                                : { key: column.key, descending: column.numeric },
                            )
                          }
                        >
                          {column.label}
                          <span class="sort-mark" aria-hidden="true">
                            {active ? (sort.descending ? " ▼" : " ▲") : " ↕"}
                          </span>
                        </button>
                        {column.definition ? (
                          <InfoButton
                            controls={columnDefinitionId(column.key)}
                            term={`${column.label} (campaigns)`}
                            open={explained.has(column.key)}
                            onToggle={() => explain(column.key)}
                          />
                        ) : null}
                      </div>
                    </th>
                  );
                })}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={`${row.media_source}\u0000${row.campaign}`}>
                  {campaignCells(row).map((text, index) => (
                    <td
                      key={COLUMNS[index]?.key}
                      class={COLUMNS[index]?.numeric ? "num" : undefined}
                    >
                      {text}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

/** A deep link path's cells as the table shows them, and its CSV holds them. */
const deepLinkCells = (row: Overview["deep_link_paths"][number]): string[] => [
  row.deep_link_path ?? "(none)",
  formatCount(row.installs),
];

const DEEP_LINK_COLUMNS = ["Deep link path", "Installs"];

function DeepLinkTable(props: {
  rows: Overview["deep_link_paths"];
  filtered: boolean;
  onDownload: (rows: string[][]) => void;
}) {
  return (
    <section class="card">
      <div class="section-head">
        <h2 id="deep-links-heading">Top deep link paths</h2>
        {props.rows.length > 0 ? (
          <DownloadCsv
            of="the deep link paths"
            onDownload={() =>
              props.onDownload([DEEP_LINK_COLUMNS, ...props.rows.map(deepLinkCells)])
            }
          />
        ) : null}
      </div>
      {props.rows.length > 0 ? (
        <p class="hint">
          The paths of the links whose touch won each install, whether or not the app was handed the
          path: a match not sure enough hands none over, and counts as Matched (no deep link).
        </p>
      ) : null}
      {props.rows.length === 0 ? (
        <p class="empty">
          No installs came through a deep link in this range
          {props.filtered ? " with these filters" : ""}.
        </p>
      ) : (
        <TableScroll label="Deep link paths">
          <table aria-label="Deep link paths">
            <thead>
              <tr>
                <th scope="col">{DEEP_LINK_COLUMNS[0]}</th>
                <th scope="col" class="num">
                  {DEEP_LINK_COLUMNS[1]}
                </th>
              </tr>
            </thead>
            <tbody>
              {props.rows.map((row) => {
                const [path, installs] = deepLinkCells(row);
                return (
                  <tr key={row.deep_link_path ?? ""}>
                    <td class="mono">{path}</td>
                    <td class="num">{installs}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

/** One configuration's attempts of the last 30 days. */
interface PostbackRow {
  configId: string;
  partner: string;
  delivered: number;
  retry: number;
  failed: number;
  skipped: number;
}

/** The counts per day and configuration summed per configuration, most attempts first. */
export const postbackRows = (counts: readonly DeliveryCounts[]): PostbackRow[] => {
  const rows = new Map<string, PostbackRow>();
  for (const count of counts) {
    const key = `${count.partner}\u0000${count.config_id}`;
    const row = rows.get(key) ?? {
      configId: count.config_id,
      partner: count.partner,
      delivered: 0,
      retry: 0,
      failed: 0,
      skipped: 0,
    };
    row.delivered += count.delivered;
    row.retry += count.retry;
    row.failed += count.failed;
    row.skipped += count.skipped;
    rows.set(key, row);
  }
  const total = (row: PostbackRow) => row.delivered + row.retry + row.failed + row.skipped;
  return [...rows.values()].sort(
    (a, b) => total(b) - total(a) || a.configId.localeCompare(b.configId),
  );
};

/**
 * Postbacks and webhooks of the last 30 days, per configuration and verdict: the delivery log's
 * own window, whatever the range above (the log keeps 30 days).
 */
function PostbackCounts(props: { appId: string }) {
  const { appId } = props;
  const [rows, setRows] = useState<PostbackRow[] | null>(null);
  const [configured, setConfigured] = useState(0);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    getPostbacks(appId).then(
      (answer) => {
        setRows(postbackRows(answer.counts));
        setConfigured(answer.partners.length + answer.webhooks.length);
      },
      (caught: unknown) => setError(errorMessage(caught)),
    );
  }, [appId]);

  const partners = <Link href={appPath(appId, "partners")}>Partners page</Link>;
  return (
    <section class="card" aria-labelledby="postback-counts-heading">
      <h2 id="postback-counts-heading">Postbacks, last 30 days</h2>
      <ErrorText message={error} />
      {rows === null ? (
        error ? null : (
          <p class="loading">Loading…</p>
        )
      ) : rows.length === 0 ? (
        <p class="empty">
          {configured === 0 ? (
            <>No partners or webhooks yet: add one on the {partners}.</>
          ) : (
            <>No postbacks sent in the last 30 days. Each attempt is on the {partners}.</>
          )}
        </p>
      ) : (
        <>
          <TableScroll label="Postbacks, last 30 days">
            <table aria-label="Postbacks, last 30 days">
              <thead>
                <tr>
                  <th scope="col">Configuration</th>
                  <th scope="col">Partner</th>
                  <th scope="col" class="num">
                    Delivered
                  </th>
                  <th scope="col" class="num">
                    Retried
                  </th>
                  <th scope="col" class="num">
                    Failed
                  </th>
                  <th scope="col" class="num">
                    Skipped
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={`${row.partner}:${row.configId}`} data-config-id={row.configId}>
                    <th scope="row" class="mono">
                      {row.configId}
                    </th>
                    <td>{row.partner}</td>
                    <td class="num" data-testid="delivered">
                      {formatCount(row.delivered)}
                    </td>
                    <td class="num" data-testid="retried">
                      {formatCount(row.retry)}
                    </td>
                    <td class="num" data-testid="failed">
                      {formatCount(row.failed)}
                    </td>
                    <td class="num" data-testid="skipped">
                      {formatCount(row.skipped)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <p class="hint">
            Attempts by their outcome, and sends skipped (nothing sent: no consent, a required value
            missing, …); every one is on the {partners}.
          </p>
        </>
      )}
    </section>
  );
}

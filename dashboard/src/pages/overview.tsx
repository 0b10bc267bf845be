import type { ChartConfiguration, Scale } from "chart.js";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import {
  type CampaignRow,
  type DeliveryCounts,
  errorMessage,
  getOverview,
  getPostbacks,
  type Overview,
} from "../api.ts";
import { ChartFigure, ORGANIC_COLOUR, seriesColour } from "../components/chart.tsx";
import { ErrorText, Page, TableScroll } from "../components/page.tsx";
import { addDays, daysBetween, formatCount, formatUsd, isDay, today } from "../format.ts";
import { appPath, useSession } from "../session.tsx";
import { SkadnetworkSection } from "./overview-skadnetwork.tsx";

type Range = { from: string; to: string };

const PRESETS: { label: string; range: () => Range }[] = [
  { label: "Yesterday", range: () => ({ from: addDays(today(), -1), to: addDays(today(), -1) }) },
  { label: "Last 7 days", range: () => ({ from: addDays(today(), -6), to: today() }) },
  { label: "Last 30 days", range: () => ({ from: addDays(today(), -29), to: today() }) },
];

/** Installs credited to no source (attribution skipped, or not done yet). */
const UNATTRIBUTED = "none (not attributed)";
const UNATTRIBUTED_COLOUR = "#d6d3d1";
/** The series that sums the smaller ones, when a chart has too many to read. */
const OTHER_COLOUR = "#57534e";
/** Events per day: the 6 most frequent event names, then one "other". */
const TOP_EVENT_NAMES = 6;
/** Installs per day: the 7 largest media sources, then one "other" (organic, none apart). */
const TOP_MEDIA_SOURCES = 7;

const defaultRange = (): Range => ({ from: addDays(today(), -6), to: today() });

export function OverviewPage(props: { appId: string }) {
  const { appId } = props;
  const { currentAppId, currentAppOnIos } = useSession();
  const onIos = currentAppId === appId && currentAppOnIos === true;
  const [range, setRange] = useState<Range>(defaultRange);
  const [data, setData] = useState<Overview | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(0);

  const valid = isDay(range.from) && isDay(range.to) && range.from <= range.to;

  useEffect(() => {
    if (!valid) return;
    const call = ++latest.current;
    setLoading(true);
    setError(null);
    getOverview(appId, range.from, range.to).then(
      (answer) => {
        if (call !== latest.current) return;
        setData(answer);
        setLoading(false);
      },
      (caught: unknown) => {
        if (call !== latest.current) return;
        setError(errorMessage(caught));
        setLoading(false);
      },
    );
  }, [appId, range.from, range.to, valid]);

  return (
    <Page title="Overview" subtitle={appId}>
      <form class="card range" onSubmit={(event) => event.preventDefault()}>
        <fieldset>
          <legend>Date range (UTC days, both included)</legend>
          <div class="range-row">
            <label class="field">
              <span>From</span>
              <input
                type="date"
                name="from"
                required
                value={range.from}
                max={range.to || undefined}
                onChange={(event) => setRange({ ...range, from: event.currentTarget.value })}
              />
            </label>
            <label class="field">
              <span>To</span>
              <input
                type="date"
                name="to"
                required
                value={range.to}
                min={range.from || undefined}
                onChange={(event) => setRange({ ...range, to: event.currentTarget.value })}
              />
            </label>
            <div class="presets">
              {PRESETS.map((preset) => {
                const presetRange = preset.range();
                const active = presetRange.from === range.from && presetRange.to === range.to;
                return (
                  <button
                    key={preset.label}
                    type="button"
                    class="secondary"
                    aria-pressed={active}
                    onClick={() => setRange(preset.range())}
                  >
                    {preset.label}
                  </button>
                );
              })}
            </div>
          </div>
        </fieldset>
        {valid ? null : <p class="error">Choose a start date on or before the end date.</p>}
      </form>
      <div role="status" class="status">
        {loading ? "Loading…" : data ? `Showing ${data.from} to ${data.to}.` : ""}
      </div>
      <ErrorText message={error} />
      {data ? <OverviewBody data={data} busy={loading} /> : null}
      {onIos && valid ? <SkadnetworkSection appId={appId} from={range.from} to={range.to} /> : null}
      <PostbackCounts appId={appId} />
    </Page>
  );
}

function OverviewBody(props: { data: Overview; busy: boolean }) {
  const { data } = props;
  return (
    <div class="overview" aria-busy={props.busy}>
      <Totals data={data} />
      <div class="charts">
        <InstallsChart data={data} />
        <PaidOrganicChart data={data} />
        <BreakdownChart
          caption="Installs by match status"
          rows={data.match_status.map((row) => [row.status, row.installs])}
        />
        <BreakdownChart
          caption="Installs by match method"
          rows={data.match_method.map((row) => [row.method, row.installs])}
        />
        <EventsChart data={data} />
        <RevenueChart data={data} />
      </div>
      <CampaignTable campaigns={data.campaigns} />
      <DeepLinkTable rows={data.deep_link_paths} />
    </div>
  );
}

function Totals(props: { data: Overview }) {
  const { totals } = props.data;
  const cards: [label: string, testId: string, value: number, text: string][] = [
    ["Installs", "total-installs", totals.installs, formatCount(totals.installs)],
    ["Paid", "total-paid", totals.paid_installs, formatCount(totals.paid_installs)],
    ["Organic", "total-organic", totals.organic_installs, formatCount(totals.organic_installs)],
    ["Events", "total-events", totals.events, formatCount(totals.events)],
    ["Revenue USD", "total-revenue", totals.revenue_usd, formatUsd(totals.revenue_usd)],
  ];
  return (
    <div class="totals">
      {cards.map(([label, testId, value, text]) => (
        <section key={testId} class="card total" aria-label={label}>
          <h2>{label === "Paid" || label === "Organic" ? `${label} installs` : label}</h2>
          <p class="total-value" data-testid={testId} data-value={value}>
            {text}
          </p>
        </section>
      ))}
    </div>
  );
}

/** Series of per-day figures: one value per day of the range per series name. */
const seriesByDay = <R,>(
  range: { from: string; to: string },
  rows: R[],
  day: (row: R) => string,
  name: (row: R) => string,
  value: (row: R) => number,
) => {
  const days = daysBetween(range.from, range.to);
  const index = new Map(days.map((d, i) => [d, i]));
  const series = new Map<string, number[]>();
  for (const row of rows) {
    const at = index.get(day(row).slice(0, 10));
    if (at === undefined) continue;
    const key = name(row);
    let values = series.get(key);
    if (!values) {
      values = days.map(() => 0);
      series.set(key, values);
    }
    values[at] = (values[at] ?? 0) + value(row);
  }
  const total = (values: number[]) => values.reduce((sum, v) => sum + v, 0);
  const names = [...series.keys()].sort(
    (a, b) => total(series.get(b) ?? []) - total(series.get(a) ?? []),
  );
  return { days, names, series };
};

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
const topAndOther = (
  days: string[],
  names: string[],
  series: Map<string, number[]>,
  top: number,
  what: string,
): { kept: string[]; other: Series | null } => {
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

const tableOf = (
  firstColumn: string,
  built: { days: string[]; names: string[]; series: Map<string, number[]> },
) => ({
  columns: [firstColumn, ...built.names],
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

function BreakdownChart(props: { caption: string; rows: [string, number][] }) {
  const { caption, rows } = props;
  const config = useMemo<ChartConfiguration<"doughnut">>(
    () => ({
      type: "doughnut",
      data: {
        labels: rows.map(([label]) => label),
        datasets: [
          {
            data: rows.map(([, value]) => value),
            backgroundColor: rows.map(([label], i) =>
              label === "organic" ? ORGANIC_COLOUR : seriesColour(i),
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
      table={{ columns: ["Kind", "Installs"], rows }}
      empty={rows.every(([, value]) => value === 0)}
    />
  );
}

function EventsChart(props: { data: Overview }) {
  const { data } = props;
  const built = useMemo(
    () =>
      seriesByDay(
        data,
        data.events_by_day,
        (r) => r.date,
        (r) => r.event_name ?? "(no name)",
        (r) => r.events,
      ),
    [data],
  );
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
        label: name,
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
      table={tableOf("Date", built)}
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

type SortKey = "media_source" | "campaign" | "installs" | "events" | "revenue_usd" | "rpi";

const COLUMNS: { key: SortKey; label: string; numeric: boolean }[] = [
  { key: "media_source", label: "Media source", numeric: false },
  { key: "campaign", label: "Campaign", numeric: false },
  { key: "installs", label: "Installs", numeric: true },
  { key: "events", label: "Events", numeric: true },
  { key: "revenue_usd", label: "Revenue USD", numeric: true },
  { key: "rpi", label: "Revenue per install", numeric: true },
];

const revenuePerInstall = (row: CampaignRow): number | null =>
  row.revenue_per_install ?? (row.installs > 0 ? row.revenue_usd / row.installs : null);

const sortValue = (row: CampaignRow, key: SortKey): string | number => {
  switch (key) {
    case "media_source":
      return row.media_source ?? "";
    case "campaign":
      return row.campaign ?? "";
    case "rpi":
      return revenuePerInstall(row) ?? -1;
    default:
      return row[key];
  }
};

function CampaignTable(props: { campaigns: CampaignRow[] }) {
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({
    key: "installs",
    descending: true,
  });
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

  return (
    <section class="card">
      <h2 id="campaigns-heading">Campaigns</h2>
      {rows.length === 0 ? (
        <p class="empty">No installs or events in this range.</p>
      ) : (
        <TableScroll>
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
                    </th>
                  );
                })}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={`${row.media_source}\u0000${row.campaign}`}>
                  <td>{row.media_source ?? "–"}</td>
                  <td>{row.campaign ?? "–"}</td>
                  <td class="num">{formatCount(row.installs)}</td>
                  <td class="num">{formatCount(row.events)}</td>
                  <td class="num">{formatUsd(row.revenue_usd)}</td>
                  <td class="num">{formatUsd(revenuePerInstall(row))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

function DeepLinkTable(props: { rows: Overview["deep_link_paths"] }) {
  return (
    <section class="card">
      <h2 id="deep-links-heading">Top deep link paths</h2>
      {props.rows.length === 0 ? (
        <p class="empty">No installs came through a deep link in this range.</p>
      ) : (
        <TableScroll>
          <table aria-label="Deep link paths">
            <thead>
              <tr>
                <th scope="col">Deep link path</th>
                <th scope="col" class="num">
                  Installs
                </th>
              </tr>
            </thead>
            <tbody>
              {props.rows.map((row) => (
                <tr key={row.deep_link_path ?? ""}>
                  <td class="mono">{row.deep_link_path ?? "(none)"}</td>
                  <td class="num">{formatCount(row.installs)}</td>
                </tr>
              ))}
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
    };
    row.delivered += count.delivered;
    row.retry += count.retry;
    row.failed += count.failed;
    rows.set(key, row);
  }
  const total = (row: PostbackRow) => row.delivered + row.retry + row.failed;
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
          <TableScroll>
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
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <p class="hint">Attempts by their outcome; every attempt is on the {partners}.</p>
        </>
      )}
    </section>
  );
}

/**
 * The dashboard's reports at scale: one app's 90 days of 10 million events
 * (BENCH_REPORT_EVENTS, e.g. 1000000 for a quick run), written straight in the lake's Parquet
 * layout (bench/report-lake.ts), under `npm start` as its own process. Measured:
 *
 * - through the API, on a service started afresh for each report: the overview of the 90 days
 *   and the cohorts report (`group_by=country`), without filters, with a media source, a
 *   country, a platform, and the three together; each first asked (no answer cached), then
 *   asked again BENCH_REPORT_ROUNDS times (7), and the unfiltered report of other 90-day
 *   windows never asked before (the window a day earlier, two days earlier…), once each;
 * - in Chromium (Debian's, driven by playwright-core, as bench/dashboard.bench.ts does), on a
 *   service started afresh: the Overview page with its range set to the 90 days, from the
 *   navigation to its figures shown, the first load and as many again as asks above, and with
 *   a media source if the page has a filter for it; the Cohorts page too where the dashboard
 *   has one, its range and a media source in its address;
 * - the service's peak resident memory through each part;
 * - each report's query alone, as the service builds it, under DuckDB's profiler on an
 *   instance set as the service's (bench/report-profile.ts), on every core as the service's
 *   and on one: its time with no time limit, and the operators that take the most.
 *
 * A report the service does not answer (its route's time limit passed) is counted as failed,
 * its query left running in the service: the next ask waits until the service is idle again,
 * so that each is measured alone; after a failed first ask or load, only FAILED_ROUNDS more.
 *
 * Targets: the first load under 3 s, the median of the loads after it under 1 s. Prints the
 * figures and writes them to docs/benchmarks.md; asserts nothing.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { chromium, type Page } from "playwright-core";
import { dataPaths } from "../src/embedded/data-dir.ts";
import { routeOf } from "../src/http/routes.ts";
import { addDays } from "../src/reports/days.ts";
import {
  cli,
  createAppWithCli,
  peakMemory,
  type Service,
  startService,
  stopService,
} from "../test/support/service.ts";
import { signedInPage } from "./dashboard-page.ts";
import { cpuSeconds, int, mb, measuredOn, verdict, writeDocsSection } from "./figures.ts";
import { REPORT_APP, REPORT_DAYS, type ReportLake, writeReportLake } from "./report-lake.ts";
import { profileReport } from "./report-profile.ts";
import {
  type ReportAskFigures,
  type ReportPageFigures,
  type ReportTry,
  reportsScaleSection,
  typicalMs,
} from "./sections.ts";
import { sampleMemory } from "./window-lake.ts";

const EVENTS = Number(process.env.BENCH_REPORT_EVENTS ?? 10_000_000);
/** Asks (and page loads) after the first of each. */
const ROUNDS = Number(process.env.BENCH_REPORT_ROUNDS ?? 7);
/** Asks (and loads) after a first that failed: each fails alike, and takes the time limit. */
const FAILED_ROUNDS = 2;
/** Other 90-day windows asked once each, uncached: the window 1, 2… days earlier. */
const OTHER_WINDOWS = 3;
const FIRST_TARGET_MS = 3_000;
const MEDIAN_TARGET_MS = 1_000;
const CHROMIUM = process.env.ATTRIBUTION_CHROMIUM ?? "/usr/bin/chromium";
const EMAIL = "bench@example.com";
const PASSWORD = "bench-password-1";
/** How long a page may take to show its figures or its error before the bench gives up. */
const PAGE_TIMEOUT_MS = 300_000;
const SERVICE_ENV = { ATTRIBUTION_FX_FEED_URL: "off" };
/** Idle: under this many CPU seconds a second, for a second. */
const IDLE_CPU = 0.1;
const SETTLE_LIMIT_MS = 300_000;
/** The time zone the queries are profiled in besides UTC. */
const ZONE = "America/Los_Angeles";

type Report = "overview" | "cohorts";
type Filters = Readonly<Record<string, string>>;

const filterVariants = (lake: ReportLake): { label: string; filters: Filters }[] => {
  const { media_source, country, platform } = lake.filters;
  return [
    { label: "no filter", filters: {} },
    { label: `media source ${media_source}`, filters: { media_source } },
    { label: `country ${country}`, filters: { country } },
    { label: `platform ${platform}`, filters: { platform } },
    { label: "all three", filters: { media_source, country, platform } },
  ];
};

/** Waits until the service is idle (a query a failed ask left running ended); ms waited. */
const settle = async (service: Service): Promise<number> => {
  const started = performance.now();
  let before = await cpuSeconds(service.child.pid);
  while (performance.now() - started < SETTLE_LIMIT_MS) {
    await sleep(1_000);
    const now = await cpuSeconds(service.child.pid);
    if (now - before < IDLE_CPU) break;
    before = now;
  }
  return performance.now() - started;
};

/** One report asked once: its time to the whole answer, its status, the installs it counts. */
const ask = async (
  service: Service,
  key: string,
  report: Report,
  params: Record<string, string>,
): Promise<ReportTry & { installs: number | null }> => {
  const query = new URLSearchParams({ app_id: REPORT_APP, ...params });
  const started = performance.now();
  const response = await fetch(`${service.url}/v1/reports/${report}?${query}`, {
    headers: { authorization: key },
  }).catch(() => undefined);
  const body = (await response?.text().catch(() => "")) ?? "";
  const ms = performance.now() - started;
  if (!response?.ok) return { ms, ok: false, status: response?.status ?? 0, installs: null };
  const answer = JSON.parse(body) as { totals?: { installs?: number } };
  return { ms, ok: true, installs: answer.totals?.installs ?? 0 };
};

const tryText = (t: ReportTry) =>
  t.ok ? `${int(t.ms)} ms` : `${int(t.ms)} ms FAILED (${t.status ?? "error shown"})`;

/** The service's highest resident memory: sampled, and the kernel's own high-water mark. */
const withMemory = async <T>(
  dataDir: string,
  run: (service: Service) => Promise<T>,
): Promise<{ result: T; peakBytes: number }> => {
  const service = await startService(dataDir, SERVICE_ENV);
  const memory = sampleMemory(() => service.child.pid);
  try {
    const result = await run(service);
    const hwm = await peakMemory(service.child.pid).catch(() => 0);
    return { result, peakBytes: Math.max(memory.stop(), hwm) };
  } finally {
    memory.stop();
    await stopService(service.child);
  }
};

/**
 * Tries one thing again and again: the first, then ROUNDS more (FAILED_ROUNDS after a failed
 * first), the service left to go idle after each failure; and how long it stayed busy after
 * the first failure began.
 */
const repeated = async (service: Service, once: () => Promise<ReportTry>) => {
  const first = await once();
  let busyAfterFailureMs: number | undefined;
  if (!first.ok) busyAfterFailureMs = first.ms + (await settle(service));
  const after: ReportTry[] = [];
  for (let round = 0; round < (first.ok ? ROUNDS : FAILED_ROUNDS); round++) {
    const next = await once();
    after.push(next);
    if (!next.ok) await settle(service);
  }
  return { first, after, busyAfterFailureMs };
};

const apiReport = async (dataDir: string, key: string, lake: ReportLake, report: Report) => {
  const extra: Record<string, string> = report === "cohorts" ? { group_by: "country" } : {};
  console.log(
    `\n${report}${report === "cohorts" ? " (group_by=country)" : ""}, a service started afresh`,
  );
  return withMemory(dataDir, async (service) => {
    const asks: ReportAskFigures[] = [];
    for (const { label, filters } of filterVariants(lake)) {
      const params = { from: lake.from, to: lake.to, ...extra, ...filters };
      let installs: number | null = null;
      const tries = await repeated(service, async () => {
        const answer = await ask(service, key, report, params);
        installs ??= answer.installs;
        return answer;
      });
      const row: ReportAskFigures = { report, filter: label, installs, ...tries };
      const typical = typicalMs(row.after);
      console.log(
        `  ${label.padEnd(22)} ${(installs === null ? "-" : int(installs)).padStart(9)} installs  first ${tryText(row.first)}  then median ${typical === null ? "FAILED" : `${int(typical)} ms`} of ${row.after.length}${row.busyAfterFailureMs ? `  (service busy ${int(row.busyAfterFailureMs)} ms from the ask)` : ""}`,
      );
      asks.push(row);
    }
    const others: ReportTry[] = [];
    for (let shift = 1; shift <= OTHER_WINDOWS; shift++) {
      const from = addDays(lake.from, -shift);
      const to = addDays(lake.to, -shift);
      const answer = await ask(service, key, report, { from, to, ...extra });
      others.push(answer);
      if (!answer.ok) await settle(service);
    }
    console.log(`  other 90-day windows, each asked once: ${others.map(tryText).join(", ")}`);
    return { asks, otherWindows: others };
  });
};

const printPage = (row: ReportPageFigures) => {
  const typical = typicalMs(row.after);
  const range = row.fromRange
    ? `  (from the range set: first ${int(row.fromRange.first)} ms, then median ${row.fromRange.median === null ? "-" : `${int(row.fromRange.median)} ms`})`
    : "";
  console.log(
    `  ${`${row.page}, ${row.filter}`.padEnd(34)} first ${tryText(row.first)}  then median ${typical === null ? "FAILED" : `${int(typical)} ms`} of ${row.after.length}${range}`,
  );
};

/**
 * Waits for the page's figures (`shown`) or its error, whichever comes: whether they came. The
 * page shows a refused or failed report's reason in its alert.
 */
const figuresOrError = async (page: Page, shown: ReturnType<Page["locator"]>) => {
  const error = page.locator("div.error[role=alert]").filter({ hasText: /\S/ });
  await shown.or(error).first().waitFor({ timeout: PAGE_TIMEOUT_MS });
  return (await error.count()) === 0;
};

/** The statuses of the report asks a page makes, from `start` on: how many, how many failed. */
const reportAsks = (page: Page) => {
  let statuses: number[] = [];
  page.on("response", (response) => {
    if (response.url().includes("/v1/reports/")) statuses.push(response.status());
  });
  return {
    start: () => {
      statuses = [];
    },
    counted: () => ({
      total: statuses.length,
      failed: statuses.filter((status) => status >= 400).length,
      statuses: [...new Set(statuses.filter((status) => status >= 400))].sort(),
    }),
  };
};

/**
 * How the Overview page takes its choices: from its address (`#/apps/a/overview?from=…&to=…
 * &media_source=…`), or only from its fields; and whether it has a media source filter. Found
 * on a one-day range, so that no answer of the 90 days is cached before their first load.
 */
const overviewChoices = async (page: Page, service: Service, lake: ReportLake) => {
  const media = lake.filters.media_source;
  const query = new URLSearchParams({ from: lake.to, to: lake.to, media_source: media });
  await page.goto(`${service.url}/#/apps/${REPORT_APP}/overview?${query}`);
  const from = page.locator('input[name="from"]');
  const inAddress = await from
    .waitFor({ timeout: 10_000 })
    .then(async () => (await from.inputValue()) === lake.to)
    .catch(() => false);
  const filter = page.locator('select[name="media_source"]');
  if (!inAddress) await page.goto(`${service.url}/#/apps/${REPORT_APP}/overview`);
  await from.waitFor({ timeout: PAGE_TIMEOUT_MS });
  const hasFilter = (await filter.count()) > 0;
  return { inAddress, hasFilter };
};

/**
 * The Overview page of the 90 days, from the navigation to their figures shown, without a
 * filter and, when the page has one, with a media source. The choices in the page's address
 * when it takes them there; else the page opens on its own range (the last 7 days, asked), the
 * 90 days are set in its date fields and the media source chosen, and the time from the range
 * set on is kept too.
 */
const overviewLoads = async (
  page: Page,
  service: Service,
  lake: ReportLake,
  asks: ReturnType<typeof reportAsks>,
) => {
  const { inAddress, hasFilter } = await overviewChoices(page, service, lake);
  const media = lake.filters.media_source;
  const load = async (filtered: boolean) => {
    const query = new URLSearchParams({ from: lake.from, to: lake.to });
    if (filtered) query.set("media_source", media);
    await page.goto("about:blank");
    const started = performance.now();
    await page.goto(`${service.url}/#/apps/${REPORT_APP}/overview${inAddress ? `?${query}` : ""}`);
    let rangeSet: number | undefined;
    if (!inAddress) {
      await page.locator('input[name="from"]').fill(lake.from);
      await page.locator('input[name="to"]').fill(lake.to);
      rangeSet = performance.now();
      if (filtered) await page.locator('select[name="media_source"]').selectOption(media);
    }
    const showing = filtered
      ? page.getByText(new RegExp(`^Showing ${lake.from} to ${lake.to}: .*${media}.*\\.$`))
      : page.getByText(`Showing ${lake.from} to ${lake.to}.`, { exact: true });
    let ok = await figuresOrError(page, showing);
    if (ok) {
      await page
        .getByRole("table", { name: "Campaigns" })
        .locator("tbody tr")
        .first()
        .waitFor({ timeout: PAGE_TIMEOUT_MS })
        .catch(() => {
          ok = false;
        });
    }
    const done = performance.now();
    return {
      ms: done - started,
      ok,
      fromRange: rangeSet === undefined ? undefined : done - rangeSet,
    };
  };
  const rows: ReportPageFigures[] = [];
  for (const filtered of hasFilter ? [false, true] : [false]) {
    const fromRanges: number[] = [];
    asks.start();
    const measured = await repeated(service, async () => {
      const loaded = await load(filtered);
      if (loaded.fromRange !== undefined) {
        fromRanges.push(loaded.ok ? loaded.fromRange : Number.POSITIVE_INFINITY);
      }
      return { ms: loaded.ms, ok: loaded.ok };
    });
    const [firstFromRange, ...laterFromRanges] = fromRanges;
    const row: ReportPageFigures = {
      page: "overview",
      filter: filtered ? `media source ${media}` : "no filter",
      ...measured,
      reportAsks: asks.counted(),
      ...(firstFromRange === undefined
        ? {}
        : {
            fromRange: {
              first: firstFromRange,
              median: typicalMs(laterFromRanges.map((ms) => ({ ms, ok: Number.isFinite(ms) }))),
            },
          }),
    };
    printPage(row);
    rows.push(row);
  }
  return { rows, hasFilters: hasFilter, inAddress };
};

/**
 * The Cohorts page, where the dashboard has one: its choices (the 90 days, grouped by country,
 * a media source) in its address, from the navigation to its figures shown.
 */
const cohortsLoads = async (page: Page, service: Service, lake: ReportLake) => {
  const query = new URLSearchParams({
    from: lake.from,
    to: lake.to,
    group_by: "country",
    media_source: lake.filters.media_source,
  });
  const showing = page.getByText(new RegExp(`^Showing ${lake.from} to ${lake.to}: .*\\.$`));
  const measured = await repeated(service, async () => {
    await page.goto("about:blank");
    const started = performance.now();
    await page.goto(`${service.url}/#/apps/${REPORT_APP}/cohorts?${query}`);
    const ok = await figuresOrError(page, showing);
    return { ms: performance.now() - started, ok };
  });
  const row = { page: "cohorts", filter: `media source ${lake.filters.media_source}`, ...measured };
  printPage(row);
  return row;
};

const browserPages = async (dataDir: string, lake: ReportLake) => {
  console.log("\nthe dashboard in Chromium, a service started afresh");
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  try {
    return await withMemory(dataDir, async (service) => {
      const page = await signedInPage(browser, service.url, EMAIL, PASSWORD);
      const asks = reportAsks(page);
      const overview = await overviewLoads(page, service, lake, asks);
      const overviewRows = overview.rows;
      const hasCohorts =
        (await page.getByRole("link", { name: "Cohorts", exact: true }).count()) > 0;
      asks.start();
      const cohorts = hasCohorts
        ? [{ ...(await cohortsLoads(page, service, lake)), reportAsks: asks.counted() }]
        : [];
      for (const { page: name, filter, reportAsks: made } of [...overviewRows, ...cohorts]) {
        if (!made) continue;
        console.log(
          `  ${name}, ${filter}: the page asked ${made.total} reports, ${made.failed} failed${made.statuses.length > 0 ? ` (${made.statuses.join(", ")})` : ""}`,
        );
      }
      return {
        pages: [...overviewRows, ...cohorts],
        overviewFilters: overview.hasFilters,
        overviewInAddress: overview.inAddress,
      };
    });
  } finally {
    await browser.close();
  }
};

const main = async () => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const dataDir = await mkdtemp(join(tmpdir(), "attribution-reports-"));
  try {
    const paths = dataPaths(dataDir);
    await mkdir(paths.lake, { recursive: true });
    console.log(`Reports at scale: ${int(EVENTS)} events over ${REPORT_DAYS} days, one app`);
    const lake = await writeReportLake(paths.lake, EVENTS);
    console.log(
      `${int(lake.events)} events (${int(lake.installs)} installs), ${int(lake.attributions)} attributions, ${int(lake.touches)} touches, ${int(lake.sessions)} sessions, ${lake.from} to ${lake.to}, written in ${lake.seconds.toFixed(1)} s (${mb(lake.bytes)} of Parquet)`,
    );
    const { server } = await createAppWithCli(dataDir, REPORT_APP, "Report Bench");
    await cli(dataDir, "users", "add", EMAIL, "--password", PASSWORD, "--admin");

    const overview = await apiReport(dataDir, server, lake, "overview");
    const cohorts = await apiReport(dataDir, server, lake, "cohorts");
    const browser = await browserPages(dataDir, lake);

    console.log("\neach report's query alone, as the service runs it, profiled");
    const window = { from: lake.from, to: lake.to };
    const profiles = [];
    for (const report of ["overview", "cohorts"] as const) {
      // Every core, as the service runs it; one, what a core adds.
      for (const threads of [availableParallelism(), 1]) {
        const topOperators = threads === 1 ? 3 : 6;
        profiles.push(
          await profileReport(dataDir, REPORT_APP, report, window, { threads, topOperators }),
        );
      }
    }
    // The same in an app's time zone: each timestamp moved to it, a day more read either side.
    for (const report of ["overview", "cohorts"] as const) {
      profiles.push(
        await profileReport(dataDir, REPORT_APP, report, window, {
          threads: availableParallelism(),
          topOperators: 3,
          timeZone: ZONE,
        }),
      );
    }
    for (const p of profiles) {
      console.log(
        `  ${p.report}, ${p.threads} thread${p.threads === 1 ? "" : "s"}: ${p.seconds.toFixed(1)} s, spilled ${mb(p.spillBytes)}, buffers ${mb(p.bufferBytes)}; ${p.top.map((o) => `${o.what} ${o.seconds.toFixed(1)} s`).join("; ")}`,
      );
    }

    const asks = [...overview.result.asks, ...cohorts.result.asks];
    const figures = {
      lake,
      rounds: ROUNDS,
      failedRounds: FAILED_ROUNDS,
      timeLimitSeconds: routeOf("report-overview").timeoutSeconds,
      asks,
      otherWindows: [
        { report: "overview", tries: overview.result.otherWindows },
        { report: "cohorts", tries: cohorts.result.otherWindows },
      ],
      pages: browser.result.pages,
      overviewFilters: browser.result.overviewFilters,
      overviewInAddress: browser.result.overviewInAddress,
      peaks: [
        { part: "overview through the API", bytes: overview.peakBytes },
        { part: "cohorts through the API", bytes: cohorts.peakBytes },
        { part: "the dashboard's pages", bytes: browser.peakBytes },
      ],
      profiles,
      targets: { firstMs: FIRST_TARGET_MS, medianMs: MEDIAN_TARGET_MS },
      measured: measuredOn(),
    };

    console.log("\nTargets: first load under 3 s, median of the loads after it under 1 s");
    const judged = [
      ...asks.map((a) => ({ what: `API ${a.report}, ${a.filter}`, ...a })),
      ...figures.pages.map((p) => ({ what: `page ${p.page}, ${p.filter}`, ...p })),
    ];
    for (const row of judged) {
      const typical = typicalMs(row.after);
      console.log(
        `  ${row.what.padEnd(40)} first ${tryText(row.first)}: ${verdict(row.first.ok && row.first.ms < FIRST_TARGET_MS)}; median after it ${typical === null ? "FAILED" : `${int(typical)} ms`}: ${verdict(typical !== null && typical < MEDIAN_TARGET_MS)}`,
      );
    }
    if (!browser.result.overviewFilters) {
      console.log("  (the Overview page has no filter controls: measured without filters)");
    }
    const peak = Math.max(overview.peakBytes, cohorts.peakBytes, browser.peakBytes);
    console.log(`  service peak ${mb(peak)}`);
    await writeDocsSection("reports-scale", reportsScaleSection(figures));
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
};

await main();

/**
 * Each benchmark's section of docs/benchmarks.md, as markdown built from its figures alone:
 * no clock, no machine, no file, so a test can hold each builder to its shape. A bench passes
 * its figures and `measuredOn()` and writes the result with `writeDocsSection`.
 */

/** A markdown table; a column whose header starts with `>` is aligned right. */
export const markdownTable = (
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string => {
  const right = headers.map((h) => h.startsWith(">"));
  const names = headers.map((h) => (h.startsWith(">") ? h.slice(1) : h));
  const rule = names.map((name, i) => {
    const dashes = "-".repeat(Math.max(3, name.length));
    return right[i] ? `${dashes.slice(1)}:` : dashes;
  });
  const line = (cells: readonly string[]) =>
    `| ${names.map((_, i) => (cells[i] ?? "").replaceAll("|", "\\|")).join(" | ")} |`;
  return [line(names), `| ${rule.join(" | ")} |`, ...rows.map(line)].join("\n");
};

const section = (title: string, intro: string, body: readonly string[], measured: string) =>
  [`## ${title}`, "", intro.trim(), "", ...body, "", measured].join("\n");

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const msText = (value: number, digits = 1) => `${value.toFixed(digits)} ms`;
/** A difference of milliseconds with its sign, as a step adds or takes away. */
export const signedMs = (value: number) => `${value < 0 ? "−" : "+"}${msText(Math.abs(value))}`;
const count = (value: number) => Math.round(value).toLocaleString("en-US");
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const pct = (value: number | null) => (value === null ? "-" : `${(100 * value).toFixed(1)}%`);
const met = (ok: boolean) => (ok ? "met" : "NOT MET");

// Export: one 10,000-row page in each format.

export interface ExportPageFigures {
  readonly format: string;
  readonly firstByteMs: number;
  readonly lastByteMs: number;
  readonly bytes: number;
  /** DuckDB's own COPY of the page's rows: its format and median time. */
  readonly reference: { readonly format: string; readonly ms: number };
  /** The most the last byte may take, as a multiple of the reference. */
  readonly targetRatio: number;
}

export interface ExportLakeFigures {
  readonly label: string;
  /** The first request of an export, which materialises the snapshot (median). */
  readonly materialiseMs: number;
  readonly pages: readonly ExportPageFigures[];
}

export interface ExportFigures {
  readonly lakes: readonly ExportLakeFigures[];
  /** With 10x history outside the window against without it: the snapshot's, each format's. */
  readonly historyCost: { readonly materialise: number; readonly pages: Record<string, number> };
  readonly historyTarget: number;
  readonly peakBytes: number;
  readonly peakTargetBytes: number;
  /** Rounds of requests, each format's page and the references once a round. */
  readonly rounds: number;
  readonly measured: string;
}

export const exportSection = (f: ExportFigures): string => {
  const body: string[] = [];
  for (const lake of f.lakes) {
    body.push(
      `**${lake.label}.** First request of an export (materialises the snapshot): ${msText(lake.materialiseMs, 0)}.`,
      "",
      markdownTable(
        [
          "format",
          ">first byte",
          ">last byte",
          ">bytes",
          "reference (DuckDB `COPY`)",
          ">ratio",
          "target",
        ],
        lake.pages.map((p) => {
          const ratio = p.lastByteMs / p.reference.ms;
          return [
            p.format,
            msText(p.firstByteMs, 0),
            msText(p.lastByteMs, 0),
            megabytes(p.bytes),
            `${p.reference.format} ${msText(p.reference.ms, 0)}`,
            `${fixed(ratio, 2)}x`,
            `${p.targetRatio}x: ${met(ratio <= p.targetRatio)}`,
          ];
        }),
      ),
      "",
    );
  }
  const history = [
    ["snapshot", f.historyCost.materialise] as const,
    ...Object.entries(f.historyCost.pages),
  ];
  body.push(
    `**10x history outside the window**, cost with it against without (target at most ${f.historyTarget}x):`,
    "",
    markdownTable(
      ["", ">with / without", "target"],
      history.map(([name, ratio]) => [name, `${fixed(ratio, 2)}x`, met(ratio <= f.historyTarget)]),
    ),
    "",
    `Peak memory of the service process: ${megabytes(f.peakBytes)} (target under ${megabytes(f.peakTargetBytes)}: ${met(f.peakBytes < f.peakTargetBytes)}).`,
  );
  return section(
    "Export pages",
    `A 10,000-row page in each format through the embedded gateway (\`bench/export.bench.ts\`),
medians of ${f.rounds} rounds of requests naming the export's snapshot, as a client paging does, read
over \`node:http\`, against DuckDB's own \`COPY\` of the same rows from a typed Parquet file
(the reference), timed in the same rounds.`,
    body,
    f.measured,
  );
};

// Ingestion and clicks: servers taking turns over rounds.

export interface ServerRun {
  readonly label: string;
  /** Events a second for ingestion, clicks a second for the link host. */
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Server CPU per request (a batch, a tap). */
  readonly cpuMs: number;
  readonly failed: number;
}

/** A server's figures as a table's cells, after the cells that say which run it is. */
const runCells = (run: ServerRun) => [
  run.label,
  count(run.perSecond),
  msText(run.p50Ms),
  msText(run.p99Ms),
  msText(run.cpuMs, 2),
  String(run.failed),
];

const roundsTable = (unit: string, per: string, rounds: readonly (readonly ServerRun[])[]) =>
  markdownTable(
    ["round", "server", `>${unit}`, ">p50", ">p99", `>server CPU per ${per}`, ">failed"],
    rounds.flatMap((runs, i) => runs.map((run) => [String(i + 1), ...runCells(run)])),
  );

export interface BundleFigures {
  readonly name: string;
  readonly bytes: number;
  /** Median import time in a fresh process; null when the bundle failed to import. */
  readonly importMs: number | null;
}

export interface IngestFigures {
  readonly setup: string;
  /** Each round: the service, the reference, the floor. */
  readonly rounds: readonly (readonly ServerRun[])[];
  readonly ratio: number;
  readonly targetRatio: number;
  readonly floorRatio: number;
  readonly p99Ms: number;
  readonly targetP99Ms: number;
  readonly servicePeakBytes: number;
  readonly lake: string;
  readonly bundles: readonly BundleFigures[];
  readonly targetBundleBytes: number;
  readonly measured: string;
}

export const ingestSection = (f: IngestFigures): string =>
  section(
    "Ingestion",
    `${f.setup} (\`bench/ingest.bench.ts\`). The reference is a bare Node server that parses the
body and answers 202; the floor is that reference with the service's checks and lake rows
added and nothing stored (\`bench/checks-server.ts\`), a bound on what the service can reach
on the same machine.`,
    [
      roundsTable("events/s", "batch", f.rounds),
      "",
      `- service / reference throughput, median of the rounds: ${fixed(f.ratio, 2)} (target at least ${f.targetRatio}: ${met(f.ratio >= f.targetRatio)})`,
      `- floor / reference throughput, median of the rounds: ${fixed(f.floorRatio, 2)}`,
      `- service p99, median of the rounds: ${msText(f.p99Ms)} (target under ${f.targetP99Ms} ms: ${met(f.p99Ms < f.targetP99Ms)})`,
      `- peak memory of the service: ${megabytes(f.servicePeakBytes)}`,
      `- ${f.lake}`,
      "",
      "Lambda bundles, as `lib/service-function.ts` bundles them, and their import in a fresh process:",
      "",
      markdownTable(
        ["function", ">bundle", ">import", `under ${megabytes(f.targetBundleBytes)}`],
        f.bundles.map((b) => [
          b.name,
          `${Math.round(b.bytes / 1024)} KB`,
          b.importMs === null ? "FAILED" : msText(b.importMs, 0),
          met(b.bytes < f.targetBundleBytes),
        ]),
      ),
    ],
    f.measured,
  );

/** One offered rate: the link host and the references, each under the same open-loop load. */
export interface ClickRate {
  /** Taps a second offered. */
  readonly offered: number;
  readonly linkHost: ServerRun;
  readonly bare: ServerRun;
  /** Absent where the machine has no PostgreSQL server. */
  readonly reference?: ServerRun;
  readonly referenceStored?: { readonly answered: number; readonly stored: number };
  /**
   * The link host's recorder alone in a plain server (bench/recorder-server.ts), its clicks
   * synced to a click log, and kept nowhere: where the link host's p99 goes.
   */
  readonly recorder?: { readonly logged: ServerRun; readonly unkept: ServerRun };
}

/** A rate's servers in the order their rows are shown: the link host, the references, the recorder's. */
export const runsOf = (rate: ClickRate): ServerRun[] =>
  [rate.linkHost, rate.bare, rate.reference, rate.recorder?.logged, rate.recorder?.unkept].filter(
    (run): run is ServerRun => run !== undefined,
  );

/** The link host's p99 in steps: its recorder alone, with the click log's sync, in the service. */
export const p99Split = (
  rate: ClickRate,
): { unkept: number; logged: number; service: number } | undefined =>
  rate.recorder && {
    unkept: rate.recorder.unkept.p99Ms,
    logged: rate.recorder.logged.p99Ms,
    service: rate.linkHost.p99Ms,
  };

export interface ClickFigures {
  readonly setup: string;
  readonly rates: readonly ClickRate[];
  /** The most server CPU per click of the link host, as a multiple of the bare 302's. */
  readonly targetCpuRatio: number;
  /**
   * The targets proposed beside the issue's: the most server CPU per click as a multiple of
   * the PostgreSQL reference's, and how far past the reference's p99 the link host's may be.
   */
  readonly proposed: { readonly referenceCpuRatio: number; readonly p99AllowanceMs: number };
  /** Answered taps, distinct clicks in the lake, and answered taps whose click is not there. */
  readonly serviceStored: {
    readonly answered: number;
    readonly stored: number;
    readonly missing: number;
  };
  readonly servicePeakBytes: number;
  /** One appended line made durable on the disk under the service's data, one at a time. */
  readonly diskSync: { readonly p50Ms: number; readonly p99Ms: number };
  readonly measured: string;
}

export const clicksSection = (f: ClickFigures): string => {
  const { referenceCpuRatio, p99AllowanceMs } = f.proposed;
  const verdicts = f.rates.map((rate) => {
    const ratio = rate.linkHost.cpuMs / rate.bare.cpuMs;
    const { reference } = rate;
    const p99 = reference
      ? `p99 ${msText(rate.linkHost.p99Ms)} against the PostgreSQL reference's ${msText(reference.p99Ms)} (target at most it: ${met(rate.linkHost.p99Ms <= reference.p99Ms)}; proposed, at most it + ${p99AllowanceMs} ms: ${met(rate.linkHost.p99Ms <= reference.p99Ms + p99AllowanceMs)})`
      : "no PostgreSQL reference on this machine";
    const toReference = reference
      ? `, ${fixed(rate.linkHost.cpuMs / reference.cpuMs, 2)}x the PostgreSQL reference's (proposed, at most ${referenceCpuRatio}x: ${met(rate.linkHost.cpuMs <= referenceCpuRatio * reference.cpuMs)})`
      : "";
    return `- at ${count(rate.offered)} taps a second: ${p99}; server CPU per click ${fixed(ratio, 2)}x the bare 302's (target at most ${f.targetCpuRatio}x: ${met(ratio <= f.targetCpuRatio)})${toReference}`;
  });
  const stored = f.rates
    .filter((rate) => rate.referenceStored)
    .map(
      (rate) =>
        `${count(rate.referenceStored?.stored ?? 0)} of ${count(rate.referenceStored?.answered ?? 0)} at ${count(rate.offered)} a second`,
    );
  return section(
    "Clicks",
    `${f.setup} (\`bench/clicks.bench.ts\`). The references: a bare Node server answering the
same 302 (\`bench/bare-redirect-server.mjs\`), and what the leading open-source link servers do,
answering from memory and then inserting the click into PostgreSQL, one row a click
(\`bench/pg-redirect-server.mjs\`, Debian's server with its defaults; its CPU counts PostgreSQL's).
The issue's targets are stated as it states them; beside them, the ones proposed in their place
(the reference itself takes several times the bare 302's CPU per click, and answers before its
row is written, where the link host answers once its click is synced to disk): CPU per click at
most ${referenceCpuRatio} times the reference's, p99 at most the reference's plus ${p99AllowanceMs} ms.
Beside them, where the link host's p99 goes: its own recorder (\`createClickRecorder\`) in a plain
Node server with the link in memory (\`bench/recorder-server.ts\`), each click synced to a click
log before the answer as the link host's is, then kept nowhere.`,
    [
      markdownTable(
        ["offered", "server", ">clicks/s", ">p50", ">p99", ">server CPU per click", ">failed"],
        f.rates.flatMap((rate) =>
          runsOf(rate).map((run) => [`${count(rate.offered)}/s`, ...runCells(run)]),
        ),
      ),
      "",
      ...verdicts,
      `- every answered tap stored: the link host's lake holds ${count(f.serviceStored.stored)} distinct clicks of ${count(f.serviceStored.answered)} answered, ${count(f.serviceStored.missing)} of the answered missing (${met(f.serviceStored.missing === 0)})${stored.length > 0 ? `; the PostgreSQL reference stored ${stored.join(", ")}` : ""}`,
      ...f.rates.flatMap((rate) => {
        const split = p99Split(rate);
        return split
          ? [
              `- where the p99 goes at ${count(rate.offered)} taps a second: ${msText(split.unkept)} for the recorder alone, ${msText(split.logged)} with its click synced before the answer (the sync: ${signedMs(split.logged - split.unkept)}), ${msText(split.service)} in the service (the rest of the service in the same process: ${signedMs(split.service - split.logged)})`,
            ]
          : [];
      }),
      `- the disk under the service's data syncs one appended click line in p50 ${msText(f.diskSync.p50Ms, 2)}, p99 ${msText(f.diskSync.p99Ms, 2)}: every answer of the link host waits for one such sync (shared by the taps of its group), and no answer of the PostgreSQL reference does`,
      `- peak memory of the service: ${megabytes(f.servicePeakBytes)}`,
    ],
    f.measured,
  );
};

// Attribution: accuracy per seed, the matcher's cost, install to resolved.

export interface AccuracyRow {
  readonly method: string;
  readonly platform: string;
  readonly attributed: number;
  /** Null when nothing was attributed or nothing was caused. */
  readonly precision: number | null;
  readonly recall: number | null;
  /** The target and whether it was met, or that there is none. */
  readonly target: string;
}

/** Probabilistic matches of one level and platform: how many, their precision, how many wrong. */
export interface CrowdFigures {
  readonly attributed: number;
  readonly precision: number | null;
  readonly wrong: number;
}

/** One level and platform matched with the crowd at an address told two ways. */
export interface CrowdRow {
  readonly level: string;
  readonly platform: string;
  /** By the address's touches alone. */
  readonly touchesOnly: CrowdFigures;
  /** By its touches and the installs that sent from it, as the matcher tells it. */
  readonly withInstalls: CrowdFigures;
}

export interface AttributionFigures {
  readonly seeds: readonly {
    readonly seed: number;
    readonly installs: number;
    readonly touches: number;
    /** Requests of the app's users (installs and sessions) from their addresses. */
    readonly sightings: number;
    readonly rows: readonly AccuracyRow[];
    /** Per platform, the share of organic installs found organic. */
    readonly organic: Readonly<Record<string, number | null>>;
    readonly crowd: readonly CrowdRow[];
  }[];
  readonly allTargetsMet: boolean;
  readonly cost: readonly { readonly touches: number; readonly perInstallMs: number }[];
  readonly costTarget: number;
  readonly burst: {
    readonly installs: number;
    readonly clients: number;
    readonly acceptedPerSecond: number;
    readonly resolved: number;
    readonly fromAck: { readonly p50: number; readonly p99: number; readonly max: number };
    readonly fromRequest: { readonly p50: number; readonly p99: number; readonly max: number };
    readonly targetP99Ms: number;
  };
  readonly measured: string;
}

export const attributionSection = (f: AttributionFigures): string => {
  const first = f.cost[0]?.perInstallMs ?? 1;
  const last = f.cost.at(-1)?.perInstallMs ?? 1;
  const { burst } = f;
  return section(
    "Attribution",
    `Accuracy on seeded worlds with ground truth (\`bench/attribution-world.ts\`), matched by the
real matcher against the real touch store with probabilistic matching on for iOS (where it
takes only the installs whose user allowed tracking); the matcher's cost as the store's
touches grow; and install to resolved attribution through the service
(\`bench/attribution.bench.ts\`). The recall of a probabilistic level is the share of the
installs a tap with no id caused that were found at that level; a precision target short of
100% is judged on at least 30 attributions of its level. Each world holds
households of alike phones behind one address, where a housemate may install organically
beside another's tap, and its app's users, who send from home, from their carrier's NAT, from
offices and cafés whether or not they tapped anything; the store counts the installs that sent
from each address, and each click is credited to one install (the installs are matched in the
order the service received them, each claiming the click it wins). The second table of a seed
matches the same installs, claiming afresh, with the crowd at an address told by its touches
alone, as the matcher told it before.`,
    [
      ...f.seeds.flatMap((s) => [
        `**Seed ${s.seed}**: ${count(s.installs)} installs, ${count(s.touches)} touches, ${count(s.sightings)} requests of the app's users from their addresses; organic installs found organic: ${Object.entries(
          s.organic,
        )
          .map(([os, share]) => `${os} ${pct(share)}`)
          .join(", ")}.`,
        "",
        markdownTable(
          ["method", "platform", ">attributed", ">precision", ">recall", "target"],
          s.rows.map((r) => [
            r.method,
            r.platform,
            count(r.attributed),
            pct(r.precision),
            pct(r.recall),
            r.target,
          ]),
        ),
        "",
        markdownTable(
          ["crowd told by", "level", "platform", ">attributed", ">precision", ">wrong"],
          s.crowd.flatMap((r) =>
            (
              [
                ["touches only", r.touchesOnly],
                ["touches and installs", r.withInstalls],
              ] as const
            ).map(([by, figures]) => [
              by,
              r.level,
              r.platform,
              count(figures.attributed),
              pct(figures.precision),
              count(figures.wrong),
            ]),
          ),
        ),
        "",
      ]),
      `Every accuracy target on every seed: ${met(f.allTargetsMet)}.`,
      "",
      "**Cost**, time per install (the least of five passes' medians):",
      "",
      markdownTable(
        [">touches in the store", ">per install"],
        f.cost.map((c) => [count(c.touches), msText(c.perInstallMs, 2)]),
      ),
      "",
      `100x the touches costs ${fixed(last / first, 2)}x per install (target at most ${f.costTarget}x: ${met(last / first <= f.costTarget)}).`,
      "",
      `**Install to resolved**: a burst of ${count(burst.installs)} installs from ${burst.clients} clients, ${count(burst.acceptedPerSecond)} a second accepted, ${count(burst.resolved)} resolved.`,
      "",
      markdownTable(
        ["to the stored result", ">p50", ">p99", ">max"],
        [
          [
            `from the 202 (target p99 under ${burst.targetP99Ms} ms: ${met(burst.fromAck.p99 < burst.targetP99Ms)})`,
            msText(burst.fromAck.p50, 0),
            msText(burst.fromAck.p99, 0),
            msText(burst.fromAck.max, 0),
          ],
          [
            "from the request (what an app waits for its deferred deep link)",
            msText(burst.fromRequest.p50, 0),
            msText(burst.fromRequest.p99, 0),
            msText(burst.fromRequest.max, 0),
          ],
        ],
      ),
    ],
    f.measured,
  );
};

// Soak: resident memory under sustained ingestion.

export interface SoakFigures {
  readonly setup: string;
  readonly samples: readonly {
    readonly seconds: number;
    readonly rssBytes: number;
    readonly anonBytes: number;
    /** Null for a sample too close to the one before to have a rate. */
    readonly eventsPerSecond: number | null;
  }[];
  readonly summary: string;
  readonly peakBytes: number;
  readonly plateauBytes: number;
  readonly targetPlateauBytes: number;
  readonly lake: string;
  readonly measured: string;
}

export const soakSection = (f: SoakFigures): string =>
  section(
    "Soak",
    `${f.setup} (\`bench/soak.bench.ts\`). Resident memory (VmRSS) and what of it is anonymous
(heaps, buffers, DuckDB), with the events accepted a second since the sample before.`,
    [
      markdownTable(
        [">time", ">resident", ">anonymous", ">events/s"],
        f.samples.map((s) => [
          `${Math.round(s.seconds)} s`,
          megabytes(s.rssBytes),
          megabytes(s.anonBytes),
          s.eventsPerSecond === null ? "" : count(s.eventsPerSecond),
        ]),
      ),
      "",
      `- ${f.summary}`,
      `- peak resident memory (of the samples): ${megabytes(f.peakBytes)}`,
      `- plateau (the highest sample of the second half): ${megabytes(f.plateauBytes)} (target under ${megabytes(f.targetPlateauBytes)}: ${met(f.plateauBytes < f.targetPlateauBytes)})`,
      `- ${f.lake}`,
    ],
    f.measured,
  );

// Dashboard: each page's load in a real browser on the demo data.

export interface DashboardPageFigures {
  readonly page: string;
  /** The first load after the service started: its report not yet in the cache. */
  readonly firstMs: number;
  /** The median of the loads after it. */
  readonly medianMs: number;
  readonly maxMs: number;
}

export interface DashboardFigures {
  readonly setup: string;
  readonly pages: readonly DashboardPageFigures[];
  readonly targetMs: number;
  readonly measured: string;
}

export const dashboardSection = (f: DashboardFigures): string =>
  section(
    "Dashboard",
    `${f.setup} (\`bench/dashboard.bench.ts\`). A load is from the navigation to the page's
content shown (its figures, table or form filled), the page's script, stylesheet and API calls
included; the first load of a page asks the query engine, the later ones may find its report in
the service's short cache (30 seconds for the overview, 2 for the latest events and link
clicks).`,
    [
      markdownTable(
        ["page", ">first load", ">median", ">slowest", "target"],
        f.pages.map((p) => [
          p.page,
          msText(p.firstMs, 0),
          msText(p.medianMs, 0),
          msText(p.maxMs, 0),
          `under ${f.targetMs} ms: ${met(Math.max(p.firstMs, p.maxMs) < f.targetMs)}`,
        ]),
      ),
    ],
    f.measured,
  );

// Postbacks: a burst of attributed installs, each posted back to a mock network.

export interface PostbackFigures {
  readonly installs: number;
  readonly perSecond: number;
  /** From an install's request being due to its postback reaching the network. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Installs whose postback never came, and installs posted back more than once. */
  readonly lost: number;
  readonly twice: number;
  readonly installP99Ms: number;
  /** Another app's event batches: their pace and size, and how many were measured. */
  readonly probe: {
    readonly perSecond: number;
    readonly events: number;
    readonly idle: number;
    readonly burst: number;
    /** Installs sent first, at the burst's pace, and the probe's slowest batch beside them. */
    readonly warmInstalls: number;
    readonly firstSecondMaxMs: number;
  };
  /** Their latency alone and during the burst. */
  readonly probeIdleP50Ms: number;
  readonly probeBurstP50Ms: number;
  readonly probeIdleP99Ms: number;
  readonly probeBurstP99Ms: number;
  /** During the burst: the share of it the service's main thread ran, and its process's cores. */
  readonly serviceThreadBusy: number;
  readonly serviceCores: number;
  readonly targetP99Ms: number;
  readonly targetIngestRatio: number;
  readonly failedRequests: number;
  readonly measured: string;
}

export const postbacksSection = (f: PostbackFigures): string => {
  const ratio = f.probeIdleP99Ms > 0 ? f.probeBurstP99Ms / f.probeIdleP99Ms : 0;
  return section(
    "Postbacks",
    `${count(f.installs)} installs, each matched to its own tap of a link by the click id in its
Play referrer, sent open-loop at ${count(f.perSecond)} a second to the embedded service in its own
process; a generic partner configured for the link's media source; a mock ad network on this
machine answering 200 (\`bench/postbacks.bench.ts\`). The time counts from an install's request
being due to its postback reaching the network: the request, the attribution worker, the outbox
and the postback worker. Another app's SDK, in a process of its own (\`bench/probe-client.ts\`),
sends batches of ${count(f.probe.events)} events, ${count(f.probe.perSecond)} a second: ${count(f.probe.idle)} alone (after a few
unmeasured), then ${count(f.probe.burst)} during the burst. Before both, ${count(f.probe.warmInstalls)} installs at the burst's
pace, with their taps and postbacks, warm the service: a started service's first installs run
its code for the first time, and beside them the other app's slowest batch took ${msText(f.probe.firstSecondMaxMs)}.`,
    [
      markdownTable(
        ["", ">p50", ">p99", ">max"],
        [["install to postback", msText(f.p50Ms, 0), msText(f.p99Ms, 0), msText(f.maxMs, 0)]],
      ),
      "",
      `- install to postback p99: ${msText(f.p99Ms, 0)} (target under ${count(f.targetP99Ms)} ms: ${met(f.p99Ms < f.targetP99Ms)})`,
      `- postbacks lost: ${count(f.lost)}, sent twice: ${count(f.twice)} (target none: ${met(f.lost === 0 && f.twice === 0)})`,
      `- the installs' own p99: ${msText(f.installP99Ms)}; requests refused or failed: ${count(f.failedRequests)}`,
      `- another app's event batches, p99 alone ${msText(f.probeIdleP99Ms)} and during the burst ${msText(f.probeBurstP99Ms)}: ${fixed(ratio, 2)} times (target at most ${f.targetIngestRatio}: ${met(ratio <= f.targetIngestRatio)}); their median alone ${msText(f.probeIdleP50Ms)}, during the burst ${msText(f.probeBurstP50Ms)}`,
      `- during the burst the service's main thread, which answers every request and runs the workers, was busy ${fixed(f.serviceThreadBusy * 100, 0)}% of the time, and the service used ${fixed(f.serviceCores, 2)} of the machine's cores`,
    ],
    f.measured,
  );
};

// Reports at scale: the overview and the cohorts report of one app's 90 days of events.

/** One ask of a report, or one load of a page: its time, and whether its figures came. */
export interface ReportTry {
  readonly ms: number;
  readonly ok: boolean;
  /** The HTTP status of a failed ask (0: no answer). */
  readonly status?: number;
}

/** The median time of tries, a failed one counted as slower than any; null when that is one. */
export const typicalMs = (tries: readonly ReportTry[]): number | null => {
  const times = tries.map((t) => (t.ok ? t.ms : Number.POSITIVE_INFINITY)).sort((a, b) => a - b);
  const middle = times[Math.floor(times.length / 2)];
  return middle === undefined || !Number.isFinite(middle) ? null : middle;
};

export interface ReportAskFigures {
  readonly report: string;
  /** The filters asked with, in words. */
  readonly filter: string;
  /** The installs the answer counts (what the filter leaves); null when none came. */
  readonly installs: number | null;
  /** The first ask: no answer cached. */
  readonly first: ReportTry;
  /** The asks after it. */
  readonly after: readonly ReportTry[];
  /** From the first failed ask until the service was idle again: its query going on unasked. */
  readonly busyAfterFailureMs?: number;
}

export interface ReportPageFigures {
  readonly page: string;
  readonly filter: string;
  /** From the navigation to the figures shown. */
  readonly first: ReportTry;
  readonly after: readonly ReportTry[];
  /** Of the same loads, from the page's range set to its figures shown. */
  readonly fromRange?: { readonly first: number; readonly median: number | null };
  /** The report asks the page made through its loads: how many, how many failed, with what. */
  readonly reportAsks?: {
    readonly total: number;
    readonly failed: number;
    readonly statuses: readonly number[];
  };
}

/** Where one report's query, run alone, spends its time. */
export interface ReportQueryProfile {
  readonly report: string;
  readonly threads: number;
  readonly seconds: number;
  readonly spillBytes: number;
  readonly bufferBytes: number;
  readonly top: readonly {
    readonly what: string;
    readonly rows: number;
    readonly seconds: number;
  }[];
}

export interface ReportsScaleFigures {
  readonly lake: {
    readonly events: number;
    readonly installs: number;
    readonly attributions: number;
    readonly touches: number;
    readonly sessions: number;
    readonly from: string;
    readonly to: string;
    readonly seconds: number;
    readonly bytes: number;
  };
  /** Asks and loads after the first of each, and after a first that failed. */
  readonly rounds: number;
  readonly failedRounds: number;
  /** The report routes' time limit: past it the service answers 500. */
  readonly timeLimitSeconds: number;
  readonly asks: readonly ReportAskFigures[];
  /** Each report of other windows as long, each asked once (so never cached). */
  readonly otherWindows: readonly {
    readonly report: string;
    readonly tries: readonly ReportTry[];
  }[];
  readonly pages: readonly ReportPageFigures[];
  /** Whether the Overview page had filter controls to measure with. */
  readonly overviewFilters: boolean;
  /** Whether the Overview page took its range and filters from its address. */
  readonly overviewInAddress: boolean;
  readonly peaks: readonly { readonly part: string; readonly bytes: number }[];
  readonly profiles: readonly ReportQueryProfile[];
  readonly targets: { readonly firstMs: number; readonly medianMs: number };
  readonly measured: string;
}

export const reportsScaleSection = (f: ReportsScaleFigures): string => {
  const { lake, targets } = f;
  const tryText = (t: ReportTry) =>
    `${count(t.ms)} ms${t.ok ? "" : ` FAILED (${t.status ?? "error shown"})`}`;
  const firstCell = (t: ReportTry) => `${tryText(t)}: ${met(t.ok && t.ms < targets.firstMs)}`;
  const medianCell = (tries: readonly ReportTry[]) => {
    const typical = typicalMs(tries);
    const failed = tries.filter((t) => !t.ok).length;
    const of = `of ${tries.length}${failed > 0 ? `, ${failed} failed` : ""}`;
    return typical === null
      ? `FAILED (${of}): ${met(false)}`
      : `${count(typical)} ms (${of}): ${met(typical < targets.medianMs)}`;
  };
  const slowest = (tries: readonly ReportTry[]) =>
    tries.length === 0 ? "" : `${count(Math.max(...tries.map((t) => t.ms)))} ms`;
  const rows = [...f.asks, ...f.pages];
  const firstMet = rows.every((r) => r.first.ok && r.first.ms < targets.firstMs);
  const medianMet = rows.every((r) => {
    const typical = typicalMs(r.after);
    return typical !== null && typical < targets.medianMs;
  });
  const busy = f.asks.filter((a) => a.busyAfterFailureMs !== undefined);
  const fromRange = f.pages.some((p) => p.fromRange !== undefined);
  return section(
    "Reports at scale",
    `One app's ${count(lake.events)} events over the 90 days ${lake.from} to ${lake.to}: ${count(lake.installs)}
installs (one per 50 events, each its \`service_install\` event), purchases with revenue, Android
and iOS, ${count(lake.attributions)} attributions (half the installs, a fifth of them organic),
${count(lake.touches)} touches and ${count(lake.sessions)} sessions on the days after each install, written
straight in the lake's Parquet layout in ${fixed(lake.seconds)} s (${megabytes(lake.bytes)}; \`bench/report-lake.ts\`,
\`BENCH_REPORT_EVENTS\` sets the size), under \`npm start\` as its own process
(\`bench/reports-scale.bench.ts\`). Each report through the API on a service started afresh:
first asked with no answer cached, then ${f.rounds} times more (${f.failedRounds} after a first that
failed), and the same report of other 90-day windows never asked (a day earlier, two…). Then the
dashboard in Chromium at 1280 px, on a service started afresh and signed in: a load is from the
navigation to the 90 days' figures shown. ${
      f.overviewInAddress
        ? "The Overview page takes its range and filters from its address: each load opens it with them there."
        : "The Overview page opens on the last 7 days and asks for them; the 90 days are then set in its date fields (and a filter chosen), and the time from the range set on is given beside."
    }${f.overviewFilters ? "" : " The Overview page had no filter controls when measured, so it is measured without filters."} The Cohorts page opens with the 90 days, grouped by country, and the media source in its address. A page asks for more reports than the one it shows (those its filters' choices come from): all the report asks of its loads are counted, and those that failed.
The service keeps a report's answer for 30 s from when it was asked, and answers 500 once a
report takes more than its route's ${f.timeLimitSeconds} s; the query goes on regardless, and the
bench waits for the service to be idle before its next ask.`,
    [
      markdownTable(
        [
          "report",
          "filter",
          ">installs",
          `first ask (target under ${count(targets.firstMs)} ms)`,
          `median after it (target under ${count(targets.medianMs)} ms)`,
          ">slowest after it",
        ],
        f.asks.map((a) => [
          a.report,
          a.filter,
          a.installs === null ? "-" : count(a.installs),
          firstCell(a.first),
          medianCell(a.after),
          slowest(a.after),
        ]),
      ),
      "",
      ...f.otherWindows.map(
        (w) =>
          `- ${w.report}, other 90-day windows never asked before (no filter), each its first ask: ${w.tries.map(tryText).join(", ")}`,
      ),
      ...(busy.length > 0
        ? [
            `- after a failed ask, the service stayed busy with its query, from the ask: ${busy.map((a) => `${a.report} ${a.filter} ${count(a.busyAfterFailureMs ?? 0)} ms`).join(", ")}`,
          ]
        : []),
      "",
      markdownTable(
        [
          "page",
          "filter",
          `first load (target under ${count(targets.firstMs)} ms)`,
          `median after it (target under ${count(targets.medianMs)} ms)`,
          ">slowest after it",
          ...(fromRange ? ["from the range set: first, median"] : []),
          "the page's report asks",
        ],
        f.pages.map((p) => [
          p.page,
          p.filter,
          firstCell(p.first),
          medianCell(p.after),
          slowest(p.after),
          ...(fromRange
            ? [
                p.fromRange
                  ? `${count(p.fromRange.first)} ms, ${p.fromRange.median === null ? "-" : `${count(p.fromRange.median)} ms`}`
                  : "",
              ]
            : []),
          p.reportAsks
            ? `${count(p.reportAsks.total)}, ${count(p.reportAsks.failed)} failed${p.reportAsks.statuses.length > 0 ? ` (${p.reportAsks.statuses.join(", ")})` : ""}`
            : "",
        ]),
      ),
      "",
      `- every first load under ${count(targets.firstMs)} ms: ${met(firstMet)}; every median after it under ${count(targets.medianMs)} ms: ${met(medianMet)}`,
      `- the service's peak resident memory: ${f.peaks.map((p) => `${megabytes(p.bytes)} (${p.part})`).join(", ")}`,
      "",
      "Each report's query alone (no filter), as the service builds it, under DuckDB's profiler on an instance set as the service's reports instance (`ATTRIBUTION_REPORT_MEMORY`, spilling to the data folder; `bench/report-profile.ts`) with no time limit, on every core as the service's and on one, and on every core for an app whose time zone is not UTC (its days counted there), and the operators that took the most:",
      "",
      markdownTable(
        ["query", ">time", ">spilled", "operator", ">rows", ">operator time"],
        f.profiles.flatMap((p) =>
          p.top.map((o, i) => [
            i === 0 ? `${p.report}, ${p.threads} thread${p.threads === 1 ? "" : "s"}` : "",
            i === 0 ? `${fixed(p.seconds)} s` : "",
            i === 0 ? megabytes(p.spillBytes) : "",
            o.what,
            count(o.rows),
            `${fixed(o.seconds)} s`,
          ]),
        ),
      ),
    ],
    f.measured,
  );
};

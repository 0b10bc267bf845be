/**
 * The benchmarks' sections of docs/benchmarks.md are built from their figures alone
 * (bench/sections.ts): each is a heading, tables whose rows have the header's cells, the
 * verdicts, and the line naming the machine and the date.
 */
import { describe, expect, it } from "vitest";
import {
  attributionSection,
  clicksSection,
  dashboardSection,
  exportSection,
  ingestSection,
  markdownTable,
  postbacksSection,
  type ReportsScaleFigures,
  reportsScaleSection,
  type ServerRun,
  soakSection,
  typicalMs,
} from "../bench/sections.ts";

const MEASURED = "Measured 2026-11-27 on 2 cores (Test CPU), 8 GiB, Node 20.20.2.";
const MB = 1024 * 1024;

/** Each table's rows have as many cells as its header. */
const tablesAreWhole = (markdown: string) => {
  const cells = (line: string) => line.replace(/\\\|/g, "").split("|").length;
  const lines = markdown.split("\n");
  lines.forEach((line, i) => {
    if (!line.startsWith("|")) return;
    const first = lines
      .slice(0, i + 1)
      .findLastIndex((l, j) => l.startsWith("|") && !lines[j - 1]?.startsWith("|"));
    expect(cells(line), line).toBe(cells(lines[first] ?? ""));
  });
};

const run = (label: string, perSecond: number): ServerRun => ({
  label,
  perSecond,
  p50Ms: 12.3,
  p99Ms: 45.6,
  cpuMs: 0.5,
  failed: 0,
});

describe("benchmark sections", () => {
  it("writes a table with right-aligned columns and escaped bars", () => {
    expect(markdownTable(["name", ">n"], [["a|b", "1"]])).toBe(
      ["| name | n |", "| ---- | --: |", "| a\\|b | 1 |"].join("\n"),
    );
  });

  it("writes the export's pages, the history cost and the peak, with the machine", () => {
    const markdown = exportSection({
      lakes: [
        {
          label: "Lake with the window only",
          materialiseMs: 104,
          pages: [
            {
              format: "csv",
              firstByteMs: 20,
              lastByteMs: 24,
              bytes: 2 * MB,
              reference: { format: "csv", ms: 12 },
              targetRatio: 3,
            },
            {
              format: "xlsx",
              firstByteMs: 12,
              lastByteMs: 90,
              bytes: 0.8 * MB,
              reference: { format: "csv", ms: 12 },
              targetRatio: 4,
            },
          ],
        },
      ],
      historyCost: { materialise: 1.05, pages: { csv: 0.9, xlsx: 1.3 } },
      historyTarget: 1.2,
      peakBytes: 400 * MB,
      peakTargetBytes: 512 * MB,
      measured: MEASURED,
      rounds: 15,
    });
    expect(markdown).toMatch(/^## Export pages\n/);
    expect(markdown).toContain("medians of 15 rounds of requests");
    expect(markdown).toContain("| csv | 20 ms | 24 ms | 2.0 MB | csv 12 ms | 2.00x | 3x: met |");
    expect(markdown).toContain(
      "| xlsx | 12 ms | 90 ms | 0.8 MB | csv 12 ms | 7.50x | 4x: NOT MET |",
    );
    expect(markdown).toContain("| xlsx | 1.30x | NOT MET |");
    expect(markdown).toContain("400.0 MB (target under 512.0 MB: met)");
    expect(markdown.trimEnd().endsWith(MEASURED)).toBe(true);
    tablesAreWhole(markdown);
  });

  it("writes ingestion, clicks, attribution and soak with their verdicts", () => {
    const ingest = ingestSection({
      setup: "3 rounds",
      rounds: [[run("service", 100_000), run("reference", 300_000), run("floor", 180_000)]],
      ratio: 0.33,
      targetRatio: 0.5,
      floorRatio: 0.6,
      p99Ms: 45.6,
      targetP99Ms: 50,
      servicePeakBytes: 420 * MB,
      lake: "Events in the lake: all",
      bundles: [
        { name: "config", bytes: 161 * 1024, importMs: 120 },
        { name: "export", bytes: 485 * 1024, importMs: null },
      ],
      targetBundleBytes: MB,
      measured: MEASURED,
    });
    expect(ingest).toContain("| 1 | service | 100,000 | 12.3 ms | 45.6 ms | 0.50 ms | 0 |");
    expect(ingest).toContain("0.33 (target at least 0.5: NOT MET)");
    expect(ingest).toContain("| export | 485 KB | FAILED | met |");

    const clicks = clicksSection({
      setup: "Open loop",
      rates: [
        {
          offered: 500,
          linkHost: { ...run("link host", 500), p99Ms: 4.2, cpuMs: 0.3 },
          bare: { ...run("bare 302", 500), cpuMs: 0.1 },
          reference: { ...run("PostgreSQL reference", 500), p99Ms: 6.1 },
          referenceStored: { answered: 6_000, stored: 6_000 },
          recorder: {
            logged: { ...run("recorder, click log", 500), p99Ms: 4.5 },
            unkept: { ...run("recorder, kept nowhere", 500), p99Ms: 2.25 },
          },
        },
        {
          offered: 2_000,
          linkHost: { ...run("link host", 2_000), p99Ms: 29.2, cpuMs: 1.97 },
          bare: { ...run("bare 302", 2_000), cpuMs: 0.1 },
        },
      ],
      targetCpuRatio: 3,
      proposed: { referenceCpuRatio: 2, p99AllowanceMs: 5 },
      serviceStored: { answered: 24_000, stored: 24_100, missing: 1 },
      servicePeakBytes: 507 * MB,
      diskSync: { p50Ms: 0.213, p99Ms: 1.657 },
      measured: MEASURED,
    });
    expect(clicks).toContain("syncs one appended click line in p50 0.21 ms, p99 1.66 ms");
    expect(clicks).toContain(
      "at 500 taps a second: p99 4.2 ms against the PostgreSQL reference's 6.1 ms (target at most it: met; proposed, at most it + 5 ms: met); server CPU per click 3.00x the bare 302's (target at most 3x: met), 0.60x the PostgreSQL reference's (proposed, at most 2x: met)",
    );
    expect(clicks).toContain("19.70x the bare 302's (target at most 3x: NOT MET)");
    expect(clicks).toContain("no PostgreSQL reference on this machine");
    // More clicks than answered taps, one answered missing: by id, not by count.
    expect(clicks).toContain(
      "24,100 distinct clicks of 24,000 answered, 1 of the answered missing (NOT MET)",
    );
    expect(clicks).toContain("the PostgreSQL reference stored 6,000 of 6,000 at 500 a second");
    expect(clicks).toContain("| 2,000/s | link host | 2,000 |");
    expect(clicks).toContain("| 500/s | recorder, click log | 500 | 12.3 ms | 4.5 ms |");
    // The service's p99 (4.2 ms) under the recorder's with its log: a step can take time away.
    expect(clicks).toContain(
      "- where the p99 goes at 500 taps a second: 2.3 ms for the recorder alone, 4.5 ms with its click synced before the answer (the sync: +2.3 ms), 4.2 ms in the service (the rest of the service in the same process: −0.3 ms)",
    );
    // A rate measured without the recorder says nothing of it.
    expect(clicks).not.toContain("where the p99 goes at 2,000");

    const attribution = attributionSection({
      seeds: [
        {
          seed: 7,
          installs: 3_000,
          touches: 9_000,
          sightings: 41_200,
          rows: [
            {
              method: "click id",
              platform: "android",
              attributed: 60,
              precision: 1,
              recall: 1,
              target: "precision 100% and recall 100%: met",
            },
            {
              method: "probabilistic, low",
              platform: "ios",
              attributed: 0,
              precision: null,
              recall: 0.359,
              target: "precision 80%: met",
            },
          ],
          organic: { android: 0.99, ios: null },
          crowd: [
            {
              level: "probabilistic, medium",
              platform: "android",
              touchesOnly: { attributed: 80, precision: 0.9, wrong: 8 },
              withInstalls: { attributed: 50, precision: 1, wrong: 0 },
            },
          ],
        },
      ],
      allTargetsMet: true,
      cost: [
        { touches: 764, perInstallMs: 1.2 },
        { touches: 76_400, perInstallMs: 1.1 },
      ],
      costTarget: 1.5,
      burst: {
        installs: 5_000,
        clients: 32,
        acceptedPerSecond: 156,
        resolved: 5_000,
        fromAck: { p50: 67, p99: 156, max: 400 },
        fromRequest: { p50: 263, p99: 524, max: 900 },
        targetP99Ms: 1_000,
      },
      measured: MEASURED,
    });
    expect(attribution).toContain("| click id | android | 60 | 100.0% | 100.0% |");
    expect(attribution).toContain("| probabilistic, low | ios | 0 | - | 35.9% |");
    expect(attribution).toContain("android 99.0%, ios -");
    expect(attribution).toContain("41,200 requests of the app's users");
    expect(attribution).toContain(
      "| touches only | probabilistic, medium | android | 80 | 90.0% | 8 |",
    );
    expect(attribution).toContain(
      "| touches and installs | probabilistic, medium | android | 50 | 100.0% | 0 |",
    );
    expect(attribution).toContain("0.92x per install (target at most 1.5x: met)");

    const soak = soakSection({
      setup: "32 clients for 600 s",
      samples: [
        { seconds: 0, rssBytes: 200 * MB, anonBytes: 150 * MB, eventsPerSecond: 0 },
        { seconds: 600.2, rssBytes: 500 * MB, anonBytes: 400 * MB, eventsPerSecond: null },
      ],
      summary: "1,000 requests",
      peakBytes: 500 * MB,
      plateauBytes: 500 * MB,
      targetPlateauBytes: 1024 * MB,
      lake: "Events in the lake: all",
      measured: MEASURED,
    });
    expect(soak).toContain("| 600 s | 500.0 MB | 400.0 MB |  |");
    expect(soak).toContain("500.0 MB (target under 1024.0 MB: met)");

    for (const markdown of [ingest, clicks, attribution, soak]) {
      expect(markdown).toMatch(/^## /);
      expect(markdown.trimEnd().endsWith(MEASURED)).toBe(true);
      tablesAreWhole(markdown);
    }
  });

  it("shows each dashboard page's loads beside the target, a slow first load failing it", () => {
    const dashboard = dashboardSection({
      setup: "the demo's 2 apps",
      pages: [
        { page: "overview", firstMs: 1_400, medianMs: 120, maxMs: 150 },
        { page: "keys", firstMs: 90, medianMs: 60, maxMs: 70 },
      ],
      targetMs: 1_000,
      measured: MEASURED,
    });
    expect(dashboard).toContain(
      "| overview | 1400 ms | 120 ms | 150 ms | under 1000 ms: NOT MET |",
    );
    expect(dashboard).toContain("| keys | 90 ms | 60 ms | 70 ms | under 1000 ms: met |");
    tablesAreWhole(dashboard);
    expect(dashboard.endsWith(MEASURED)).toBe(true);
  });

  it("judges postbacks by their p99, none lost or repeated, and ingestion beside the burst", () => {
    const figures = {
      installs: 10_000,
      perSecond: 500,
      p50Ms: 300,
      p99Ms: 1_200,
      maxMs: 2_000,
      lost: 0,
      twice: 0,
      installP99Ms: 20,
      probe: {
        perSecond: 20,
        events: 10,
        idle: 400,
        burst: 400,
        warmInstalls: 500,
        firstSecondMaxMs: 21,
      },
      probeIdleP50Ms: 3,
      probeBurstP50Ms: 4,
      probeIdleP99Ms: 10,
      probeBurstP99Ms: 15,
      serviceThreadBusy: 0.9,
      serviceCores: 1.25,
      targetP99Ms: 5_000,
      targetIngestRatio: 2,
      failedRequests: 0,
      measured: MEASURED,
    };
    const met = postbacksSection(figures);
    expect(met).toContain("| install to postback | 300 ms | 1200 ms | 2000 ms |");
    expect(met).toContain("(target under 5,000 ms: met)");
    expect(met).toContain("1.50 times (target at most 2: met)");
    expect(met).toContain("median alone 3.0 ms, during the burst 4.0 ms");
    expect(met).toContain("batches of 10 events, 20 a second: 400 alone");
    expect(met).toContain("500 installs at the burst's\npace");
    expect(met).toContain("slowest batch took 21.0 ms");
    expect(met).toContain(
      "was busy 90% of the time, and the service used 1.25 of the machine's cores",
    );
    expect(met).toContain("sent twice: 0 (target none: met)");
    tablesAreWhole(met);
    expect(met.endsWith(MEASURED)).toBe(true);
    const failed = postbacksSection({ ...figures, p99Ms: 6_000, twice: 1, probeBurstP99Ms: 25 });
    expect(failed).toContain("(target under 5,000 ms: NOT MET)");
    expect(failed).toContain("sent twice: 1 (target none: NOT MET)");
    expect(failed).toContain("2.50 times (target at most 2: NOT MET)");
  });

  it("takes a failed report ask as slower than any, and judges each first ask and page load", () => {
    expect(
      typicalMs([
        { ms: 30, ok: true },
        { ms: 10, ok: true },
        { ms: 20, ok: true },
      ]),
    ).toBe(20);
    expect(
      typicalMs([
        { ms: 30, ok: false },
        { ms: 10, ok: true },
        { ms: 20, ok: false },
      ]),
    ).toBe(null);
    expect(typicalMs([])).toBe(null);
    const figures: ReportsScaleFigures = {
      lake: {
        events: 10_000_000,
        installs: 200_000,
        attributions: 100_000,
        touches: 200_000,
        sessions: 1_000_000,
        from: "2026-09-01",
        to: "2026-11-29",
        seconds: 20.5,
        bytes: 600 * MB,
      },
      rounds: 7,
      failedRounds: 2,
      timeLimitSeconds: 28,
      asks: [
        {
          report: "overview",
          filter: "no filter",
          installs: 200_000,
          first: { ms: 2_500, ok: true },
          after: [
            { ms: 2, ok: true },
            { ms: 3, ok: true },
            { ms: 4, ok: true },
          ],
        },
      ],
      otherWindows: [{ report: "overview", tries: [{ ms: 2_600, ok: true }] }],
      pages: [
        {
          page: "overview",
          filter: "media source meta_ads",
          first: { ms: 2_900, ok: true },
          after: [{ ms: 300, ok: true }],
          reportAsks: { total: 8, failed: 0, statuses: [] },
        },
      ],
      overviewFilters: true,
      overviewInAddress: true,
      peaks: [{ part: "overview through the API", bytes: 900 * MB }],
      profiles: [
        {
          report: "overview",
          threads: 2,
          seconds: 2.5,
          spillBytes: 0,
          bufferBytes: 800 * MB,
          top: [{ what: "group by key_hash", rows: 10_000_000, seconds: 0.6 }],
        },
      ],
      targets: { firstMs: 3_000, medianMs: 1_000 },
      measured: MEASURED,
    };
    const met = reportsScaleSection(figures);
    expect(met).toContain(
      "| overview | no filter | 200,000 | 2,500 ms: met | 3 ms (of 3): met | 4 ms |",
    );
    expect(met).toContain(
      "every first load under 3,000 ms: met; every median after it under 1,000 ms: met",
    );
    tablesAreWhole(met);
    expect(met.endsWith(MEASURED)).toBe(true);
    const failed = reportsScaleSection({
      ...figures,
      pages: [
        {
          page: "cohorts",
          filter: "media source meta_ads",
          first: { ms: 29_000, ok: false, status: 500 },
          after: [
            { ms: 3_000, ok: false, status: 500 },
            { ms: 400, ok: true },
          ],
          reportAsks: { total: 3, failed: 2, statuses: [500] },
        },
      ],
    });
    expect(failed).toContain("29,000 ms FAILED (500): NOT MET");
    expect(failed).toContain("FAILED (of 2, 1 failed): NOT MET");
    expect(failed).toContain(
      "every first load under 3,000 ms: NOT MET; every median after it under 1,000 ms: NOT MET",
    );
    tablesAreWhole(failed);
  });
});

/**
 * The reports through a brief in-memory cache in front of either engine: a dashboard page
 * asks for several charts of one window at once, and a reload asks again, and each would
 * scan the window's events anew. An overview is kept `ttlMs` (30 s by default) under its whole
 * query; the installs left out are part of it, so a deletion request is seen at once. The
 * latest events and the link clicks, which people watch for what just happened (the live
 * page polls every few seconds), are kept only `liveTtlMs` (2 s): enough that many watchers
 * share one query, not enough to hide a new event. Asks of the same query while it runs share
 * the run; a failed one is not remembered.
 */
import { createHash } from "node:crypto";
import type { ReportEngine } from "../../ports/reports.ts";
import { RecentMap } from "./recent-map.ts";

export const REPORT_CACHE_TTL_MS = 30_000;
export const LIVE_REPORT_CACHE_TTL_MS = 2_000;

/** A set of texts (install ids, renamed campaigns as JSON), in any order and with repeats, as one short key. */
const digestOf = (serviceIds: readonly string[]): string =>
  serviceIds.length === 0
    ? "-"
    : createHash("sha256")
        .update([...new Set(serviceIds)].sort().join("\n"))
        .digest("base64url");

/**
 * A report's query as its key: every field it has (so that one added later is in the key too),
 * objects' fields in name order, dates as ISO text, and the sets of installs left out and of
 * renamed campaigns as digests.
 */
const keyOf = (report: string, query: object): string =>
  JSON.stringify([report, query], (name, value: unknown) => {
    if (value === undefined) return value;
    if (name === "excludeServiceIds") return digestOf(value as string[]);
    if (name === "renamed") {
      return digestOf((value as object[]).map((campaign) => keyOf("campaign", campaign)));
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
    return Object.fromEntries(
      Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  });

export const cachedReportEngine = (
  engine: ReportEngine,
  options: { ttlMs?: number; liveTtlMs?: number; maxEntries?: number; now?: () => number } = {},
): ReportEngine => {
  const {
    ttlMs = REPORT_CACHE_TTL_MS,
    liveTtlMs = LIVE_REPORT_CACHE_TTL_MS,
    maxEntries = 1_000,
    now = Date.now,
  } = options;
  const entries = new RecentMap<string, { answer: Promise<unknown>; expiresAt: number }>(
    maxEntries,
  );

  const cached = <T>(key: string, ask: () => Promise<T>, keepMs = ttlMs): Promise<T> => {
    const entry = entries.get(key);
    // Answers are stored under their report's key only, so the type is the one asked.
    if (entry && entry.expiresAt > now()) return entry.answer as Promise<T>;
    const answer = ask();
    const stored = { answer, expiresAt: now() + keepMs };
    entries.set(key, stored);
    answer.catch(() => {
      if (entries.get(key) === stored) entries.delete(key);
    });
    return answer;
  };

  return {
    overview: (query) => cached(keyOf("overview", query), () => engine.overview(query)),
    cohorts: (query) => cached(keyOf("cohorts", query), () => engine.cohorts(query)),
    renamedCampaigns: (query) =>
      cached(keyOf("renamed-campaigns", query), () => engine.renamedCampaigns(query)),
    // A postback arrives any time, and the owner checks for one just sent: kept briefly.
    skadnetwork: (query) =>
      cached(keyOf("skadnetwork", query), () => engine.skadnetwork(query), liveTtlMs),
    latestEvents: (query) =>
      cached(keyOf("latest-events", query), () => engine.latestEvents(query), liveTtlMs),
    linkClicks: (appId) =>
      cached(keyOf("link-clicks", { appId }), () => engine.linkClicks(appId), liveTtlMs),
  };
};

/**
 * The ECB's 90-day reference-rate feed, fetched over HTTPS: the daily rates job on AWS and
 * the embedded runtime's refresh (which may name another URL, a stand-in or a mirror).
 */
import { ECB_90_DAY_FEED } from "../../fx/ecb-feed.ts";

/** The feed's XML; an answer other than 2xx, or none within `timeoutMs`, rejects. */
export const fetchEcbFeed = async (
  url: string = ECB_90_DAY_FEED,
  timeoutMs = 30_000,
): Promise<string> => {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${response.statusText}`);
  return response.text();
};

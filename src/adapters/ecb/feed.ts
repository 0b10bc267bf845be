/** The ECB's 90-day reference-rate feed, fetched over HTTPS: the daily rates job on AWS. */
import { ECB_90_DAY_FEED } from "../../fx/ecb-feed.ts";

/** The feed's XML; an answer other than 2xx, or none within `timeoutMs`, rejects. */
export const fetchEcbFeed = async (timeoutMs = 30_000): Promise<string> => {
  const response = await fetch(ECB_90_DAY_FEED, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) {
    throw new Error(`GET ${ECB_90_DAY_FEED}: ${response.status} ${response.statusText}`);
  }
  return response.text();
};

/**
 * Apple's AdServices attribution API: the install's token POSTed as text/plain, answered with
 * the Apple Ads campaign that led to the download, or `attribution: false`. As Apple documents
 * it: a 404 means the record is not ready yet, asked again every 5 seconds up to 3 times; a
 * 400 is a token Apple will never accept (malformed or expired: tokens live 24 hours), which
 * is no attribution; a 500 is Apple's failure, tried again later with the job. Apple may hold
 * a request about a second, so the client waits well longer.
 */
import { setTimeout as sleep } from "node:timers/promises";
import * as z from "zod";
import { APPLE_ADSERVICES_URL } from "../../config/defaults.ts";
import type { SearchAds, SearchAdsAnswer } from "../../ports/search-ads.ts";

const id = z.union([z.number(), z.string()]).transform(String);

const answerSchema = z.union([
  z.object({
    attribution: z.literal(true),
    campaignId: id,
    adGroupId: id.optional(),
    keywordId: id.optional(),
    adId: id.optional(),
    claimType: z.enum(["Click", "Impression"]).optional(),
    clickDate: z.string().optional(),
  }),
  z.object({ attribution: z.literal(false) }),
]);

/** Apple writes `2020-04-08T17:17Z`: minutes, no seconds. */
const isoOf = (date: string | undefined): string | null => {
  if (!date) return null;
  const time = Date.parse(date);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
};

export interface AdServicesOptions {
  readonly url?: string;
  readonly retryDelayMs?: number;
  readonly maxTries?: number;
  readonly timeoutMs?: number;
}

export const createAdServicesClient = (options: AdServicesOptions = {}): SearchAds => {
  const url = options.url ?? APPLE_ADSERVICES_URL;
  const retryDelayMs = options.retryDelayMs ?? 5_000;
  const maxTries = options.maxTries ?? 3;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    async resolve(token): Promise<SearchAdsAnswer> {
      for (let attempt = 1; ; attempt++) {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "text/plain" },
          body: token,
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (response.status === 200) {
          const answer = answerSchema.parse(await response.json());
          if (!answer.attribution) return answer;
          return {
            attribution: true,
            campaignId: answer.campaignId,
            adGroupId: answer.adGroupId ?? null,
            keywordId: answer.keywordId ?? null,
            adId: answer.adId ?? null,
            claimType: answer.claimType ?? "Click",
            clickDate: isoOf(answer.clickDate),
          };
        }
        await response.body?.cancel();
        if (response.status === 400) return { attribution: false };
        if (response.status === 404 && attempt < maxTries) {
          await sleep(retryDelayMs);
          continue;
        }
        throw new Error(`Apple AdServices answered ${response.status} (attempt ${attempt})`);
      }
    },
  };
};

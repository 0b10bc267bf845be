/**
 * API Gateway's authorizer cache, on the embedded runtime: the TOKEN authorizer's answer is
 * kept per token, and its policy (which names every route the key may call) is checked against
 * each request. AWS keeps an answer for minutes; here it is dropped at once when the admin
 * revision moves (a key revoked, an app disabled, by the CLI), and after `maxAgeMs` in any case
 * (10 seconds: short, because a lost mark would otherwise add it to the key cache's minute).
 * Only answers that let a key in are kept: a refused token is asked about again. The REQUEST
 * authorizer of dashboard sessions is asked every time (its answer depends on the method, the
 * app named and the CSRF header).
 */
import { RecentMap } from "../adapters/cache/recent-map.ts";
import { followRevision } from "../adapters/cache/revision.ts";
import type { Authorizer } from "./gateway.ts";

export interface AuthorizerCacheOptions {
  readonly revision: () => string;
  readonly maxAgeMs?: number;
  readonly maxEntries?: number;
  readonly now?: () => number;
}

type Answer = Awaited<ReturnType<Authorizer>>;

export const cacheAuthorizerAnswers = (
  authorizer: Authorizer,
  options: AuthorizerCacheOptions,
): Authorizer => {
  const { maxAgeMs = 10_000, maxEntries = 10_000, now = Date.now } = options;
  const answers = new RecentMap<string, { answer: Answer; at: number }>(maxEntries);
  const current = followRevision(options.revision, () => answers.clear());
  return async (event, context) => {
    // A REQUEST authorizer (a dashboard session) is not cached, as on AWS.
    if (event.type !== "TOKEN") return authorizer(event, context);
    const before = current();
    const token = event.authorizationToken;
    const at = now();
    const kept = answers.get(token);
    if (kept && at - kept.at < maxAgeMs) return kept.answer;
    const answer = await authorizer(event, context);
    // A change marked while the authorizer ran may postdate what it read: keep nothing then.
    if (current() === before) answers.set(token, { answer, at });
    return answer;
  };
};

/**
 * The link host's origin check, a Lambda authorizer of its HTTP API (lib/link-host.ts): a
 * request is let in only with the header the CloudFront distribution adds, holding the secret
 * the stack made. So nothing reaches the tap around the distribution, its web ACL or its
 * viewer address, which the tap then trusts. API Gateway keeps the answer per header value,
 * and refuses a request without the header before invoking this at all.
 */
import { timingSafeEqual } from "node:crypto";

/** The header CloudFront adds to every request it sends the link host (lower case: payload 2.0). */
export const ORIGIN_HEADER = "x-origin-verify";

/** Whether a request's header holds the secret; never when either is missing. */
export const originVerified = (presented: string | undefined, secret: string | undefined) => {
  if (!presented || !secret) return false;
  const [a, b] = [Buffer.from(presented), Buffer.from(secret)];
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The authorizer: API Gateway's simple response, payload 2.0. */
export const handler = async (event: {
  readonly headers?: Readonly<Record<string, string | undefined>>;
}): Promise<{ isAuthorized: boolean }> => ({
  isAuthorized: originVerified(event.headers?.[ORIGIN_HEADER], process.env.ORIGIN_SECRET),
});

/**
 * When a postback or webhook is tried again, and what each attempt leaves in the log.
 *
 * A send is tried again only when the partner may take it later: its server failed (5xx), it
 * did not answer in time (10 s), or it could not be reached (a connection error). AppsFlyer's
 * rule, followed here: up to 4 more tries 15 minutes apart, 5 in all. A 4xx is the partner
 * refusing this request, which a retry would only repeat; a redirect (3xx) is never followed
 * (it could lead anywhere, a private address included) and is final too, as is a request the
 * service refused to make (an unsafe address, a template that cannot be filled).
 */
import { MINUTE_MS } from "../domain/time.ts";
import { encodeQueryValue, headerSafe } from "./templates.ts";
import { REQUEST_LIMITS } from "./url-safety.ts";

export const RETRY_POLICY = {
  /** The first try and 4 retries. */
  maxAttempts: 5,
  /** Between one attempt's end and the next. */
  intervalMs: 15 * MINUTE_MS,
  timeoutMs: REQUEST_LIMITS.timeoutMs,
} as const;

/** What one attempt came to, as the sender saw it. */
export type AttemptOutcome =
  | { readonly kind: "answer"; readonly status: number; readonly body?: string }
  | { readonly kind: "timeout" }
  /** No answer: refused, reset, unresolvable, TLS failure; `code` is Node's (`ECONNREFUSED`). */
  | { readonly kind: "connection"; readonly code: string; readonly message?: string }
  /** Not sent: the address was not public, or the request could not be built. */
  | { readonly kind: "refused"; readonly reason: string };

export type Verdict = "delivered" | "retry" | "failed";

/** What is done after an attempt: delivered, tried again at `retryAt`, or given up. */
export type AttemptVerdict =
  | { readonly verdict: "delivered"; readonly final: true }
  | { readonly verdict: "retry"; readonly final: false; readonly retryAt: Date }
  | { readonly verdict: "failed"; readonly final: true };

/** Whether this outcome may succeed later; the attempt count is not considered. */
export const isRetryable = (outcome: AttemptOutcome): boolean => {
  switch (outcome.kind) {
    case "answer":
      return outcome.status >= 500 && outcome.status <= 599;
    case "timeout":
    case "connection":
      return true;
    case "refused":
      return false;
  }
};

const isDelivered = (outcome: AttemptOutcome): boolean =>
  outcome.kind === "answer" && outcome.status >= 200 && outcome.status <= 299;

/**
 * The verdict on attempt `attempt` (1 to 5), which ended at `endedAt`: a retryable failure
 * before the last attempt is tried again 15 minutes later; anything else is final.
 */
export const verdictOf = (
  outcome: AttemptOutcome,
  attempt: number,
  endedAt: Date,
): AttemptVerdict => {
  if (isDelivered(outcome)) return { verdict: "delivered", final: true };
  if (isRetryable(outcome) && attempt < RETRY_POLICY.maxAttempts) {
    return {
      verdict: "retry",
      final: false,
      retryAt: new Date(endedAt.getTime() + RETRY_POLICY.intervalMs),
    };
  }
  return { verdict: "failed", final: true };
};

/** One attempt as the log keeps it, one record per attempt, for the owner's report. */
export interface AttemptLog {
  /** When the attempt ended (ISO 8601 UTC). */
  readonly time: string;
  /** The URL as sent, with every secret replaced by `***`. */
  readonly url: string;
  readonly method: string;
  /** The answer's status; null when there was none. */
  readonly status: number | null;
  /** The answer's first bytes (at most 1 KiB, whole characters), secrets masked. */
  readonly answer: string | null;
  readonly error: string | null;
  /** 1 to 5. */
  readonly attempt: number;
  /** Whether this attempt was a retry (AppsFlyer marks retried sends the same way). */
  readonly retry: boolean;
  readonly verdict: Verdict;
  readonly final: boolean;
}

export const MASK = "***";

/** Query keys whose values are credentials whatever the template calls them. */
const SECRET_KEY = /key|token|secret|signature|password|passwd|auth|credential/i;

/**
 * Replaces each secret, as it stands and in every form a template writes it (in a URL, as the
 * templates fill it and as encodeURIComponent writes it; in a header, without what a header may
 * not hold; in a JSON body, escaped), with the mask.
 */
export const maskSecrets = (text: string, secrets: readonly string[]): string => {
  let masked = text;
  // Every form of every secret, the longest first: a secret containing another is masked
  // whole, and so is an encoded form that its raw form begins (`a%` in `a%25`).
  const forms = [
    ...new Set(
      secrets.flatMap((s) => [
        s,
        encodeURIComponent(s),
        encodeQueryValue(s),
        headerSafe(s),
        JSON.stringify(s).slice(1, -1),
      ]),
    ),
  ].filter((form) => form.length > 0);
  forms.sort((a, b) => b.length - a.length);
  for (const form of forms) masked = masked.split(form).join(MASK);
  return masked;
};

/**
 * The URL for the log: the advertiser's secret values masked wherever they appear (path,
 * query, a host label), and the value of every query key named like a credential (`dev_token`,
 * `access_token`, `api_key`, `signature`) masked whatever it holds.
 */
export const maskUrl = (text: string, secrets: readonly string[]): string => {
  const masked = maskSecrets(text, secrets);
  const queryAt = masked.indexOf("?");
  if (queryAt < 0) return masked;
  const fragmentAt = masked.indexOf("#", queryAt);
  const end = fragmentAt < 0 ? masked.length : fragmentAt;
  const query = masked
    .slice(queryAt + 1, end)
    .split("&")
    .map((pair) => {
      const at = pair.indexOf("=");
      if (at < 0) return pair;
      let key: string;
      try {
        key = decodeURIComponent(pair.slice(0, at).replace(/\+/g, " "));
      } catch {
        key = pair.slice(0, at);
      }
      return SECRET_KEY.test(key) && pair.slice(at + 1) !== ""
        ? `${pair.slice(0, at)}=${MASK}`
        : pair;
    })
    .join("&");
  return `${masked.slice(0, queryAt + 1)}${query}${masked.slice(end)}`;
};

/** The first `bytes` bytes of a text, cut at a character's boundary, never inside one. */
export const excerpt = (
  text: string,
  bytes: number = REQUEST_LIMITS.answerExcerptBytes,
): string => {
  const encoded = Buffer.from(text, "utf8");
  if (encoded.length <= bytes) return text;
  let end = bytes;
  // A UTF-8 continuation byte (10xxxxxx) is the middle of a character: back off to its start.
  while (end > 0 && ((encoded[end] ?? 0) & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end).toString("utf8");
};

const errorOf = (outcome: AttemptOutcome): string | null => {
  switch (outcome.kind) {
    case "answer":
      return outcome.status >= 300 && outcome.status <= 399 ? "redirect not followed" : null;
    case "timeout":
      return `no answer within ${RETRY_POLICY.timeoutMs / 1000} s`;
    case "connection":
      return outcome.message ? `${outcome.code}: ${outcome.message}` : outcome.code;
    case "refused":
      return `not sent: ${outcome.reason}`;
  }
};

/** The log record of one attempt, secrets masked in the URL, the answer and the error. */
export const attemptLog = (input: {
  readonly url: string;
  readonly method: string;
  readonly outcome: AttemptOutcome;
  readonly attempt: number;
  readonly endedAt: Date;
  /** The advertiser's secret values of this configuration, in clear. */
  readonly secrets: readonly string[];
}): AttemptLog => {
  const { outcome } = input;
  const verdict = verdictOf(outcome, input.attempt, input.endedAt);
  const answer =
    outcome.kind === "answer" && outcome.body !== undefined
      ? // Masked before it is cut, so a secret across the cut cannot leave its first half.
        excerpt(maskSecrets(outcome.body, input.secrets))
      : null;
  const error = errorOf(outcome);
  return {
    time: input.endedAt.toISOString(),
    url: maskUrl(input.url, input.secrets),
    method: input.method,
    status: outcome.kind === "answer" ? outcome.status : null,
    answer,
    error: error === null ? null : maskSecrets(error, input.secrets),
    attempt: input.attempt,
    retry: input.attempt > 1,
    verdict: verdict.verdict,
    final: verdict.final,
  };
};

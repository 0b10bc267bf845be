/**
 * When a postback or webhook is tried again, and what each attempt leaves in the log.
 *
 * A send is tried again only when the partner may take it later: its server failed (5xx), it
 * did not answer in time (10 s, or its own 408), it asks for the request later (425 Too Early,
 * 429 Too Many Requests), or it could not be reached (a connection error). A partner's send
 * follows AppsFlyer's rule: up to 4 more tries 15 minutes apart, 5 in all. A webhook is the
 * app's own backend, whose outage may last a night: its retries grow and span more than a day.
 * An answer's Retry-After may make the next delay longer (up to the 15 minutes a queue's message
 * can be delayed), never shorter: a webhook's backend that says "in a second" would otherwise
 * use up its attempts within a minute. Any other 4xx is the partner refusing this request, which a retry would only
 * repeat; a redirect (3xx) is never followed (it could lead anywhere, a private address
 * included) and is final too, as is a request the service refused to make (an unsafe address).
 */
import { MINUTE_MS, SECOND_MS } from "../domain/time.ts";
import type { SendTarget } from "../ports/postbacks.ts";
import type { AnswerCheck } from "./partners.ts";
import { encodeQueryValue, headerSafe } from "./templates.ts";
import { REQUEST_LIMITS } from "./url-safety.ts";

/**
 * The longest a queue delays a message: SQS's 15 minutes. A later attempt is reached through
 * messages of at most this delay, one after another (src/workers/postback-worker.ts).
 */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/** How a send is tried again: how many attempts in all, and the delay after each failed one. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  /** The delay after attempt n (its index n - 1), from its end to the next attempt. */
  readonly delaysMs: readonly number[];
  readonly timeoutMs: number;
}

/** A partner's: the first try and 4 retries, 15 minutes apart (AppsFlyer's rule). */
export const RETRY_POLICY = {
  maxAttempts: 5,
  delaysMs: [15, 15, 15, 15].map((minutes) => minutes * MINUTE_MS),
  timeoutMs: REQUEST_LIMITS.timeoutMs,
} as const satisfies RetryPolicy;

/**
 * A webhook's: the first try and 9 retries, 1 minute to 12 hours apart, about 28 hours in all,
 * so a backend down for a night still hears of every install and event.
 */
export const WEBHOOK_RETRY_POLICY = {
  maxAttempts: 10,
  delaysMs: [1, 5, 15, 30, 60, 120, 240, 480, 720].map((minutes) => minutes * MINUTE_MS),
  timeoutMs: REQUEST_LIMITS.timeoutMs,
} as const satisfies RetryPolicy;

/** The most attempts any send makes: what a queued attempt's number may be. */
export const MAX_ATTEMPTS = Math.max(RETRY_POLICY.maxAttempts, WEBHOOK_RETRY_POLICY.maxAttempts);

export const retryPolicyOf = (target: SendTarget): RetryPolicy =>
  target === "webhook" ? WEBHOOK_RETRY_POLICY : RETRY_POLICY;

/** What one attempt came to, as the sender saw it. */
export type AttemptOutcome =
  | {
      readonly kind: "answer";
      readonly status: number;
      readonly body?: string;
      /** The answer's Retry-After header, as it came. */
      readonly retryAfter?: string;
      /**
       * A 2xx whose body refuses the request, as a partner's answer check reads it (`judged`):
       * its field and code, and whether the code asks for the request later.
       */
      readonly refusal?: { readonly field: string; readonly code: string; readonly later: boolean };
    }
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

/**
 * The 4xx answers that ask for the same request later: 408 Request Timeout (the server gave up
 * waiting for it), 425 Too Early, 429 Too Many Requests.
 */
const LATER = new Map([
  [408, "request timeout"],
  [425, "too early"],
  [429, "too many requests"],
]);

/**
 * The outcome as the partner meant it: a 2xx whose JSON body gives the check's field a code not
 * among its `ok` ones is a refusal, tried again only for a `later` code. A body that is no JSON,
 * cut short, or without the field is judged by its status alone.
 */
export const judged = (outcome: AttemptOutcome, check: AnswerCheck | undefined): AttemptOutcome => {
  if (!check || outcome.kind !== "answer" || outcome.status < 200 || outcome.status > 299) {
    return outcome;
  }
  let code: unknown;
  try {
    const body: unknown = JSON.parse(outcome.body ?? "");
    code =
      typeof body === "object" && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)[check.field]
        : undefined;
  } catch {
    return outcome;
  }
  if (typeof code !== "number" && typeof code !== "string") return outcome;
  const among = (codes: readonly (number | string)[]) =>
    codes.some((known) => String(known) === String(code));
  if (among(check.ok)) return outcome;
  return {
    ...outcome,
    refusal: { field: check.field, code: String(code), later: among(check.later) },
  };
};

/** Whether this outcome may succeed later; the attempt count is not considered. */
export const isRetryable = (outcome: AttemptOutcome): boolean => {
  switch (outcome.kind) {
    case "answer":
      if (outcome.refusal) return outcome.refusal.later;
      return (outcome.status >= 500 && outcome.status <= 599) || LATER.has(outcome.status);
    case "timeout":
    case "connection":
      return true;
    case "refused":
      return false;
  }
};

const isDelivered = (outcome: AttemptOutcome): boolean =>
  outcome.kind === "answer" &&
  outcome.status >= 200 &&
  outcome.status <= 299 &&
  outcome.refusal === undefined;

/**
 * The longest a Retry-After is waited for: a later attempt is reached through queue messages of
 * at most 15 minutes each (src/workers/postback-worker.ts), so the bound is the service's: a
 * partner asking for a day is tried again after six hours, its send not held for the day.
 */
export const MAX_RETRY_AFTER_MS = 6 * 60 * MINUTE_MS;

/**
 * How long an answer's Retry-After asks to wait from `endedAt` (delay-seconds, or an HTTP date),
 * as it asks; null when it has none or none that reads.
 */
export const retryAfterMs = (value: string | undefined, endedAt: Date): number | null => {
  const text = value?.trim() ?? "";
  if (text === "") return null;
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * SECOND_MS;
  else {
    const at = Date.parse(text);
    // Only an HTTP date (`Wed, 21 Oct 2026 07:28:00 GMT`): Date.parse reads much else.
    if (
      !/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text) ||
      !Number.isFinite(at)
    ) {
      return null;
    }
    ms = at - endedAt.getTime();
  }
  return Math.max(0, ms);
};

/**
 * The verdict on attempt `attempt`, which ended at `endedAt`: a retryable failure before the
 * policy's last attempt is tried again after the policy's delay, or after the answer's
 * Retry-After when it asks for longer; anything else is final.
 */
export const verdictOf = (
  outcome: AttemptOutcome,
  attempt: number,
  endedAt: Date,
  policy: RetryPolicy = RETRY_POLICY,
): AttemptVerdict => {
  if (isDelivered(outcome)) return { verdict: "delivered", final: true };
  if (isRetryable(outcome) && attempt < policy.maxAttempts) {
    const asked = outcome.kind === "answer" ? retryAfterMs(outcome.retryAfter, endedAt) : null;
    const scheduled = policy.delaysMs[attempt - 1] ?? policy.delaysMs.at(-1) ?? 0;
    return {
      verdict: "retry",
      final: false,
      // Retry-After is the least the partner asks to wait: never sooner than the policy's own,
      // never past the service's bound.
      retryAt: new Date(
        endedAt.getTime() + Math.max(Math.min(asked ?? 0, MAX_RETRY_AFTER_MS), scheduled),
      ),
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
  /** 1 to its policy's last. */
  readonly attempt: number;
  /** Whether this attempt was a retry (AppsFlyer marks retried sends the same way). */
  readonly retry: boolean;
  readonly verdict: Verdict;
  readonly final: boolean;
  /** Why a send was skipped: none for an attempt that was made. */
  readonly reason: null;
}

/** The log's record of a send skipped in place of attempt `attempt`: no request was made. */
export interface SkipLog extends Omit<AttemptLog, "verdict" | "final" | "reason"> {
  readonly verdict: "skipped";
  readonly final: true;
  /** Why: a code (`no_consent`, `missing:advertising_id`, …). */
  readonly reason: string;
}

export const MASK = "***";

/** Query keys whose values are credentials whatever the template calls them. */
const SECRET_KEY = /key|token|secret|signature|password|passwd|auth|credential|hmac/i;
/**
 * Short names that are credentials only whole: a signed URL's `sig` (Azure Logic Apps, SAS), an
 * Azure Function's `code`, a `pwd`, where "code" or "sig" inside a longer name is not.
 */
const SECRET_NAME = /^(sig|code|pwd|pass)$/i;

/** Whether a query key or a header is named like a credential (`access_token`, `Authorization`). */
export const isCredentialName = (name: string): boolean =>
  SECRET_KEY.test(name) || SECRET_NAME.test(name);

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
 * A path segment that reads as a credential: long, of letters and digits both, or of 20 letters
 * or more in both cases (a Slack token that drew no digit). Incoming-hook URLs (Slack's,
 * Discord's, a chat's) carry their secret so, where a query would name it.
 */
const CREDENTIAL_SEGMENT =
  /^(?:(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{16,}|(?=[\w-]*[a-z])(?=[\w-]*[A-Z])[\w-]{20,})$/;

/**
 * Hook hosts whose URLs end in a secret too short to read as one (Zapier's hook id, `oe7ts8z`,
 * 7 characters, letters alone as often as not): their last path segment is masked whatever it
 * reads as, the ids before it (Zapier's account) shown. Elsewhere a short last segment
 * (`/webhook2`, `/prod01`) is the owner's own path, shown.
 */
const SHORT_SECRET_HOOK_HOSTS = new Set(["hooks.zapier.com"]);

/**
 * A host's first label that reads as a credential: of letters and digits both, 12 characters or
 * more, as a hook host names its endpoint (Pipedream's `eo1a2b3c4d5e6f7.m.pipedream.net`), where
 * a host of its own (`api2.example.com`) has a short one.
 */
const CREDENTIAL_LABEL = /^(?=[a-z0-9-]*\d)(?=[a-z0-9-]*[a-z])[a-z0-9-]{12,}$/i;

/**
 * The path segments of a configured URL that read as credentials, and its host's first label
 * when it does: masked wherever the URL's answers and its attempts' records show them. Of a
 * configured URL only, never of one a template filled, whose path may carry a click id or a
 * device id the log is to show.
 */
export const credentialSegmentsOf = (url: string): string[] => {
  const authority = url.indexOf("//");
  if (authority < 0) return [];
  const endOf = (from: number, marks: readonly string[]) => {
    const found = marks.map((mark) => url.indexOf(mark, from)).filter((at) => at >= 0);
    return found.length > 0 ? Math.min(...found) : url.length;
  };
  const pathStart = endOf(authority + 2, ["/", "?", "#"]);
  const hostName = url.slice(authority + 2, pathStart).split(":")[0] ?? "";
  const label = hostName.split(".")[0] ?? "";
  // A host of one label (`localhost`) names no endpoint: only the first label of a longer name.
  const host = CREDENTIAL_LABEL.test(label) && hostName.includes(".") ? [label] : [];
  if (url[pathStart] !== "/") return host;
  const segments = url
    .slice(pathStart, endOf(pathStart, ["?", "#"]))
    .split("/")
    .filter((segment) => segment !== "");
  const last = segments.length - 1;
  const shortSecret = SHORT_SECRET_HOOK_HOSTS.has(hostName.toLowerCase());
  const path = segments.filter(
    (segment, at) =>
      CREDENTIAL_SEGMENT.test(segment) || (at === last && shortSecret && /^[\w-]+$/.test(segment)),
  );
  return [...host, ...path];
};

/**
 * What of a configured URL is a credential: the path segments that read as one, and the value
 * of each query key named like one, as written and decoded. The log's URL masks these already
 * (maskUrl); an answer, an error or a body that echoes the URL needs them named to mask them.
 */
export const urlCredentialsOf = (url: string): string[] => {
  const credentials = credentialSegmentsOf(url);
  const queryAt = url.indexOf("?");
  if (queryAt < 0) return credentials;
  const fragmentAt = url.indexOf("#", queryAt);
  const query = url.slice(queryAt + 1, fragmentAt < 0 ? url.length : fragmentAt);
  for (const pair of query.split("&")) {
    const at = pair.indexOf("=");
    if (at < 0 || !isCredentialName(pair.slice(0, at))) continue;
    const value = pair.slice(at + 1);
    if (value === "") continue;
    credentials.push(value);
    try {
      const decoded = decodeURIComponent(value.replaceAll("+", " "));
      if (decoded !== value) credentials.push(decoded);
    } catch {
      // Not percent-encoding as written: the value as written is all an echo can hold.
    }
  }
  return credentials;
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
      return isCredentialName(key) && pair.slice(at + 1) !== ""
        ? `${pair.slice(0, at)}=${MASK}`
        : pair;
    })
    .join("&");
  return `${masked.slice(0, queryAt + 1)}${query}${masked.slice(end)}`;
};

/** The texts of a parsed JSON value that lie under a key named like a credential, at any depth. */
export const textsUnderCredentials = (value: unknown, underCredential = false): string[] => {
  if (typeof value === "string") return underCredential ? [value] : [];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, item]) =>
    textsUnderCredentials(
      item,
      underCredential || (!Array.isArray(value) && isCredentialName(key)),
    ),
  );
};

/**
 * A JSON body with every text or number under a key named like a credential masked whole
 * (`"access_token": "***"`, a numeric key too), as a credential header and a credential query
 * value are; a body with none, or that is no JSON, as it is (its own spacing kept).
 */
export const maskBodyCredentials = (body: string): string => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  let masked = false;
  const walk = (value: unknown, underCredential: boolean): unknown => {
    if (typeof value === "string" || typeof value === "number") {
      if (!underCredential || value === "") return value;
      masked = true;
      return MASK;
    }
    if (Array.isArray(value)) return value.map((item) => walk(item, underCredential));
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        walk(item, underCredential || isCredentialName(key)),
      ]),
    );
  };
  const shown = walk(parsed, false);
  return masked ? JSON.stringify(shown) : body;
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

const errorOf = (
  outcome: AttemptOutcome,
  verdict: AttemptVerdict,
  endedAt: Date,
): string | null => {
  switch (outcome.kind) {
    case "answer": {
      if (outcome.status >= 300 && outcome.status <= 399) return "redirect not followed";
      const later = LATER.get(outcome.status);
      // What the partner asked for, and when it is tried again: a partner that limits its rate
      // is then not asked sooner than it said.
      const asked = verdict.verdict === "retry" ? retryAfterMs(outcome.retryAfter, endedAt) : null;
      const waited =
        verdict.verdict === "retry" ? verdict.retryAt.getTime() - endedAt.getTime() : 0;
      const when =
        asked === null
          ? ""
          : `, tried again in ${Math.round(waited / SECOND_MS)} s${
              waited === asked
                ? " as its Retry-After asks"
                : waited > asked
                  ? ", later than its Retry-After asks"
                  : `, sooner than its Retry-After asks (at most ${MAX_RETRY_AFTER_MS / (60 * MINUTE_MS)} hours)`
            }`;
      if (outcome.refusal) {
        const { field, code } = outcome.refusal;
        return outcome.refusal.later
          ? `answered ${outcome.status} with ${field} ${code}: the partner asks for it later${when}`
          : `answered ${outcome.status} with ${field} ${code}: the partner refused it`;
      }
      if (later)
        return `answered ${outcome.status} (${later}): the partner asks for it later${when}`;
      return when === "" ? null : `answered ${outcome.status}${when}`;
    }
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
  /** The send's retry policy (a partner's unless given). */
  readonly policy?: RetryPolicy;
}): AttemptLog => {
  const { outcome } = input;
  const verdict = verdictOf(outcome, input.attempt, input.endedAt, input.policy);
  const answer =
    outcome.kind === "answer" && outcome.body !== undefined
      ? // Masked before it is cut, so a secret across the cut cannot leave its first half.
        excerpt(maskSecrets(outcome.body, input.secrets))
      : null;
  const error = errorOf(outcome, verdict, input.endedAt);
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
    reason: null,
  };
};

/** A final record of attempt `attempt` that made no request: no URL, method, status or answer. */
const unsentRecord = (attempt: number, at: Date) =>
  ({
    time: at.toISOString(),
    url: "",
    method: "",
    status: null,
    answer: null,
    attempt,
    retry: attempt > 1,
    final: true,
  }) as const;

/**
 * The log's record of attempt `attempt` given up on the service's side (a store out of reach
 * through every delivery of its message): no request is known to have been made.
 */
export const serviceFailureLog = (input: {
  readonly attempt: number;
  readonly at: Date;
  readonly error: string;
}): AttemptLog => ({
  ...unsentRecord(input.attempt, input.at),
  error: input.error,
  verdict: "failed",
  reason: null,
});

/**
 * The log record of a send skipped where attempt `attempt` would have been made: nothing was
 * sent, so it has no URL, method, status or answer, only why.
 */
export const skipLog = (input: {
  readonly attempt: number;
  readonly at: Date;
  readonly reason: string;
}): SkipLog => ({
  ...unsentRecord(input.attempt, input.at),
  error: null,
  verdict: "skipped",
  reason: input.reason,
});

/**
 * The sender of postbacks and webhooks: one attempt is one request over Node's HTTP client,
 * through an agent whose lookup checks every address a connection it opens may go to, and
 * which keeps connections a few seconds for the next attempt to the same host
 * (src/postbacks/url-safety.ts's safeAgentOptions). A literal address in the URL, which no
 * lookup sees, is checked before anything is sent. No redirect is followed (Node's client
 * follows none: a 3xx is the answer), at most 64 KiB of the answer is read, and an attempt
 * with no answer's status within 10 s is a time-out; one whose status came but whose body had
 * not ended by then is that answer, with the part of its body that came.
 *
 * A kept connection reset before any answer is a connection error like any other, and the
 * request is not made again within the attempt: the partner may have taken it before the reset
 * (a server that reads a request, then fails), and a second identical request would count the
 * conversion twice. The send's next attempt, on its schedule, is marked a retry (`{retry}`), by
 * which a partner tells a repeat.
 */
import { lookup as dnsLookup } from "node:dns";
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { OutgoingRequest, PostbackSender, SendOutcome } from "../../ports/postbacks.ts";
import {
  checkUrlSyntax,
  isUnsafeAddressError,
  type LookupAll,
  REQUEST_LIMITS,
  safeAgentOptions,
} from "../../postbacks/url-safety.ts";

export interface HttpSenderOptions {
  /** Loopback allowed (and http to it): tests' mock partners only. */
  readonly allowLoopback: boolean;
  /** Resolves a name to every address it has; `dns.lookup` unless given. */
  readonly lookup?: LookupAll;
  readonly timeoutMs?: number;
  /** How long an idle connection is kept for the next attempt to its host. */
  readonly keepIdleMs?: number;
}

/** What the service calls itself when a template sets no User-Agent of its own. */
export const POSTBACK_USER_AGENT = "attribution-service-postbacks/1";

const hasHeader = (headers: Readonly<Record<string, string>>, name: string) =>
  Object.keys(headers).some((key) => key.toLowerCase() === name);

/**
 * Reads the first `max` bytes of an answer's body, the rest not read: the body once it ended
 * (or reached its bound), and what has come of it so far, for an answer cut short.
 */
const readBounded = (response: IncomingMessage, max: number) => {
  const chunks: Buffer[] = [];
  let size = 0;
  const sofar = () => Buffer.concat(chunks).subarray(0, max).toString("utf8");
  const whole = new Promise<string>((resolve, reject) => {
    response.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= max) {
        response.destroy();
        resolve(sofar());
      }
    });
    response.on("end", () => resolve(sofar()));
    response.on("error", reject);
  });
  return { whole, sofar };
};

export const createHttpSender = (options: HttpSenderOptions): PostbackSender => {
  const base = options.lookup ?? (dnsLookup as unknown as LookupAll);
  const agentOptions = safeAgentOptions(
    base,
    { allowLoopback: options.allowLoopback },
    options.keepIdleMs,
  );
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
  const timeoutMs = options.timeoutMs ?? REQUEST_LIMITS.timeoutMs;

  /** One attempt, within the time-out, so that it never outlasts the worker's claim on it. */
  const attempt = (request: OutgoingRequest, url: URL): Promise<SendOutcome> =>
    new Promise<SendOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: SendOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const headers: Record<string, string> = { ...request.headers };
      if (!hasHeader(headers, "user-agent")) headers["User-Agent"] = POSTBACK_USER_AGENT;
      if (request.body !== null) {
        headers["Content-Length"] = String(Buffer.byteLength(request.body, "utf8"));
      }
      const https = url.protocol === "https:";
      const outgoing = (https ? httpsRequest : httpRequest)(url, {
        method: request.method,
        headers,
        agent: https ? agents.https : agents.http,
      });
      /** The answer's status and what has come of its body, once its head is in. */
      let answer:
        | {
            readonly status: number;
            readonly sofar: () => string;
            readonly later: { readonly retryAfter?: string };
          }
        | undefined;
      const timer = setTimeout(() => {
        // A status in time is the partner's answer, whether or not its body ended: a 2xx whose
        // body stalls was received, and trying it again would send it twice.
        finish(
          answer
            ? { kind: "answer", status: answer.status, body: answer.sofar(), ...answer.later }
            : { kind: "timeout" },
        );
        outgoing.destroy();
      }, timeoutMs);
      outgoing.on("response", (response) => {
        const status = response.statusCode ?? 0;
        const read = readBounded(response, REQUEST_LIMITS.maxAnswerReadBytes);
        // When to ask again, for a partner that limits its rate (src/postbacks/retries.ts).
        const retryAfter = response.headers["retry-after"];
        const later = retryAfter === undefined ? {} : { retryAfter };
        answer = { status, sofar: read.sofar, later };
        read.whole.then(
          (body) => finish({ kind: "answer", status, body, ...later }),
          // The answer's status came; its body was cut off.
          () => finish({ kind: "answer", status, body: read.sofar(), ...later }),
        );
      });
      outgoing.on("error", (error: NodeJS.ErrnoException) => {
        // A connection cut once the status came (a reset in the body) leaves the partner's
        // answer standing: a 2xx was received, and trying it again would send it twice.
        if (answer) {
          finish({ kind: "answer", status: answer.status, body: answer.sofar(), ...answer.later });
          return;
        }
        if (isUnsafeAddressError(error)) {
          finish({ kind: "refused", reason: error.message });
          return;
        }
        finish({ kind: "connection", code: error.code ?? "ERROR", message: error.message });
      });
      outgoing.end(request.body ?? undefined);
    });

  return {
    async send(request) {
      const checked = checkUrlSyntax(request.url, { allowLoopback: options.allowLoopback });
      if (!checked.ok) return { kind: "refused", reason: `the URL ${checked.problem}` };
      return attempt(request, checked.url);
    },
  };
};

/**
 * What the gateway in front of the handlers answers by itself, written once for both runtimes:
 * the embedded gateway sends these, and the CDK API's gateway responses
 * (lib/gateway-responses.ts) carry the same details. API Gateway cannot tell a missing key
 * from a bad one or a key without the route's scope, so neither does the embedded gateway.
 */
import { UnauthorizedError } from "../domain/errors.ts";
import { INTERNAL_ERROR_DETAIL } from "./errors.ts";

export const GATEWAY_ERRORS = {
  /** No route matches the method and path. */
  noRoute: { status: 404, detail: "No endpoint matches this method and path." },
  /** No key, an unknown or revoked one, or one without the route's scope. */
  unauthorized: { status: 401, detail: new UnauthorizedError().message },
  tooLarge: { status: 413, detail: "The request body is too large." },
  /**
   * The embedded listener's own: a body sent to a route that takes none (a GET, a tap), which
   * it refuses rather than hold (src/embedded/body-limits.ts).
   */
  noBody: { status: 413, detail: "This route takes no request body." },
  throttled: { status: 429, detail: "Too many requests. Retry later." },
  quotaExceeded: { status: 429, detail: "Request quota exceeded." },
  internal: { status: 500, detail: INTERNAL_ERROR_DETAIL },
  /** The embedded listener's own: a request HTTP cannot parse. */
  malformed: { status: 400, detail: "The request is not valid HTTP." },
  /** The embedded listener's own: headers or the whole request not received in time. */
  slow: { status: 408, detail: "The request was not received in time." },
  /** The embedded listener's own: the request line and headers over Node's 16 KiB. */
  headersTooLarge: { status: 431, detail: "The request's headers are too large." },
} as const satisfies Record<string, { status: number; detail: string }>;

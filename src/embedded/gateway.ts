/**
 * The embedded HTTP front door: what API Gateway does on AWS, built from the same route table.
 * It runs the same authorizer and handlers with API Gateway-shaped events, and answers
 * gateway errors (no route, no key, denied) with the same JSON bodies as the deployed API.
 */

import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { type Duplex, Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayRequestAuthorizerEvent,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from "aws-lambda";
import FindMyWay, { type HTTPVersion } from "find-my-way";
import { UnavailableError } from "../domain/errors.ts";
import { SESSION_ROUTE_SCOPES } from "../domain/sessions.ts";
import { type ErrorBody, statusName, toErrorResponse } from "../http/errors.ts";
import { GATEWAY_ERRORS } from "../http/gateway-errors.ts";
import { UNAUTHORIZED } from "../http/handlers/authorizer.ts";
import type { HttpResponse } from "../http/middleware.ts";
import { isAllowed, type PolicyDocument } from "../http/policy.ts";
import type { Route } from "../http/routes.ts";
import { callerAddressFrom, type TrustProxy } from "../http/trust-proxy.ts";
import { logger } from "../logging/logger.ts";
import type { SelfSendingBody } from "../ports/lake.ts";
import {
  type BodyBudget,
  type BodyLease,
  DRAINED_BODY_BYTES,
  drainBody,
  type LambdaBody,
  lambdaBody,
  PROCESS_BODY_BUDGET,
  readBody,
} from "./request-body.ts";

export type RouteHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<HttpResponse>;
export type Authorizer = (
  event: APIGatewayTokenAuthorizerEvent | APIGatewayRequestAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

/** A route the dashboard calls with a session as well as a key calls with its key. */
export const sessionRoute = (route: Route): boolean =>
  route.scope !== null && (SESSION_ROUTE_SCOPES as readonly string[]).includes(route.scope);

/** The REQUEST authorizer's event, as API Gateway builds it for a route without caching. */
const requestAuthorizerEvent = (
  request: GatewayRequest,
  url: URL,
  methodArn: string,
  route: Route,
  params: Record<string, string | undefined>,
): APIGatewayRequestAuthorizerEvent => {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(request.headers)) {
    if (values?.[0] !== undefined) headers[name] = values.join(name === "cookie" ? "; " : ", ");
  }
  const query = Object.fromEntries(url.searchParams.entries());
  const pathParameters = Object.fromEntries(
    Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return {
    type: "REQUEST",
    methodArn,
    resource: route.path,
    path: url.pathname,
    httpMethod: route.method,
    headers,
    multiValueHeaders: null,
    pathParameters,
    queryStringParameters: query,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: null as unknown as APIGatewayRequestAuthorizerEvent["requestContext"],
  };
};

export interface GatewayOptions {
  /**
   * Each route with its handler and the most bytes of body it takes (0: none), which is what
   * the gateway reads of a request's body at most (./body-limits.ts for the service's routes).
   */
  readonly routes: readonly { route: Route; handler: RouteHandler; maxBodyBytes: number }[];
  readonly authorizer: Authorizer;
  /**
   * What the bodies being read and handled may hold together: the process's one total by
   * default, shared by every listener.
   */
  readonly bodyBudget?: BodyBudget;
  /** Runs as each request arrives, before anything else reads a store for it. */
  readonly onRequest?: () => void;
  /**
   * Whose `X-Forwarded-For` names the caller (src/http/trust-proxy.ts); none by default: a
   * client could name any address there.
   */
  readonly trustProxy?: TrustProxy;
  /**
   * The answer to a path no route takes (the dashboard's files on the API's listener); by
   * default the API's JSON 404.
   */
  readonly notFound?: (request: { method: string; path: string }) => HttpResponse | undefined;
  /**
   * The answer to what the listener refuses by itself before a route is known (a request it
   * cannot parse, headers too large, a client too slow); by default the API's JSON error.
   */
  readonly clientErrorPage?: (error: { status: number; detail: string }) => HttpResponse;
  /** How long the listener waits on a client; LISTENER_TIMEOUTS by default. */
  readonly timeouts?: ListenerTimeouts;
}

/** How long the listeners wait on a client: stated in docs/configuration.md (Listeners). */
export const LISTENER_TIMEOUTS = {
  /** From the connection (or the previous answer) to the end of the request's headers. */
  headersMs: 10_000,
  /** To the end of the request's body. */
  requestMs: 30_000,
  /** An idle kept-alive connection. */
  keepAliveMs: 5_000,
};

export type ListenerTimeouts = typeof LISTENER_TIMEOUTS;

/** A request as the gateway reads it, from a socket or from a test. */
export interface GatewayRequest {
  readonly method: string;
  /** The path and query, as in the request line. */
  readonly url: string;
  /** Lower-case names, each with every value it was sent with (Node's `headersDistinct`). */
  readonly headers: Readonly<Record<string, readonly string[] | undefined>>;
  readonly body: Readable;
  readonly remoteAddress?: string;
  readonly httpVersion?: string;
}

/**
 * The gateway without a socket: a request in, the answer out (undefined when the client left
 * before it could be answered). Every failure before an answer exists is answered here, as
 * API Gateway would: a typed error under 500 as itself, anything else as a hidden, logged 500.
 */
export type Dispatch = (request: GatewayRequest) => Promise<HttpResponse | undefined>;

/** Node answers 431 to a request line and headers over 16 KiB: no path parameter is longer. */
const MAX_PATH_PARAMETER_LENGTH = 16 * 1024;

const API_ID = "embedded";
const STAGE = "local";

const errorResponse = (statusCode: number, detail: string): HttpResponse => {
  const body: ErrorBody = { error: statusName(statusCode), detail };
  return {
    statusCode,
    headers: { "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify(body),
  };
};

const gatewayError = (error: (typeof GATEWAY_ERRORS)[keyof typeof GATEWAY_ERRORS]) =>
  errorResponse(error.status, error.detail);

/**
 * An answer given before the body is read whole: the rest of it is not read, so the
 * connection closes after the answer.
 */
const closing = (response: HttpResponse): HttpResponse => ({
  ...response,
  headers: { ...response.headers, connection: "close" },
});

/** The length a request's headers declare for its body, if they do. */
const declaredLength = (request: GatewayRequest): number | undefined => {
  const value = request.headers["content-length"]?.[0];
  return value === undefined ? undefined : Number(value);
};

const lambdaContext = (functionName: string, timeoutSeconds: number): Context => {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: "512",
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: requestId,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

/**
 * API Gateway's two header (or query) maps; the single-value one keeps a repeated name's last.
 * They have no prototype, so a name such as `__proto__` or `toString` is a key like any other.
 */
const singleAndMulti = (entries: Iterable<[string, string]>) => {
  const multi: Record<string, string[]> = Object.create(null);
  const single: Record<string, string> = Object.create(null);
  for (const [name, value] of entries) {
    const values = multi[name];
    if (values) values.push(value);
    else multi[name] = [value];
    single[name] = value;
  }
  return { single, multi };
};

/**
 * Whether a body follows the headers: HTTP/1.1 has one only where they give its length or its
 * chunked encoding. A tap has none, and is spared the stream's reading; one whose client left
 * meanwhile is still read, and so answered no more than before.
 */
const hasBody = (request: GatewayRequest): boolean =>
  request.headers["content-length"] !== undefined ||
  request.headers["transfer-encoding"] !== undefined ||
  request.body.destroyed;

/**
 * The request's target as a URL: its path and query (origin form), read as a path even where it
 * begins `//`, which a URL would read as a host (`//[` cannot be one); a proxy's absolute form
 * by its own path; anything else, no path a route has.
 */
const requestUrl = (target: string): URL => {
  try {
    return new URL(target.startsWith("/") ? `http://gateway${target}` : target);
  } catch {
    return new URL("http://gateway/*");
  }
};

export const createDispatch = (options: GatewayOptions): Dispatch => {
  const bodyBudget = options.bodyBudget ?? PROCESS_BODY_BUDGET;
  const callerOf = callerAddressFrom(options.trustProxy ?? false);
  // API Gateway hands a path parameter of any length to the handler, which judges it (a long
  // `service_id` is a 422); find-my-way would match no route past 100 characters, a 404.
  // API Gateway routes `/a/` as `/a`: so does this (Apple's devices post to a path ending in /).
  const router = FindMyWay<HTTPVersion.V1>({
    maxParamLength: MAX_PATH_PARAMETER_LENGTH,
    ignoreTrailingSlash: true,
  });
  for (const entry of options.routes) {
    // find-my-way writes path parameters as :name where API Gateway writes {name}.
    const path = entry.route.path.replace(/\{([^}]+)\}/g, ":$1");
    router.on(entry.route.method, path, () => undefined, entry);
  }

  const dispatch = async (
    request: GatewayRequest,
    lease: BodyLease,
  ): Promise<HttpResponse | undefined> => {
    options.onRequest?.();
    const url = requestUrl(request.url);
    const method = request.method;
    const found = router.find(method === "HEAD" ? "GET" : (method as "GET"), url.pathname);
    if (!found?.store) {
      return (
        options.notFound?.({ method, path: url.pathname }) ?? gatewayError(GATEWAY_ERRORS.noRoute)
      );
    }
    const { route, handler, maxBodyBytes } = found.store as GatewayOptions["routes"][number];
    // A body longer than the route takes is refused from its declared length, before anything
    // else is asked for it, and none of it kept: read through and dropped up to API Gateway's
    // limit, so that its client reads the 413 (./request-body.ts), refused at once past it.
    const declared = declaredLength(request) ?? 0;
    const refused = maxBodyBytes === 0 ? GATEWAY_ERRORS.noBody : GATEWAY_ERRORS.tooLarge;
    if (declared > maxBodyBytes) {
      if (declared <= DRAINED_BODY_BYTES) await drainBody(request.body, DRAINED_BODY_BYTES);
      return closing(gatewayError(refused));
    }
    // API Gateway names the route in the method ARN as it routed it, without a trailing slash,
    // which is how the authorizer's policy names it too.
    const arnPath = url.pathname.length > 1 ? url.pathname.replace(/\/$/, "") : url.pathname;
    const methodArn = `arn:aws:execute-api:local:000000000000:${API_ID}/${STAGE}/${route.method}${arnPath}`;

    // A public route (null scope) has no authorizer on AWS either: any key, or none, is let in.
    let authorizer: APIGatewayAuthorizerResult | undefined;
    if (route.scope !== null) {
      // Two keys in one request are refused, as neither can be told to be the one meant.
      if ((request.headers.authorization?.length ?? 0) > 1) {
        return gatewayError(GATEWAY_ERRORS.unauthorized);
      }
      const token = request.headers.authorization?.[0];
      // The routes the dashboard calls take a session cookie instead of a key: on AWS a
      // REQUEST authorizer (uncached) sees the whole request, and so does the authorizer here.
      const withSession = !token && sessionRoute(route);
      if (!token && !withSession) return gatewayError(GATEWAY_ERRORS.unauthorized);
      try {
        authorizer = await options.authorizer(
          token
            ? { type: "TOKEN", authorizationToken: token, methodArn }
            : requestAuthorizerEvent(request, url, methodArn, route, found.params),
          lambdaContext("authorizer", 10),
        );
      } catch (error) {
        // As API Gateway does: only the authorizer's own "Unauthorized" is a 401; any other
        // failure (a store down, a bug) is a 500.
        if (!(error instanceof Error && error.message === UNAUTHORIZED)) throw error;
        return gatewayError(GATEWAY_ERRORS.unauthorized);
      }
      if (!isAllowed(authorizer.policyDocument as PolicyDocument, methodArn)) {
        return gatewayError(GATEWAY_ERRORS.unauthorized);
      }
    }

    let body: LambdaBody;
    try {
      body = lambdaBody(
        hasBody(request) ? await readBody(request.body, maxBodyBytes, lease) : null,
      );
    } catch (error) {
      if (error instanceof RangeError) return closing(gatewayError(refused));
      if (error instanceof UnavailableError) {
        const { statusCode, body, headers } = toErrorResponse(error);
        const busy = errorResponse(statusCode, body.detail);
        return closing({ ...busy, headers: { ...busy.headers, ...headers } });
      }
      return undefined; // nobody is left to answer
    }
    const headers = singleAndMulti(
      Object.entries(request.headers).flatMap(([k, values]) =>
        (values ?? []).map((v): [string, string] => [k, v]),
      ),
    );
    const query = singleAndMulti(url.searchParams.entries());
    const sourceIp = callerOf(
      request.remoteAddress ?? "127.0.0.1",
      request.headers["x-forwarded-for"] ?? [],
    );
    const event: APIGatewayProxyEvent = {
      resource: route.path,
      path: url.pathname,
      // As API Gateway names it: a HEAD taken by a GET route is still a HEAD to its handler.
      httpMethod: method,
      headers: headers.single,
      multiValueHeaders: headers.multi,
      queryStringParameters: url.search ? query.single : null,
      multiValueQueryStringParameters: url.search ? query.multi : null,
      pathParameters:
        Object.keys(found.params).length > 0
          ? Object.assign(Object.create(null), found.params)
          : null,
      stageVariables: null,
      ...body,
      requestContext: {
        accountId: "000000000000",
        apiId: API_ID,
        stage: STAGE,
        protocol: `HTTP/${request.httpVersion ?? "1.1"}`,
        httpMethod: method,
        path: `/${STAGE}${url.pathname}`,
        resourcePath: route.path,
        resourceId: route.id,
        requestId: randomUUID(),
        requestTimeEpoch: Date.now(),
        authorizer: authorizer
          ? { ...authorizer.context, principalId: authorizer.principalId }
          : undefined,
        identity: {
          sourceIp,
          userAgent: request.headers["user-agent"]?.[0] ?? null,
          accessKey: null,
          accountId: null,
          apiKey: null,
          apiKeyId: null,
          caller: null,
          clientCert: null,
          cognitoAuthenticationProvider: null,
          cognitoAuthenticationType: null,
          cognitoIdentityId: null,
          cognitoIdentityPoolId: null,
          principalOrgId: null,
          user: null,
          userArn: null,
        },
      },
    };
    return handler(event, lambdaContext(route.id, route.timeoutSeconds));
  };

  return async (request) => {
    // The body is held until the handler is done with it, however the request ends.
    const lease = bodyBudget.lease();
    try {
      return await dispatch(request, lease);
    } catch (error) {
      logger.error("gateway failure", {
        method: request.method,
        path: request.url.split("?")[0],
        error,
      });
      const { statusCode, body } = toErrorResponse(error);
      return errorResponse(statusCode, body.detail);
    } finally {
      lease.release();
    }
  };
};

/** A gateway's server, which can say when the requests it took have all been answered. */
export type GatewayServer = Server & {
  /** Resolves once every request taken so far is answered (or has failed). */
  readonly settled: () => Promise<void>;
};

const sendsItself = (body: object): body is SelfSendingBody =>
  typeof (body as Partial<SelfSendingBody>).sendTo === "function";

/** The gateway on a socket: `dispatch` for each request, its answer written or streamed. */
export const createGateway = (options: GatewayOptions): GatewayServer => {
  const dispatch = createDispatch(options);
  // Requests being answered: a stop waits for them before it closes the stores they use.
  const pending = new Set<Promise<void>>();
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const response = await dispatch({
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: req.headersDistinct,
      body: req,
      remoteAddress: req.socket.remoteAddress,
      httpVersion: req.httpVersion,
    });
    if (!response) return;
    try {
      res.writeHead(response.statusCode, response.headers);
    } catch (error) {
      // A header value HTTP cannot carry: answered as the bug it is, never a silent close.
      if (response.body instanceof Readable) response.body.destroy();
      logger.error("response headers refused", { path: req.url?.split("?")[0], error });
      const failed = gatewayError(GATEWAY_ERRORS.internal);
      res.writeHead(failed.statusCode, failed.headers).end(failed.body);
      return;
    }
    if (req.method === "HEAD") {
      // Headers only: the body is dropped unread, which releases what produces it.
      if (response.body instanceof Readable) response.body.destroy();
      res.end();
      return;
    }
    if (typeof response.body === "string") {
      res.end(response.body);
      return;
    }
    if (sendsItself(response.body)) await response.body.sendTo(res);
    else await pipeline(response.body, res);
  };
  const timeouts = options.timeouts ?? LISTENER_TIMEOUTS;
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      // How often the two timeouts above are checked; Node's default (30 s) lets a slow
      // client hold its socket for half a minute past them.
      connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs),
    },
    (req, res) => {
      const answered = answer(req, res)
        .catch((error: unknown) => {
          // Mid-stream failure: the only honest signal left is to cut the connection.
          logger.error("response stream failed", { path: req.url?.split("?")[0], error });
          res.destroy(error instanceof Error ? error : undefined);
        })
        .finally(() => pending.delete(answered));
      pending.add(answered);
    },
  );
  // A client that half-closes after a complete request (sends FIN) still reads the answer:
  // without this Node drops the request it is carrying out, and the client, answered
  // nothing, sends it again.
  Object.assign(server, { httpAllowHalfOpen: true });
  server.on("clientError", (error: Error & { code?: string }, socket: Duplex) =>
    answerClientError(error, socket, options.clientErrorPage),
  );
  return Object.assign(server, {
    settled: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  });
};

/**
 * What Node answers by itself (a request it cannot parse, headers too large, a client too
 * slow), in the listener's own shape (the API's JSON error, the link host's page) rather than
 * Node's empty bodies.
 */
const answerClientError = (
  error: Error & { code?: string },
  socket: Duplex,
  page?: GatewayOptions["clientErrorPage"],
) => {
  // Nothing can be said on a socket gone, or in the middle of an answer (Node's own rule: the
  // response it is writing, if any). A kept-alive socket's earlier answers are done and say
  // nothing against it.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })
    ._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const known =
    error.code === "HPE_HEADER_OVERFLOW"
      ? GATEWAY_ERRORS.headersTooLarge
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? GATEWAY_ERRORS.slow
        : GATEWAY_ERRORS.malformed;
  const answer = page?.(known) ?? {
    statusCode: known.status,
    headers: { "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify({ error: statusName(known.status), detail: known.detail }),
  };
  const body = typeof answer.body === "string" ? answer.body : "";
  const headers = Object.entries(answer.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.end(
    `HTTP/1.1 ${answer.statusCode} ${statusName(answer.statusCode)}\r\n${headers}` +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      "connection: close\r\n\r\n" +
      body,
  );
};

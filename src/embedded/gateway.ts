/**
 * The embedded HTTP front door: what API Gateway does on AWS, built from the same route table.
 * It runs the same authorizer and handlers with API Gateway-shaped events, and answers
 * gateway errors (no route, no key, denied) with the same JSON bodies as the deployed API.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from "aws-lambda";
import FindMyWay, { type HTTPVersion } from "find-my-way";
import { type ErrorBody, statusName, toErrorResponse } from "../http/errors.ts";
import { UNAUTHORIZED } from "../http/handlers/authorizer.ts";
import type { HttpResponse } from "../http/middleware.ts";
import { isAllowed, type PolicyDocument } from "../http/policy.ts";
import type { Route } from "../http/routes.ts";
import { logger } from "../logging/logger.ts";
import { readBody } from "./request-body.ts";

export type RouteHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<HttpResponse>;
export type Authorizer = (
  event: APIGatewayTokenAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

export interface GatewayOptions {
  readonly routes: readonly { route: Route; handler: RouteHandler }[];
  readonly authorizer: Authorizer;
  /** API Gateway's payload limit. */
  readonly maxBodyBytes?: number;
  /** Runs as each request arrives, before anything else reads a store for it. */
  readonly onRequest?: () => void;
}

const API_ID = "embedded";
const STAGE = "local";

const sendError = (res: ServerResponse, statusCode: number, detail: string) => {
  const body: ErrorBody = { error: statusName(statusCode), detail };
  res.writeHead(statusCode, { "content-type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(body));
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

/** API Gateway's two header (or query) maps; the single-value one keeps a repeated name's last. */
const singleAndMulti = (entries: Iterable<[string, string]>) => {
  const multi: Record<string, string[]> = {};
  const single: Record<string, string> = {};
  for (const [name, value] of entries) {
    const values = multi[name];
    if (values) values.push(value);
    else multi[name] = [value];
    single[name] = value;
  }
  return { single, multi };
};

export const createGateway = (options: GatewayOptions): Server => {
  const maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
  const router = FindMyWay<HTTPVersion.V1>();
  for (const entry of options.routes) {
    // find-my-way writes path parameters as :name where API Gateway writes {name}.
    const path = entry.route.path.replace(/\{([^}]+)\}/g, ":$1");
    router.on(entry.route.method, path, () => undefined, entry);
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    options.onRequest?.();
    const url = new URL(req.url ?? "/", "http://gateway");
    const method = req.method ?? "GET";
    const found = router.find(method === "HEAD" ? "GET" : (method as "GET"), url.pathname);
    if (!found?.store) {
      sendError(res, 404, `No route for ${method} ${url.pathname}.`);
      return;
    }
    const { route, handler } = found.store as GatewayOptions["routes"][number];
    const methodArn = `arn:aws:execute-api:local:000000000000:${API_ID}/${STAGE}/${route.method}${url.pathname}`;

    // A public route (null scope) has no authorizer on AWS either: any key, or none, is let in.
    let authorizer: APIGatewayAuthorizerResult | undefined;
    if (route.scope !== null) {
      const token = req.headers.authorization;
      if (!token) {
        sendError(res, 401, "The Authorization header with an API key is required.");
        return;
      }
      try {
        authorizer = await options.authorizer(
          { type: "TOKEN", authorizationToken: token, methodArn },
          lambdaContext("authorizer", 10),
        );
      } catch (error) {
        // As API Gateway does: only the authorizer's own "Unauthorized" is a 401; any other
        // failure (a store down, a bug) is a 500, logged by the caller of this function.
        if (!(error instanceof Error && error.message === UNAUTHORIZED)) throw error;
        sendError(res, 401, "The API key is not valid.");
        return;
      }
      if (!isAllowed(authorizer.policyDocument as PolicyDocument, methodArn)) {
        sendError(res, 401, "The API key is not allowed to call this endpoint.");
        return;
      }
    }

    let body: string | null;
    try {
      body = await readBody(req, maxBodyBytes);
    } catch (error) {
      if (!(error instanceof RangeError)) return; // nobody is left to answer
      // The rest of the body is not read: the connection closes after the answer.
      res.setHeader("connection", "close");
      sendError(res, 413, `The request body is over ${maxBodyBytes} bytes.`);
      return;
    }
    const headers = singleAndMulti(
      Object.entries(req.headersDistinct).flatMap(([k, values]) =>
        (values ?? []).map((v): [string, string] => [k, v]),
      ),
    );
    const query = singleAndMulti(url.searchParams.entries());
    const event: APIGatewayProxyEvent = {
      resource: route.path,
      path: url.pathname,
      httpMethod: route.method,
      headers: headers.single,
      multiValueHeaders: headers.multi,
      queryStringParameters: url.search ? query.single : null,
      multiValueQueryStringParameters: url.search ? query.multi : null,
      pathParameters: Object.keys(found.params).length > 0 ? { ...found.params } : null,
      stageVariables: null,
      body,
      isBase64Encoded: false,
      requestContext: {
        accountId: "000000000000",
        apiId: API_ID,
        stage: STAGE,
        protocol: `HTTP/${req.httpVersion}`,
        httpMethod: route.method,
        path: `/${STAGE}${url.pathname}`,
        resourcePath: route.path,
        resourceId: route.id,
        requestId: randomUUID(),
        requestTimeEpoch: Date.now(),
        authorizer: authorizer
          ? { ...authorizer.context, principalId: authorizer.principalId }
          : undefined,
        identity: {
          sourceIp: req.socket.remoteAddress ?? "127.0.0.1",
          userAgent: req.headers["user-agent"] ?? null,
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

    const response = await handler(event, lambdaContext(route.id, route.timeoutSeconds));
    res.writeHead(response.statusCode, response.headers);
    if (method === "HEAD") {
      // Headers only: the body is dropped unread, which releases what produces it.
      if (response.body instanceof Readable) response.body.destroy();
      res.end();
      return;
    }
    if (typeof response.body === "string") {
      res.end(response.body);
      return;
    }
    await pipeline(response.body, res);
  };

  return createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        // Mid-stream failure: the only honest signal left is to cut the connection.
        res.destroy(error instanceof Error ? error : undefined);
        return;
      }
      const { statusCode, body } = toErrorResponse(error);
      logger.error("gateway failure", { method: req.method, path: req.url?.split("?")[0], error });
      sendError(res, statusCode, body.detail);
    });
  });
};

/**
 * The embedded gateway without a socket: `createDispatch` takes a request and gives the answer
 * the server would send, with the API Gateway-shaped event the handler saw.
 */

import { once } from "node:events";
import { Readable } from "node:stream";
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { GATEWAY_ERRORS } from "../http/gateway-errors.ts";
import { UNAUTHORIZED } from "../http/handlers/authorizer.ts";
import type { HttpResponse } from "../http/middleware.ts";
import type { Route } from "../http/routes.ts";
import type { TrustProxy } from "../http/trust-proxy.ts";
import { type Authorizer, createDispatch, type GatewayRequest } from "./gateway.ts";
import { type BodyBudget, createBodyBudget, DRAINED_BODY_BYTES } from "./request-body.ts";

const keyed: Route = {
  id: "thing",
  method: "POST",
  path: "/v1/things/{thing_id}",
  scope: "ingest",
  streaming: false,
  memoryMb: 128,
  timeoutSeconds: 5,
};
/** A route the dashboard calls with its session cookie as well as a key calls it with its key. */
const session: Route = {
  id: "link",
  method: "POST",
  path: "/v1/apps/{app_id}/links",
  scope: "links",
  streaming: false,
  memoryMb: 128,
  timeoutSeconds: 29,
};
const open: Route = {
  id: "open",
  method: "GET",
  path: "/{deeplink_id}",
  scope: null,
  publicReason: "A link host answers anyone who taps a link.",
  streaming: false,
  memoryMb: 128,
  timeoutSeconds: 5,
};

/** Allows keys named `good` (the route's scope only), refuses the rest. */
const authorizer: Authorizer = async (event) => {
  if (event.type !== "TOKEN" || event.authorizationToken !== "good") throw new Error(UNAUTHORIZED);
  return {
    principalId: "k1",
    policyDocument: {
      Version: "2012-10-17",
      Statement: [
        {
          Action: "execute-api:Invoke",
          Effect: "Allow",
          Resource: ["arn:aws:execute-api:local:000000000000:embedded/local/POST/v1/things/*"],
        },
      ],
    },
    context: { appId: "com.a", keyId: "k1", appName: "A", scopes: "ingest" },
  };
};

const gateway = (
  options: { trustProxy?: TrustProxy; maxBodyBytes?: number; bodyBudget?: BodyBudget } = {},
) => {
  const { maxBodyBytes = 1024, ...rest } = options;
  const seen: APIGatewayProxyEvent[] = [];
  const answer = (event: APIGatewayProxyEvent): HttpResponse => {
    seen.push(event);
    return { statusCode: 200, headers: { "content-type": "text/plain" }, body: "ok" };
  };
  const dispatch = createDispatch({
    routes: [
      { route: keyed, handler: async (event) => answer(event), maxBodyBytes },
      {
        route: open,
        maxBodyBytes: 0,
        handler: async (event) => ({
          statusCode: 302,
          headers: { location: `https://example.com/${event.pathParameters?.deeplink_id}` },
          body: "",
        }),
      },
    ],
    authorizer,
    ...rest,
  });
  return { dispatch, seen };
};

const request = (overrides: Partial<GatewayRequest> & { text?: string } = {}): GatewayRequest => ({
  method: "POST",
  url: "/v1/things/t1?a=1&a=2",
  headers: {
    authorization: ["good"],
    "user-agent": ["test-agent"],
    // As a client sends a body: with its length.
    ...(overrides.text === undefined
      ? {}
      : { "content-length": [String(Buffer.byteLength(overrides.text))] }),
  },
  body: Readable.from(overrides.text === undefined ? [] : [Buffer.from(overrides.text)]),
  remoteAddress: "203.0.113.7",
  ...overrides,
});

const errorOf = (response: HttpResponse | undefined) => JSON.parse(String(response?.body));

describe("createDispatch", () => {
  it("hands a keyed route an API Gateway event: path parameters, query maps, body, principal", async () => {
    const { dispatch, seen } = gateway();
    const response = await dispatch(request({ text: '{"x":1}' }));
    expect(response?.statusCode).toBe(200);
    const [event] = seen;
    expect(event?.pathParameters).toEqual({ thing_id: "t1" });
    expect(event?.queryStringParameters).toEqual({ a: "2" });
    expect(event?.multiValueQueryStringParameters).toEqual({ a: ["1", "2"] });
    expect(event?.body).toBe('{"x":1}');
    expect(event?.requestContext.authorizer).toMatchObject({ appId: "com.a", principalId: "k1" });
    expect(event?.requestContext.identity.sourceIp).toBe("203.0.113.7");
    expect(event?.requestContext.identity.userAgent).toBe("test-agent");
    expect(event).toMatchObject({
      resource: "/v1/things/{thing_id}",
      path: "/v1/things/t1",
      httpMethod: "POST",
      requestContext: {
        resourcePath: "/v1/things/{thing_id}",
        resourceId: "thing",
        path: "/local/v1/things/t1",
        protocol: "HTTP/1.1",
      },
    });
  });

  it("names no query and no path parameters as null, and the protocol the client spoke", async () => {
    const { dispatch, seen } = gateway();
    await dispatch(request({ url: "/v1/things/t1", httpVersion: "1.0" }));
    expect(seen[0]?.queryStringParameters).toBeNull();
    expect(seen[0]?.multiValueQueryStringParameters).toBeNull();
    expect(seen[0]?.requestContext.protocol).toBe("HTTP/1.0");
    const bare = createDispatch({
      routes: [
        {
          route: { ...open, path: "/" },
          maxBodyBytes: 0,
          handler: async (event) => {
            seen.push(event);
            return { statusCode: 200, headers: {}, body: "" };
          },
        },
      ],
      authorizer,
    });
    await bare(request({ method: "GET", url: "/", headers: {} }));
    expect(seen[1]?.pathParameters).toBeNull();
  });

  it("hands on names an object's prototype has as names like any other", async () => {
    const { dispatch, seen } = gateway();
    const response = await dispatch(
      request({
        url: "/v1/things/t1?__proto__=a&constructor=b&constructor=c",
        headers: { authorization: ["good"], constructor: ["d"], ["__proto__"]: ["e"] },
      }),
    );
    expect(response?.statusCode).toBe(200);
    const event = seen[0];
    expect(Object.entries(event?.queryStringParameters ?? {})).toEqual([
      ["__proto__", "a"],
      ["constructor", "c"],
    ]);
    expect(event?.multiValueQueryStringParameters?.constructor).toEqual(["b", "c"]);
    expect(event?.headers.constructor).toBe("d");
    expect(Object.hasOwn(event?.headers ?? {}, "__proto__")).toBe(true);
  });

  it("gives the handler its route's time, as Lambda's context counts it down", async () => {
    let remaining = 0;
    const dispatch = createDispatch({
      routes: [
        {
          route: keyed,
          maxBodyBytes: 0,
          handler: async (_event, context) => {
            remaining = context.getRemainingTimeInMillis();
            return { statusCode: 200, headers: {}, body: "" };
          },
        },
      ],
      authorizer,
    });
    await dispatch(request());
    expect(remaining).toBeGreaterThan(4_000);
    expect(remaining).toBeLessThanOrEqual(5_000);
  });

  it("answers what matches no route with 404, and a missing, refused or narrow key with 401", async () => {
    const { dispatch, seen } = gateway();
    const noRoute = await dispatch(request({ url: "/v2/nothing" }));
    expect(noRoute?.statusCode).toBe(404);
    expect(errorOf(noRoute)).toEqual({ error: "Not Found", detail: GATEWAY_ERRORS.noRoute.detail });
    for (const headers of [{}, { authorization: ["bad"] }]) {
      const refused = await dispatch(request({ headers }));
      expect(refused?.statusCode).toBe(401);
      expect(errorOf(refused).detail).toBe(GATEWAY_ERRORS.unauthorized.detail);
    }
    expect(seen).toEqual([]);
  });

  it("refuses a key whose policy does not name the route, and asks nothing of a request with no key", async () => {
    const asked: string[] = [];
    const narrow: Authorizer = async (event) => {
      asked.push(event.type);
      return {
        principalId: "k2",
        policyDocument: {
          Version: "2012-10-17",
          Statement: [
            {
              Action: "execute-api:Invoke",
              Effect: "Allow",
              Resource: ["arn:aws:execute-api:local:000000000000:embedded/local/GET/v1/other"],
            },
          ],
        },
        context: { appId: "com.a", keyId: "k2", appName: "A", scopes: "links" },
      };
    };
    const handled: string[] = [];
    const dispatch = createDispatch({
      routes: [
        {
          route: keyed,
          maxBodyBytes: 0,
          handler: async (event) => {
            handled.push(event.path);
            return { statusCode: 200, headers: {}, body: "" };
          },
        },
      ],
      authorizer: narrow,
    });
    const refused = await dispatch(request({ headers: { authorization: ["narrow"] } }));
    expect(refused?.statusCode).toBe(401);
    expect(asked).toEqual(["TOKEN"]);
    // A route no session may call is refused without a key before anyone is asked.
    const keyless = await dispatch(request({ headers: { cookie: ["session=s1"] } }));
    expect(keyless?.statusCode).toBe(401);
    expect(asked).toEqual(["TOKEN"]);
    expect(handled).toEqual([]);
  });

  it("asks the request authorizer about a session, with the whole request as API Gateway gives it", async () => {
    const asked: APIGatewayRequestAuthorizerEvent[] = [];
    const sessions: Authorizer = async (event) => {
      if (event.type !== "REQUEST") throw new Error(UNAUTHORIZED);
      asked.push(event);
      return {
        principalId: "user-1",
        policyDocument: {
          Version: "2012-10-17",
          Statement: [
            { Action: "execute-api:Invoke", Effect: "Allow", Resource: [event.methodArn] },
          ],
        },
        context: { appId: "com.a" },
      };
    };
    const dispatch = createDispatch({
      routes: [
        {
          route: session,
          maxBodyBytes: 0,
          handler: async () => ({ statusCode: 200, headers: {}, body: "" }),
        },
      ],
      authorizer: sessions,
    });
    const response = await dispatch(
      request({
        method: "POST",
        url: "/v1/apps/com.a/links?from=2026-01-01",
        headers: {
          cookie: ["session=s1", "theme=dark"],
          accept: ["text/csv", "application/json"],
          "x-empty": [],
          "x-one": ["1"],
        },
      }),
    );
    expect(response?.statusCode).toBe(200);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      type: "REQUEST",
      methodArn: "arn:aws:execute-api:local:000000000000:embedded/local/POST/v1/apps/com.a/links",
      resource: "/v1/apps/{app_id}/links",
      path: "/v1/apps/com.a/links",
      httpMethod: "POST",
      pathParameters: { app_id: "com.a" },
      queryStringParameters: { from: "2026-01-01" },
    });
    // Cookies are joined as one Cookie header writes them; any other name's values by commas.
    expect(asked[0]?.headers).toEqual({
      cookie: "session=s1; theme=dark",
      accept: "text/csv, application/json",
      "x-one": "1",
    });
  });

  it("hands a path parameter of any length to the route, as API Gateway does", async () => {
    const { dispatch, seen } = gateway();
    const long = "0".repeat(129);
    const response = await dispatch(request({ url: `/v1/things/${long}` }));
    expect(response?.statusCode).toBe(200);
    expect(seen[0]?.pathParameters).toEqual({ thing_id: long });
  });

  it("lets anyone reach a public route, without asking the authorizer", async () => {
    const { dispatch } = gateway();
    const response = await dispatch(request({ method: "GET", url: "/Kx3v9QpZ2aQ", headers: {} }));
    expect(response).toEqual({
      statusCode: 302,
      headers: { location: "https://example.com/Kx3v9QpZ2aQ" },
      body: "",
    });
    const head = await dispatch(request({ method: "HEAD", url: "/Kx3v9QpZ2aQ", headers: {} }));
    expect(head?.statusCode).toBe(302);
  });

  it("reads a body where the headers give its length or its chunks, and none otherwise", async () => {
    const { dispatch, seen } = gateway();
    await dispatch(request({ headers: { authorization: ["good"] } }));
    const chunked = { authorization: ["good"], "transfer-encoding": ["chunked"] };
    await dispatch(request({ headers: chunked, body: Readable.from([Buffer.from("{}")]) }));
    expect(seen.map((event) => event.body)).toEqual([null, "{}"]);
  });

  it("answers a body over the limit with 413 and a closed connection", async () => {
    const { dispatch, seen } = gateway({ maxBodyBytes: 8 });
    const response = await dispatch(request({ text: "x".repeat(9) }));
    expect(response?.statusCode).toBe(413);
    expect(response?.headers.connection).toBe("close");
    expect(seen).toEqual([]);
  });

  it("refuses a body longer than the route takes from its Content-Length, keeping none of it", {
    timeout: 2_000,
  }, async () => {
    const { dispatch, seen } = gateway({ maxBodyBytes: 8 });
    // Read through and dropped, then refused, before the key is asked for.
    const sent = await dispatch(
      request({
        headers: { "content-length": ["9"] },
        body: Readable.from([Buffer.from("123456789")]),
      }),
    );
    expect(sent?.statusCode).toBe(413);
    // Past API Gateway's limit, a body that never comes: only its declared length refuses it.
    const unsent = () => new Readable({ read() {} });
    const past = String(DRAINED_BODY_BYTES + 1);
    const keyedAnswer = await dispatch(
      request({ headers: { authorization: ["good"], "content-length": [past] }, body: unsent() }),
    );
    expect(keyedAnswer?.statusCode).toBe(413);
    expect(keyedAnswer?.headers.connection).toBe("close");
    // A tap takes no body at all.
    const tap = await dispatch(
      request({
        method: "GET",
        url: "/Kx3v9QpZ2aQ",
        headers: { "content-length": [past] },
        body: unsent(),
      }),
    );
    expect(tap?.statusCode).toBe(413);
    expect(errorOf(tap)).toEqual({
      error: "Payload Too Large",
      detail: GATEWAY_ERRORS.noBody.detail,
    });
    const empty = await dispatch(
      request({ method: "GET", url: "/Kx3v9QpZ2aQ", headers: { "content-length": ["0"] } }),
    );
    expect(empty?.statusCode).toBe(302);
    expect(seen).toEqual([]);
  });

  it("reads the rest of a body it refuses before answering, so that its client reads the answer", async () => {
    const { dispatch } = gateway({ maxBodyBytes: 8 });
    const body = Readable.from([Buffer.from("12345"), Buffer.from("6789")]);
    const response = await dispatch(request({ headers: { "content-length": ["9"] }, body }));
    expect(response?.statusCode).toBe(413);
    expect(body.readableEnded).toBe(true);
  });

  it("answers nobody for a request whose client left before its body, and calls no handler", async () => {
    const { dispatch, seen } = gateway();
    const gone = new Readable({ read() {} });
    gone.destroy();
    await once(gone, "close");
    // No length and no chunks: had the client stayed, there would be no body to wait for.
    await expect(
      dispatch(request({ headers: { authorization: ["good"] }, body: gone })),
    ).resolves.toBeUndefined();
    expect(seen).toEqual([]);
  });

  it("hands a target it cannot read to the listener's own answer as no path a route has", async () => {
    const paths: string[] = [];
    const dispatch = createDispatch({
      routes: [
        {
          route: { ...open, path: "/" },
          maxBodyBytes: 0,
          handler: async () => ({ statusCode: 200, headers: {}, body: "" }),
        },
      ],
      authorizer,
      notFound: ({ path }) => {
        paths.push(path);
        return { statusCode: 404, headers: {}, body: "page" };
      },
    });
    const answer = await dispatch(request({ method: "GET", url: "http://[", headers: {} }));
    expect(answer).toEqual({ statusCode: 404, headers: {}, body: "page" });
    expect(paths).toEqual(["/*"]);
  });

  it("answers 503 with Retry-After while the bodies held across requests fill the total", async () => {
    const bodyBudget = createBodyBudget(10);
    const { dispatch, seen } = gateway({ bodyBudget });
    // Another request holds 6 of the 10 bytes.
    const held = bodyBudget.lease();
    expect(held.take(6)).toBe(true);
    const busy = await dispatch(request({ text: "12345" }));
    expect(busy?.statusCode).toBe(503);
    expect(busy?.headers["retry-after"]).toMatch(/^[1-9][0-9]*$/);
    expect(busy?.headers.connection).toBe("close");
    expect(errorOf(busy)).toEqual({ error: "Service Unavailable", detail: expect.any(String) });
    expect(seen).toEqual([]);
    held.release();
    expect((await dispatch(request({ text: "12345" })))?.statusCode).toBe(200);
    // What each request took is given back once it is answered.
    expect((await dispatch(request({ text: "1234567890" })))?.statusCode).toBe(200);
    expect(bodyBudget.used()).toBe(0);
  });

  it("takes the caller's address from X-Forwarded-For only as far as it trusts the hops", async () => {
    const forwarded = { ...request().headers, "x-forwarded-for": ["81.2.69.142, 10.0.0.1"] };
    const trusting = gateway({ trustProxy: true });
    await trusting.dispatch(request({ headers: forwarded }));
    expect(trusting.seen[0]?.requestContext.identity.sourceIp).toBe("81.2.69.142");
    // The peer (203.0.113.7) is no proxy of these ranges: its header is not believed.
    const loopbackOnly = gateway({ trustProxy: ["loopback"] });
    await loopbackOnly.dispatch(request({ headers: forwarded }));
    expect(loopbackOnly.seen[0]?.requestContext.identity.sourceIp).toBe("203.0.113.7");
    // A proxy at 203.0.113.7 appended 10.0.0.1, which is where the caller's own value stops.
    const oneHop = gateway({ trustProxy: ["203.0.113.7"] });
    await oneHop.dispatch(request({ headers: forwarded }));
    expect(oneHop.seen[0]?.requestContext.identity.sourceIp).toBe("10.0.0.1");
    const wary = gateway();
    await wary.dispatch(request({ headers: forwarded }));
    expect(wary.seen[0]?.requestContext.identity.sourceIp).toBe("203.0.113.7");
  });

  it("answers a failing authorizer with a 500 that shows nothing of the failure", async () => {
    const dispatch = createDispatch({
      routes: [
        {
          route: keyed,
          handler: async () => ({ statusCode: 200, headers: {}, body: "" }),
          maxBodyBytes: 1024,
        },
      ],
      authorizer: async () => {
        throw new Error("connect ECONNREFUSED 127.0.0.1:8000");
      },
    });
    const response = await dispatch(request());
    expect(response?.statusCode).toBe(500);
    expect(String(response?.body)).not.toContain("ECONNREFUSED");
  });
});

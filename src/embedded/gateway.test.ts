import { once } from "node:events";
import { request } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { GATEWAY_ERRORS } from "../http/gateway-errors.ts";
import { UNAUTHORIZED } from "../http/handlers/authorizer.ts";
import { routeArn } from "../http/policy.ts";
import type { Route } from "../http/routes.ts";
import { logger } from "../logging/logger.ts";
import {
  type Authorizer,
  createGateway,
  type GatewayOptions,
  type RouteHandler,
} from "./gateway.ts";

const ROUTE: Route = {
  id: "echo",
  method: "POST",
  path: "/v1/echo",
  scope: "ingest",
  streaming: false,
  memoryMb: 128,
  timeoutSeconds: 5,
};

const allowAll: Authorizer = async () => ({
  principalId: "key",
  policyDocument: {
    Version: "2012-10-17",
    Statement: [{ Action: "execute-api:Invoke", Effect: "Allow", Resource: ["*"] }],
  },
});

/** The gateway on a free port; `close` cuts its connections and stops it. */
const serve = async (options: GatewayOptions) => {
  const server = createGateway(options);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** Sends a POST and resolves with the status, the Connection header and the body. */
const post = (
  port: number,
  body: string,
  path = "/v1/echo",
  authorization: string | string[] = "key",
) =>
  new Promise<{ status: number; connection: string | undefined; body: string }>(
    (resolve, reject) => {
      const req = request(
        {
          port,
          method: "POST",
          path,
          // Raw name and value pairs (a header may be sent more than once), Host among them.
          headers: [
            "host",
            `127.0.0.1:${port}`,
            ...[authorization].flat().flatMap((value) => ["authorization", value]),
          ],
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              connection: res.headers.connection,
              body: Buffer.concat(chunks).toString(),
            }),
          );
        },
      );
      req.on("error", reject);
      req.end(body);
    },
  );

describe("embedded gateway", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  const listen = async (authorizer: Authorizer, handler: RouteHandler) => {
    const served = await serve({
      routes: [{ route: ROUTE, handler }],
      authorizer,
      maxBodyBytes: 64,
    });
    close = served.close;
    return served.port;
  };

  it("hands the handler the whole body", async () => {
    const port = await listen(allowAll, async (event) => ({
      statusCode: 200,
      headers: { "content-type": "text/plain" },
      body: `got ${event.body}`,
    }));
    expect(await post(port, "x".repeat(64))).toMatchObject({
      status: 200,
      body: `got ${"x".repeat(64)}`,
    });
  });

  it("routes a path ending in / as its route, and authorizes it as that route", async () => {
    // A policy naming the route alone, as the authorizer's does (src/http/policy.ts).
    const onlyEcho: Authorizer = async ({ methodArn }) => ({
      principalId: "key",
      policyDocument: {
        Version: "2012-10-17",
        Statement: [
          {
            Action: "execute-api:Invoke",
            Effect: "Allow",
            Resource: [routeArn(methodArn, ROUTE.method, ROUTE.path)],
          },
        ],
      },
    });
    const port = await listen(onlyEcho, async (event) => ({
      statusCode: 200,
      headers: { "content-type": "text/plain" },
      body: `${event.path} ${event.resource}`,
    }));
    expect(await post(port, "{}", "/v1/echo/")).toMatchObject({
      status: 200,
      body: "/v1/echo/ /v1/echo",
    });
  });

  it("answers a body over the limit with 413, unread, and closes the connection", async () => {
    let called = 0;
    const port = await listen(allowAll, async () => {
      called += 1;
      return { statusCode: 200, headers: {}, body: "" };
    });
    const answer = await post(port, "x".repeat(65));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({
      error: "Payload Too Large",
      detail: GATEWAY_ERRORS.tooLarge.detail,
    });
    expect(answer.connection).toBe("close");
    expect(called).toBe(0);
  });

  it("refuses a request with two Authorization headers, asking the authorizer nothing", async () => {
    let asked = 0;
    const port = await listen(
      async (event, context) => {
        asked += 1;
        return allowAll(event, context);
      },
      async () => ({ statusCode: 200, headers: {}, body: "" }),
    );
    const twice = await post(port, "{}", "/v1/echo", ["key", "other"]);
    expect(twice.status).toBe(401);
    expect(asked).toBe(0);
    expect((await post(port, "{}")).status).toBe(200);
    expect(asked).toBe(1);
  });

  it("answers the authorizer's refusal with 401, and any other failure of it with a hidden 500", async () => {
    const handler: RouteHandler = async () => ({ statusCode: 200, headers: {}, body: "" });
    const refusing = await listen(async () => {
      throw new Error(UNAUTHORIZED);
    }, handler);
    const refused = await post(refusing, "{}");
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toEqual({
      error: "Unauthorized",
      detail: GATEWAY_ERRORS.unauthorized.detail,
    });
    await close?.();

    const error = vi.spyOn(logger, "error").mockImplementation(() => undefined);
    try {
      const failing = await listen(async () => {
        throw new Error("connect ECONNREFUSED 127.0.0.1:8000");
      }, handler);
      const failed = await post(failing, "{}");
      expect(failed.status).toBe(500);
      expect(failed.body).not.toContain("ECONNREFUSED");
      expect(error).toHaveBeenCalledWith(
        "gateway failure",
        expect.objectContaining({
          error: expect.objectContaining({ message: expect.stringContaining("ECONNREFUSED") }),
        }),
      );
    } finally {
      error.mockRestore();
    }
  });

  it("lets a request whose client left during its authorization go, calling no handler", async () => {
    let called = 0;
    let authorizing: () => void = () => undefined;
    const authorized = new Promise<void>((resolve) => {
      authorizing = resolve;
    });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The first request waits in its authorization until released; later ones go through.
    const slow: Authorizer = async (event, context) => {
      authorizing();
      await held;
      return allowAll(event, context);
    };
    const port = await listen(slow, async () => {
      called += 1;
      return { statusCode: 200, headers: {}, body: "" };
    });
    const req = request({
      port,
      method: "POST",
      path: "/v1/echo",
      headers: { authorization: "key", "content-length": "10" },
    });
    req.on("error", () => undefined);
    req.write("12345");
    await authorized;
    req.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    // The gateway is still serving, and the gone request reached no handler.
    expect((await post(port, "ok")).status).toBe(200);
    expect(called).toBe(1);
  });
});

/** Writes raw bytes on a new connection and resolves with everything the server sent back. */
const raw = async (
  port: number,
  write: (socket: Socket) => Promise<void> | void,
): Promise<{ status: number; headers: string; body: string }> => {
  const socket = connect(port, "127.0.0.1");
  await once(socket, "connect");
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.on("error", () => undefined);
  const closed = once(socket, "close");
  await write(socket);
  await closed;
  const text = Buffer.concat(chunks).toString();
  const [head = "", body = ""] = text.split("\r\n\r\n");
  return { status: Number(head.split(" ")[1]), headers: head, body };
};

describe("embedded gateway, clients that misbehave", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  const handled: string[] = [];
  const listen = async (
    timeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 },
  ) => {
    const served = await serve({
      routes: [
        {
          route: ROUTE,
          handler: async (event) => {
            handled.push(event.body ?? "");
            // Work that outlasts the client's FIN, as a store write does.
            await new Promise((resolve) => setTimeout(resolve, 100));
            return { statusCode: 201, headers: { "content-type": "text/plain" }, body: "made" };
          },
        },
      ],
      authorizer: allowAll,
      timeouts,
    });
    close = served.close;
    return served.port;
  };

  it("answers a complete request whose client half-closed after sending it", async () => {
    const port = await listen();
    handled.length = 0;
    const answer = await raw(port, (socket) => {
      // The request whole, then FIN: the client sends nothing more but still reads.
      socket.end(
        "POST /v1/echo HTTP/1.1\r\nhost: x\r\nauthorization: key\r\ncontent-length: 2\r\n\r\nhi",
      );
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toContain("made");
    expect(handled).toEqual(["hi"]);
  });

  it("cuts off a client that sends its headers too slowly, with a 408 in the API's error shape", async () => {
    const port = await listen({ headersMs: 300, requestMs: 1_000, keepAliveMs: 5_000 });
    const answer = await raw(port, async (socket) => {
      socket.write("GET /v1/echo HTTP/1.1\r\n");
      // A byte every 50 ms, never ending the headers: the server must end it, not the client.
      const drip = setInterval(() => socket.writable && socket.write("x"), 50);
      socket.once("close", () => clearInterval(drip));
    });
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({
      error: "Request Timeout",
      detail: GATEWAY_ERRORS.slow.detail,
    });
  });

  it("answers what Node refuses by itself (bad HTTP, headers too large) in the API's error shape", async () => {
    const port = await listen();
    const bad = await raw(port, (socket) => {
      socket.write("NOT HTTP AT ALL\r\n\r\n");
    });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toEqual({
      error: "Bad Request",
      detail: GATEWAY_ERRORS.malformed.detail,
    });
    const large = await raw(port, (socket) => {
      socket.write(`GET /v1/echo HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`);
    });
    expect(large.status).toBe(431);
    expect(JSON.parse(large.body)).toEqual({
      error: "Request Header Fields Too Large",
      detail: GATEWAY_ERRORS.headersTooLarge.detail,
    });
    // On a kept-alive connection, after an answer: answered too, not cut.
    const socket = connect(port, "127.0.0.1");
    await once(socket, "connect");
    let text = "";
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    const closed = once(socket, "close");
    socket.write("GET /v1/echo HTTP/1.1\r\nhost: x\r\n\r\n");
    await once(socket, "data");
    socket.write(`GET /v1/echo HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`);
    await closed;
    expect(text).toMatch(/^HTTP\/1\.1 [^\r]*\r\n[\s\S]*HTTP\/1\.1 431 /);
    expect(text).toContain(GATEWAY_ERRORS.headersTooLarge.detail);
  });

  it("answers a 500 in the API's error shape when a handler's header cannot be sent", async () => {
    const error = vi.spyOn(logger, "error").mockImplementation(() => undefined);
    try {
      const served = await serve({
        routes: [
          {
            route: ROUTE,
            handler: async () => ({
              statusCode: 302,
              headers: { location: "https://b/❄" },
              body: "",
            }),
          },
        ],
        authorizer: allowAll,
      });
      close = served.close;
      const answer = await post(served.port, "{}");
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.body)).toEqual({
        error: "Internal Server Error",
        detail: GATEWAY_ERRORS.internal.detail,
      });
    } finally {
      error.mockRestore();
    }
  });
});

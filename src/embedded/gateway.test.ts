import { once } from "node:events";
import { request } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { GATEWAY_ERRORS } from "../http/gateway-errors.ts";
import { UNAUTHORIZED } from "../http/handlers/authorizer.ts";
import { routeArn } from "../http/policy.ts";
import { LINK_HOST_ROUTES, type Route } from "../http/routes.ts";
import { logger } from "../logging/logger.ts";
import type { SelfSendingBody } from "../ports/lake.ts";
import { bodyLimitOf } from "./body-limits.ts";
import {
  type Authorizer,
  createGateway,
  type GatewayOptions,
  type RouteHandler,
} from "./gateway.ts";
import { createBodyBudget, DRAINED_BODY_BYTES } from "./request-body.ts";

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
      routes: [{ route: ROUTE, handler, maxBodyBytes: 64 }],
      authorizer,
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

  it("answers a body over the limit with 413, keeping none of it, and closes the connection", async () => {
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
          maxBodyBytes: 1024,
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

  it("reads a target that begins // as a path, not a host: no route, never a 500", async () => {
    const port = await listen();
    for (const target of ["//", "//[", "//%zz/v1/echo", "//a:99999/", "//x/v1/echo"]) {
      const answer = await raw(port, (socket) => {
        socket.end(`GET ${target} HTTP/1.1\r\nhost: x\r\nauthorization: key\r\n\r\n`);
      });
      expect([target, answer.status]).toEqual([target, 404]);
      expect(answer.headers).toMatch(/content-type: application\/json/i);
      expect(answer.body).toContain('"error":"Not Found"');
    }
    // Not the route whose path follows a host's name either, with the method it takes.
    const hostLike = await raw(port, (socket) => {
      socket.end(
        "POST //x/v1/echo HTTP/1.1\r\nhost: x\r\nauthorization: key\r\ncontent-length: 2\r\n\r\nhi",
      );
    });
    expect(hostLike.status).toBe(404);
    // A proxy's absolute form is read by its path.
    const absolute = await raw(port, (socket) => {
      socket.end(
        "POST http://elsewhere.example/v1/echo HTTP/1.1\r\nhost: x\r\nauthorization: key\r\ncontent-length: 2\r\n\r\nhi",
      );
    });
    expect(absolute.status).toBe(201);
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
    // A body that holds something (a file, a query's rows) until it is read or let go.
    const unsent = Readable.from(["the page"]);
    try {
      const served = await serve({
        routes: [
          {
            route: ROUTE,
            maxBodyBytes: 1024,
            handler: async () => ({
              statusCode: 302,
              headers: { location: "https://b/❄" },
              body: unsent,
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
      expect(unsent.destroyed).toBe(true);
    } finally {
      error.mockRestore();
    }
  });
});

describe("embedded gateway, answers", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  const GET: Route = { ...ROUTE, id: "page", method: "GET", path: "/v1/page" };

  /** Sends a request and resolves with the status, the body, and whether it ended whole. */
  const send = (port: number, method: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string; whole: boolean }>((resolve, reject) => {
      const req = request({ port, method, path: "/v1/page", headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        const done = (whole: boolean) =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), whole });
        res.on("end", () => done(res.complete));
        res.on("error", () => done(false));
      });
      req.on("error", reject);
      req.end();
    });

  it("answers a HEAD with the headers alone, and lets go of the body it did not send", async () => {
    const bodies: Readable[] = [];
    const served = await serve({
      routes: [
        {
          route: GET,
          maxBodyBytes: 0,
          handler: async (event) => {
            // A HEAD's body never ends, as a large one would take long: it must not be read.
            const body =
              event.httpMethod === "HEAD" ? new Readable({ read() {} }) : Readable.from(["page"]);
            bodies.push(body);
            return { statusCode: 200, headers: { "content-type": "text/plain" }, body };
          },
        },
      ],
      authorizer: allowAll,
    });
    close = served.close;
    const head = await send(served.port, "HEAD", { authorization: "key" });
    expect(head).toEqual({ status: 200, body: "", whole: true });
    expect(bodies[0]?.destroyed).toBe(true);
    expect(await send(served.port, "GET", { authorization: "key" })).toEqual({
      status: 200,
      body: "page",
      whole: true,
    });
  });

  it("cuts the connection when a body that sends itself fails part way, rather than end it as whole", async () => {
    const error = vi.spyOn(logger, "error").mockImplementation(() => undefined);
    try {
      const failing: SelfSendingBody = {
        sendTo: async (destination) => {
          await new Promise((resolve) => destination.write("part of it", resolve));
          throw new Error("the lake went away");
        },
      };
      const served = await serve({
        routes: [
          {
            route: GET,
            maxBodyBytes: 0,
            handler: async () => ({
              statusCode: 200,
              headers: { "content-type": "text/plain" },
              body: failing as unknown as Readable,
            }),
          },
        ],
        authorizer: allowAll,
      });
      close = served.close;
      const answer = await send(served.port, "GET", { authorization: "key" });
      expect(answer.status).toBe(200);
      expect(answer.whole).toBe(false);
      expect(error).toHaveBeenCalledWith("response stream failed", expect.anything());
    } finally {
      error.mockRestore();
    }
  });

  it("answers what Node refuses by itself with the listener's own page, its length in bytes", async () => {
    const served = await serve({
      routes: [
        {
          route: GET,
          maxBodyBytes: 0,
          handler: async () => ({ statusCode: 200, headers: {}, body: "" }),
        },
      ],
      authorizer: allowAll,
      clientErrorPage: ({ status, detail }) => ({
        statusCode: status,
        headers: { "content-type": "text/html; charset=utf-8" },
        body: `<p>Requête refusée : ${detail}</p>`,
      }),
    });
    close = served.close;
    const answer = await send(served.port, "GET", { "x-big": "a".repeat(20_000) });
    expect(answer).toEqual({
      status: 431,
      body: `<p>Requête refusée : ${GATEWAY_ERRORS.headersTooLarge.detail}</p>`,
      whole: true,
    });
  });
});

describe("embedded gateway, request bodies", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  /** The link host's public routes, each with the body limit the runtime gives it. */
  const linkHost = async (options: Partial<GatewayOptions> = {}) => {
    const called: string[] = [];
    const served = await serve({
      routes: LINK_HOST_ROUTES.map((route) => ({
        route,
        maxBodyBytes: bodyLimitOf(route),
        handler: async () => {
          called.push(route.id);
          return { statusCode: 200, headers: { "content-type": "text/plain" }, body: "ok" };
        },
      })),
      authorizer: allowAll,
      ...options,
    });
    close = served.close;
    return { port: served.port, called };
  };

  /** The JSON of a raw answer's body, sent whole or in chunks. */
  const jsonOf = (body: string) =>
    JSON.parse(body.slice(body.indexOf("{"), body.lastIndexOf("}") + 1));

  /** API Gateway's own limit. */
  const TEN_MIB = DRAINED_BODY_BYTES;

  it("refuses at once, unread, a body past API Gateway's 10 MiB that a public route does not take", {
    timeout: 5_000,
  }, async () => {
    const { port, called } = await linkHost();
    for (const [method, path] of [
      ["GET", "/Kx3v9QpZ2aQ"],
      ["POST", "/.well-known/skadnetwork/report-attribution"],
    ]) {
      // The headers and one byte: the answer comes before the rest is sent.
      const answer = await raw(port, (socket) => {
        socket.write(
          `${method} ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: ${TEN_MIB + 1}\r\n\r\nx`,
        );
      });
      expect(answer.status).toBe(413);
      // A tap takes no body at all, and is told so.
      expect(jsonOf(answer.body)).toEqual({
        error: "Payload Too Large",
        detail: (method === "GET" ? GATEWAY_ERRORS.noBody : GATEWAY_ERRORS.tooLarge).detail,
      });
      expect(answer.headers.toLowerCase()).toContain("connection: close");
    }
    expect(called).toEqual([]);
  });

  it("reads through a body a route does not take, keeping none of it, so that its client reads the 413", {
    timeout: 10_000,
  }, async () => {
    // A total a little over the route's limit (1 MiB): a body of 2 MiB held whole, or the part
    // past the limit held, would be answered 503.
    const { port, called } = await linkHost({ bodyBudget: createBodyBudget(1.1 * 1024 * 1024) });
    const body = Buffer.alloc(2 * 1024 * 1024, "x");
    for (const [method, path] of [
      ["GET", "/Kx3v9QpZ2aQ"],
      ["POST", "/.well-known/skadnetwork/report-attribution"],
    ]) {
      const answer = await raw(port, async (socket) => {
        socket.write(
          `${method} ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: ${body.length}\r\n\r\n`,
        );
        await new Promise<void>((resolve) => socket.write(body, () => resolve()));
      });
      expect(answer.status).toBe(413);
    }
    // Sent in chunks, past the route's limit, then ended.
    const streamed = await raw(port, async (socket) => {
      socket.write(
        "POST /.well-known/skadnetwork/report-attribution HTTP/1.1\r\nhost: x\r\n" +
          "transfer-encoding: chunked\r\n\r\n",
      );
      const chunk = Buffer.alloc(64 * 1024, "x");
      for (let sent = 0; sent < 2 * 1024 * 1024; sent += chunk.length) {
        await new Promise<void>((resolve) =>
          socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`, () => resolve()),
        );
      }
      socket.write("0\r\n\r\n");
    });
    expect(streamed.status).toBe(413);
    expect(called).toEqual([]);
  });

  it("stops reading a streamed body that goes on past API Gateway's 10 MiB, and closes", {
    timeout: 20_000,
  }, async () => {
    const { port, called } = await linkHost();
    const socket = connect(port, "127.0.0.1");
    await once(socket, "connect");
    // Writes past the close fail (EPIPE, a reset): that is the close.
    socket.on("error", () => undefined);
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.write(
      "POST /.well-known/skadnetwork/report-attribution HTTP/1.1\r\nhost: x\r\n" +
        "transfer-encoding: chunked\r\n\r\n",
    );
    // Chunks paced so that what is sent is what the server reads, until it closes.
    const chunk = Buffer.alloc(64 * 1024, "x");
    let sent = 0;
    while (sent < 2 * TEN_MIB && !socket.destroyed) {
      await new Promise<void>((resolve) => {
        // Whichever comes first, the write's end or the close; the other is not waited for.
        const done = () => {
          socket.off("close", done);
          resolve();
        };
        socket.once("close", done);
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`, done);
      });
      sent += chunk.length;
    }
    await closed;
    expect(sent).toBeGreaterThan(TEN_MIB - chunk.length);
    expect(sent).toBeLessThan(2 * TEN_MIB);
    expect(called).toEqual([]);
  });

  it("answers 503 in the API's error shape, with Retry-After, once the bodies held reach the total", {
    timeout: 10_000,
  }, async () => {
    const budget = createBodyBudget(100);
    const served = await serve({
      routes: [
        {
          route: ROUTE,
          maxBodyBytes: 1024,
          handler: async (event) => ({
            statusCode: 200,
            headers: { "content-type": "text/plain" },
            body: `got ${event.body?.length}`,
          }),
        },
      ],
      authorizer: allowAll,
      bodyBudget: budget,
    });
    close = served.close;
    // One request holds 80 bytes of the 100, its body not yet whole.
    const first = connect(served.port, "127.0.0.1");
    await once(first, "connect");
    let firstAnswer = "";
    first.on("data", (chunk: Buffer) => {
      firstAnswer += chunk.toString();
    });
    first.write(
      `POST /v1/echo HTTP/1.1\r\nhost: x\r\nauthorization: key\r\ncontent-length: 90\r\n\r\n${"a".repeat(80)}`,
    );
    await expect.poll(() => budget.used()).toBe(80);
    const busy = await raw(served.port, (socket) => {
      socket.write(
        `POST /v1/echo HTTP/1.1\r\nhost: x\r\nauthorization: key\r\ncontent-length: 50\r\n\r\n${"b".repeat(50)}`,
      );
    });
    expect(busy.status).toBe(503);
    expect(jsonOf(busy.body)).toEqual({
      error: "Service Unavailable",
      detail: expect.any(String),
    });
    expect(busy.headers.toLowerCase()).toMatch(/\r\nretry-after: [1-9]/);
    // Once the first is whole and answered, what it held is free again.
    first.write("a".repeat(10));
    await expect.poll(() => firstAnswer).toContain("got 90");
    first.destroy();
    expect(await post(served.port, "b".repeat(50))).toMatchObject({ status: 200, body: "got 50" });
  });
});

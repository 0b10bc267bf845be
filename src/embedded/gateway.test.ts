import { once } from "node:events";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { GATEWAY_ERRORS } from "../http/gateway-errors.ts";
import { UNAUTHORIZED } from "../http/handlers/authorizer.ts";
import type { Route } from "../http/routes.ts";
import { logger } from "../logging/logger.ts";
import { type Authorizer, createGateway, type RouteHandler } from "./gateway.ts";

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

/** Sends a POST and resolves with the status, the Connection header and the body. */
const post = (port: number, body: string) =>
  new Promise<{ status: number; connection: string | undefined; body: string }>(
    (resolve, reject) => {
      const req = request(
        { port, method: "POST", path: "/v1/echo", headers: { authorization: "key" } },
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
    const server = createGateway({
      routes: [{ route: ROUTE, handler }],
      authorizer,
      maxBodyBytes: 64,
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    close = () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    return (server.address() as AddressInfo).port;
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

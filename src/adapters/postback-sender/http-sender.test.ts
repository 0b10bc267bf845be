/**
 * The sender against a server on loopback: what an attempt comes to for each kind of answer,
 * a time-out, and the addresses it refuses, a name's included (an injected lookup stands for
 * DNS: a name that answers a private or metadata address is refused at connection time).
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LookupAll } from "../../postbacks/url-safety.ts";
import { createHttpSender, POSTBACK_USER_AGENT } from "./http-sender.ts";

/** A resolver for the test's names; any other name does not resolve. */
const fakeDns =
  (names: Record<string, string>): LookupAll =>
  (hostname, _options, callback) => {
    const address = names[hostname];
    if (!address) {
      const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      error.code = "ENOTFOUND";
      callback(error, []);
      return;
    }
    callback(null, [{ address, family: address.includes(":") ? 6 : 4 }]);
  };

/** Listens on a free loopback port; the port. */
const listening = async (server: Server) => {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
};

const closing = (server: Server) => {
  server.closeAllConnections();
  server.close();
};

describe("the postback sender", () => {
  let server: Server;
  let port: number;
  const seen: { method?: string; url?: string; headers: Record<string, unknown>; body: string }[] =
    [];
  /** The requests whose connection the sender closed before the server ended it. */
  const closed = new Set<string>();

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        seen.push({
          method: request.method,
          url: request.url,
          headers: request.headers,
          body: Buffer.concat(chunks).toString(),
        });
        if (request.url?.startsWith("/hang")) {
          request.socket.once("close", () => closed.add(request.url ?? ""));
          return;
        }
        if (request.url?.startsWith("/endless")) {
          // More than is read of an answer, and then no end.
          response.once("close", () => closed.add(request.url ?? ""));
          response.writeHead(200).write("x".repeat(70 * 1024));
          return;
        }
        if (request.url?.startsWith("/stall")) {
          // The status and part of the body, then nothing more.
          response.writeHead(200, { "content-type": "text/plain" });
          response.write("accepted");
          return;
        }
        if (request.url?.startsWith("/reset")) {
          // The status and part of the body, then the connection reset (a proxy that died).
          response.writeHead(200, { "content-type": "text/plain" });
          response.write("accepted", () => setTimeout(() => request.socket.resetAndDestroy(), 50));
          return;
        }
        if (request.url?.startsWith("/redirect")) {
          response.writeHead(301, { location: "/elsewhere" }).end();
          return;
        }
        if (request.url?.startsWith("/limited")) {
          response.writeHead(429, { "retry-after": "120" }).end("slow down");
          return;
        }
        if (request.url?.startsWith("/large")) {
          response.writeHead(200).end("x".repeat(200 * 1024));
          return;
        }
        response.writeHead(request.url?.startsWith("/busy") ? 503 : 200).end("fine");
      });
    });
    port = await listening(server);
  });

  afterAll(() => closing(server));

  const sender = (options: { allowLoopback?: boolean; timeoutMs?: number } = {}) =>
    createHttpSender({
      allowLoopback: options.allowLoopback ?? true,
      timeoutMs: options.timeoutMs,
      lookup: fakeDns({
        localhost: "127.0.0.1",
        "partner.test": "127.0.0.1",
        "rebound.test": "10.0.0.1",
        "metadata.test": "169.254.169.254",
      }),
    });
  const get = (url: string) => ({ method: "GET", url, headers: {}, body: null });

  it("sends the request as built, and answers its status and body", async () => {
    const outcome = await sender().send({
      method: "POST",
      // A name, looked up and checked: loopback, which the setting allows.
      url: `http://localhost:${port}/ok?x=1`,
      headers: { "Content-Type": "application/json" },
      body: '{"a":1}',
    });
    expect(outcome).toEqual({ kind: "answer", status: 200, body: "fine" });
    expect(seen.at(-1)).toMatchObject({
      method: "POST",
      url: "/ok?x=1",
      body: '{"a":1}',
      headers: { "user-agent": POSTBACK_USER_AGENT, "content-length": "7" },
    });
    expect(await sender().send(get(`http://127.0.0.1:${port}/busy`))).toMatchObject({
      kind: "answer",
      status: 503,
    });
  });

  it("sends a template's own User-Agent, in any case, alone, and a body's length in bytes", async () => {
    const body = '{"name":"café ☕"}';
    await sender().send({
      method: "POST",
      url: `http://127.0.0.1:${port}/ok`,
      headers: { "user-AGENT": "partner-sdk/2" },
      body,
    });
    expect(seen.at(-1)).toMatchObject({
      body,
      headers: { "user-agent": "partner-sdk/2", "content-length": String(Buffer.byteLength(body)) },
    });
  });

  it("answers a status's Retry-After, for the retry to wait as long", async () => {
    expect(await sender().send(get(`http://127.0.0.1:${port}/limited`))).toEqual({
      kind: "answer",
      status: 429,
      body: "slow down",
      retryAfter: "120",
    });
  });

  it("follows no redirect", async () => {
    const before = seen.length;
    expect(await sender().send(get(`http://127.0.0.1:${port}/redirect`))).toMatchObject({
      kind: "answer",
      status: 301,
    });
    expect(seen.slice(before).map((request) => request.url)).toEqual(["/redirect"]);
  });

  it("reads 64 KiB of an answer at most", async () => {
    const outcome = await sender().send(get(`http://127.0.0.1:${port}/large`));
    expect(outcome.kind === "answer" && outcome.body?.length).toBe(64 * 1024);
  });

  it("leaves an answer once it has read as much as it reads, closing its connection", async () => {
    const outcome = await sender({ timeoutMs: 60_000 }).send(
      get(`http://127.0.0.1:${port}/endless`),
    );
    expect(outcome.kind === "answer" && outcome.body?.length).toBe(64 * 1024);
    await expect.poll(() => closed.has("/endless")).toBe(true);
  });

  it("gives up on an answer that does not come in time, closing its connection", async () => {
    expect(await sender({ timeoutMs: 200 }).send(get(`http://127.0.0.1:${port}/hang`))).toEqual({
      kind: "timeout",
    });
    await expect.poll(() => closed.has("/hang")).toBe(true);
  });

  it("answers a status that came in time with the part of its body that came, not a time-out", async () => {
    const before = seen.length;
    expect(await sender({ timeoutMs: 3_000 }).send(get(`http://127.0.0.1:${port}/stall`))).toEqual({
      kind: "answer",
      status: 200,
      body: "accepted",
    });
    expect(seen.slice(before).map((request) => request.url)).toEqual(["/stall"]);
  });

  it("answers a status whose body a reset cut off with that status, not a connection error", async () => {
    const before = seen.length;
    expect(await sender().send(get(`http://127.0.0.1:${port}/reset`))).toMatchObject({
      kind: "answer",
      status: 200,
    });
    // Received once: the reset made no second send.
    expect(seen.slice(before).map((request) => request.url)).toEqual(["/reset"]);
  });

  it("answers a connection error with its code", async () => {
    expect(await sender().send(get("https://nowhere.test/x"))).toMatchObject({
      kind: "connection",
      code: "ENOTFOUND",
    });
  });

  it("refuses a name that resolves to a private or metadata address, loopback allowed or not", async () => {
    const before = seen.length;
    const rebound = await sender().send(get(`https://rebound.test:${port}/x`));
    expect(rebound).toMatchObject({ kind: "refused" });
    expect(rebound.kind === "refused" && rebound.reason).toMatch(/private address \(10\.0\.0\.1\)/);
    const metadata = await sender().send(get("https://metadata.test/latest"));
    expect(metadata.kind === "refused" && metadata.reason).toMatch(/metadata address/);
    // A loopback name only with the setting.
    const named = await sender({ allowLoopback: false }).send(
      get(`https://partner.test:${port}/x`),
    );
    expect(named.kind === "refused" && named.reason).toMatch(/loopback address/);
    expect(seen.length).toBe(before);
  });

  it("refuses a literal address before any lookup", async () => {
    for (const url of [
      "https://10.0.0.1/x",
      "https://169.254.169.254/x",
      "https://[::ffff:10.0.0.1]/x",
    ]) {
      expect(await sender().send(get(url))).toMatchObject({ kind: "refused" });
    }
    expect(
      await sender({ allowLoopback: false }).send(get(`http://127.0.0.1:${port}/ok`)),
    ).toMatchObject({ kind: "refused", reason: "the URL must be https" });
  });
});

describe("the postback sender's kept connections", () => {
  let server: Server;
  let port: number;
  let connections = 0;
  /** Requests per connection; the server drops a connection at its `dropAt`-th request. */
  let dropAt = Number.POSITIVE_INFINITY;
  const closed: Promise<void>[] = [];
  /** The paths of the requests the server took, in order. */
  const served: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      served.push(request.url ?? "");
      const socket = request.socket as typeof request.socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      if (socket.served >= dropAt) {
        socket.destroy();
        return;
      }
      response.end("fine");
    });
    server.on("connection", (socket) => {
      connections += 1;
      closed.push(once(socket, "close").then(() => undefined));
    });
    port = await listening(server);
  });

  afterAll(() => closing(server));

  const get = (url: string) => ({ method: "GET", url, headers: {}, body: null });
  // Plain http goes to loopback only, by the name `localhost`, under the setting; the injected
  // lookup stands for DNS, so the name can be re-pointed.
  let answers: Record<string, string> = {};
  const sender = (keepIdleMs?: number) =>
    createHttpSender({ allowLoopback: true, keepIdleMs, lookup: fakeDns(answers) });

  const FINE = { kind: "answer", status: 200, body: "fine" };
  /** A sender of its own to `localhost` (loopback), with the server's counts started afresh. */
  const fresh = (options: { dropAt?: number; keepIdleMs?: number } = {}) => {
    connections = 0;
    closed.length = 0;
    served.length = 0;
    dropAt = options.dropAt ?? Number.POSITIVE_INFINITY;
    answers = { localhost: "127.0.0.1" };
    const one = sender(options.keepIdleMs);
    return (path: string) => one.send(get(`http://localhost:${port}${path}`));
  };

  it("sends attempts to one host over one connection", async () => {
    const send = fresh();
    for (let i = 0; i < 3; i++) expect(await send(`/${i}`)).toEqual(FINE);
    expect(connections).toBe(1);
  });

  it("answers a kept connection reset before any answer as a connection error, the request sent once", async () => {
    // The server takes the second request, then drops the kept connection without answering:
    // it may have counted it, so the attempt is not made again within itself.
    const send = fresh({ dropAt: 2 });
    expect(await send("/first")).toEqual(FINE);
    expect(await send("/second")).toMatchObject({ kind: "connection", code: "ECONNRESET" });
    expect(served).toEqual(["/first", "/second"]);
    // The next attempt goes on a new connection.
    expect(await send("/third")).toEqual(FINE);
    expect(connections).toBe(2);
  });

  it("closes an idle connection, so that a name re-pointed since is checked again", async () => {
    const send = fresh({ keepIdleMs: 50 });
    expect(await send("/x")).toEqual(FINE);
    answers.localhost = "10.0.0.1";
    // The connection is closed once idle for its time, not by the server.
    await Promise.all(closed);
    const again = await send("/x");
    expect(again.kind === "refused" && again.reason).toMatch(/private address \(10\.0\.0\.1\)/);
    expect(connections).toBe(1);
  });
});

/**
 * A mock ad network (and a mock app backend) on this machine's loopback, for the postback
 * tests: it records every request (method, path, query, headers, raw body) and answers as the
 * test says for its path: a status, or nothing at all until the test lets it go.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface Received {
  readonly method: string;
  readonly path: string;
  /** The request's target as it came, query and all, encoded as it was sent. */
  readonly target: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage["headers"];
  /** The bytes received, as a signature is computed over them. */
  readonly body: Buffer;
  /** The status answered, or null while (or because) the request is held. */
  status: number | null;
}

export type Answer =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string }
  /** No answer until `release()` (or the connection closes). */
  | "hold";

export interface MockNetwork {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
  /** The requests to a path (exactly, or those starting with it when it ends in `*`). */
  to(path: string): Received[];
  /** Resolves once `count` requests match, or fails after `timeoutMs`. */
  waitFor(
    predicate: (request: Received) => boolean,
    count?: number,
    timeoutMs?: number,
  ): Promise<Received[]>;
  /** Answers every held request with 200, and later ones as `answer` says. */
  release(): void;
  close(): Promise<void>;
}

export const startMockNetwork = async (
  answer: (request: Received) => Answer = () => ({ status: 200, body: "ok" }),
): Promise<MockNetwork> => {
  const received: Received[] = [];
  const held: Array<{ request: Received; response: ServerResponse }> = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const url = new URL(incoming.url ?? "/", "http://mock.invalid");
      const request: Received = {
        method: incoming.method ?? "",
        path: url.pathname,
        target: incoming.url ?? "",
        query: url.searchParams,
        headers: incoming.headers,
        body: Buffer.concat(chunks),
        status: null,
      };
      received.push(request);
      const decided = answer(request);
      if (decided === "hold") {
        held.push({ request, response });
        return;
      }
      request.status = decided.status;
      response.writeHead(decided.status, decided.headers ?? {});
      response.end(decided.body ?? "");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const matches = (path: string, request: Received) =>
    path.endsWith("*") ? request.path.startsWith(path.slice(0, -1)) : request.path === path;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    to: (path) => received.filter((request) => matches(path, request)),
    async waitFor(predicate, count = 1, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.filter(predicate);
        if (found.length >= count) return found;
        if (Date.now() > deadline) {
          throw new Error(
            `the mock network got ${found.length} of ${count} requests; it got: ${received
              .map((request) => `${request.method} ${request.path}?${request.query}`)
              .join(", ")}`,
          );
        }
        await sleep(25);
      }
    },
    release() {
      for (const { request, response } of held.splice(0)) {
        request.status = 200;
        if (!response.destroyed) response.writeHead(200).end("ok");
      }
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
};

import { describe, expect, it } from "vitest";
import type { Route } from "../http/routes.ts";
import type { Authorizer, RouteHandler } from "./gateway.ts";
import { httpOrigin, listen, listenAll } from "./listeners.ts";

const ROUTE: Route = {
  id: "slow",
  method: "GET",
  path: "/v1/slow",
  scope: null,
  publicReason: "a test route",
  streaming: false,
  memoryMb: 128,
  timeoutSeconds: 5,
};

const noAuthorizer: Authorizer = async () => {
  throw new Error("not called for a public route");
};

describe("a listener's close", () => {
  it("resolves only once the requests it took are answered, so none outlives the stores", async () => {
    let release: () => void = () => {};
    let markStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      markStarted = resolve;
    });
    const events: string[] = [];
    const handler: RouteHandler = async () => {
      markStarted();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      events.push("handler done");
      return { statusCode: 200, headers: {}, body: "late" };
    };
    const listening = await listen({
      name: "test",
      host: "127.0.0.1",
      port: 0,
      gateway: { routes: [{ route: ROUTE, handler, maxBodyBytes: 0 }], authorizer: noAuthorizer },
    });
    const asked = fetch(`${listening.url}/v1/slow`).catch(() => "cut");
    await started;
    const closed = listening.close().then(() => events.push("closed"));
    // The connection is cut at once; the handler still runs, and close waits for it.
    expect(await asked).toBe("cut");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual([]);
    release();
    await closed;
    expect(events).toEqual(["handler done", "closed"]);
  });
});

describe("a table of listeners", () => {
  it("listens on every row or none: one that cannot listen closes those that did", async () => {
    const gateway = { routes: [], authorizer: noAuthorizer };
    const taken = await listen({ name: "taken", host: "127.0.0.1", port: 0, gateway });
    const port = Number(new URL(taken.url).port);
    try {
      // The first row on another loopback address, where the port is free (and no one else's:
      // while 127.0.0.1 holds it, no listener on every address can take it either).
      await expect(
        listenAll([
          { name: "first", host: "127.0.0.2", port, gateway },
          { name: "second", host: "127.0.0.1", port, gateway },
        ]),
      ).rejects.toMatchObject({ code: "EADDRINUSE" });
      // The first row's listener, which did listen, was closed again: its address is free.
      const again = await listen({ name: "first", host: "127.0.0.2", port, gateway });
      await again.close();
    } finally {
      await taken.close();
    }
  });
});

describe("a listener's origin", () => {
  it("writes an IPv6 address in brackets, as a URL has it, and any other host as it is", () => {
    expect(httpOrigin("::1", 8787)).toBe("http://[::1]:8787");
    expect(new URL(`${httpOrigin("::1", 8787)}/v1/links`).port).toBe("8787");
    expect(httpOrigin("127.0.0.1", 8788)).toBe("http://127.0.0.1:8788");
    expect(httpOrigin("localhost", 80)).toBe("http://localhost:80");
  });
});

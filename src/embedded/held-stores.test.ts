/**
 * The held stores as the CLI reaches them while the service runs: the delivery log over the
 * loopback bridge holds to the same contract as the store itself
 * (../adapters/contracts/postbacks.test-support.ts), and the bridge answers no one without its
 * token, and no method outside its list.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describePostbackStoresContract } from "../adapters/contracts/postbacks.test-support.ts";
import { createPostbackConfigStore } from "../adapters/dynamodb/postbacks.ts";
import {
  type LocalDeliveryLog,
  openLocalDeliveryLog,
} from "../adapters/local-delivery-log/delivery-log.ts";
import { openLocalOutboxStore } from "../adapters/local-outbox/outbox-store.ts";
import { ValidationError } from "../domain/errors.ts";
import { DELIVERY_LOG_METHODS, type DeliveryLog } from "../ports/postbacks.ts";
import { heldStoresAt, serveHeldStores } from "./held-stores.ts";
import { LOCAL_TABLE_NAMES, startLocalDynamoDb } from "./local-dynamodb.ts";

describePostbackStoresContract("the delivery log through the CLI's bridge", async () => {
  const dir = await mkdtemp(join(tmpdir(), "held-stores-contract-"));
  const dynamo = await startLocalDynamoDb(join(dir, "dynamodb"));
  const outbox = await openLocalOutboxStore(join(dir, "outbox"));
  const log = await openLocalDeliveryLog(join(dir, "delivery-log"));
  const served = await serveHeldStores({ deliveryLog: log });
  return {
    configs: createPostbackConfigStore(dynamo.doc, LOCAL_TABLE_NAMES.postbackConfigs),
    outbox,
    log: heldStoresAt(served).deliveryLog,
    close: async () => {
      await served.close();
      await outbox.close();
      await log.close();
      await dynamo.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe("the held stores' bridge, what a store's methods give", () => {
  it("gives back a result as it is, null as null and none as undefined, and any other error as no ValidationError", async () => {
    const results: Record<string, unknown> = { reap: null, counts: { sent: 1 }, append: undefined };
    const store = Object.fromEntries(
      DELIVERY_LOG_METHODS.map((method) => [
        method,
        async () => {
          if (method === "listByApp") throw new Error("the disk is gone");
          return results[method];
        },
      ]),
    ) as unknown as DeliveryLog;
    const served = await serveHeldStores({ deliveryLog: store });
    try {
      const held = heldStoresAt(served).deliveryLog as unknown as Record<
        string,
        () => Promise<unknown>
      >;
      for (const [method, result] of Object.entries(results)) {
        expect([method, await held[method]?.()]).toStrictEqual([method, result]);
      }
      const failed = await held.listByApp?.().catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(Error);
      expect(failed).not.toBeInstanceOf(ValidationError);
      expect((failed as Error).message).toBe("the disk is gone");
      // A ValidationError's status is 400, any other failure's 500.
      const raw = await fetch(`${served.url}/deliveryLog/listByApp`, {
        method: "POST",
        headers: { authorization: `Bearer ${served.token}` },
        body: "[]",
      });
      expect(raw.status).toBe(500);
    } finally {
      await served.close();
    }
  });
});

describe("the held stores' bridge, when the service stops", () => {
  it("closes with a call still in hand, and the caller hears of it", async () => {
    let called: () => void = () => {};
    const calling = new Promise<void>((resolve) => {
      called = resolve;
    });
    const store = Object.fromEntries(
      DELIVERY_LOG_METHODS.map((method) => [
        method,
        () => {
          called();
          return new Promise(() => {});
        },
      ]),
    ) as unknown as DeliveryLog;
    const served = await serveHeldStores({ deliveryLog: store });
    const call = heldStoresAt(served)
      .deliveryLog.counts("app", new Date())
      .catch((error: unknown) => error);
    await calling;
    await served.close();
    expect(await call).toBeInstanceOf(Error);
  });
});

describe("the held stores' bridge", () => {
  let dir: string;
  let log: LocalDeliveryLog;
  let served: Awaited<ReturnType<typeof serveHeldStores>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "held-stores-"));
    log = await openLocalDeliveryLog(join(dir, "delivery-log"));
    served = await serveHeldStores({ deliveryLog: log });
  });

  afterAll(async () => {
    await served.close();
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });

  const post = (path: string, token: string) =>
    fetch(`${served.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify(["app", { $date: new Date().toISOString() }]),
    });

  it("listens on loopback alone: its port is open to this machine only", () => {
    expect(new URL(served.url).hostname).toBe("127.0.0.1");
  });

  it("answers no caller without the token of this start", async () => {
    expect((await post("/deliveryLog/counts", "another-token")).status).toBe(401);
    expect((await post("/deliveryLog/counts", served.token)).status).toBe(200);
  });

  it("answers a token of the right length in other bytes 401, and goes on answering", async () => {
    // One character of Latin-1 a header byte: as many characters as the token, more bytes.
    const given = Buffer.from(`Bearer ${"\u00e9".repeat(served.token.length)}`, "latin1");
    const socket = connect(Number(new URL(served.url).port), "127.0.0.1");
    socket.end(
      Buffer.concat([
        Buffer.from("POST /deliveryLog/counts HTTP/1.1\r\nHost: held\r\nAuthorization: "),
        given,
        Buffer.from("\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
      ]),
    );
    let reply = "";
    for await (const chunk of socket) reply += String(chunk);
    expect(reply).toMatch(/^HTTP\/1\.1 401 /);
    expect((await post("/deliveryLog/counts", served.token)).status).toBe(200);
  });

  it("calls no method outside its list", async () => {
    expect((await post("/deliveryLog/close", served.token)).status).toBe(404);
    expect((await post("/outbox/get", served.token)).status).toBe(404);
    expect((await post("/constructor/name", served.token)).status).toBe(404);
  });

  it("refuses a call by any other method, or larger than a call is", async () => {
    const get = await fetch(`${served.url}/deliveryLog/counts`, {
      headers: { authorization: `Bearer ${served.token}` },
    });
    expect(get.status).toBe(404);
    const large = await fetch(`${served.url}/deliveryLog/counts`, {
      method: "POST",
      headers: { authorization: `Bearer ${served.token}` },
      body: JSON.stringify(["app", "x".repeat(1024 * 1024)]),
    });
    expect(large.status).toBe(413);
  });

  it("brings a store's ValidationError back as one", async () => {
    const held = heldStoresAt(served).deliveryLog;
    await expect(held.listByApp("app", { limit: 1, after: "not a cursor" })).rejects.toThrow(
      ValidationError,
    );
    const raw = await fetch(`${served.url}/deliveryLog/listByApp`, {
      method: "POST",
      headers: { authorization: `Bearer ${served.token}` },
      body: JSON.stringify(["app", { limit: 1, after: "not a cursor" }]),
    });
    expect(raw.status).toBe(400);
  });
});

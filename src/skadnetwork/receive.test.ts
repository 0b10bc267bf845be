import { describe, expect, it } from "vitest";
import type { StoredApplePostback } from "../ports/apple-postbacks.ts";
import type { App } from "../ports/apps.ts";
import { SKAN_4_FINE } from "./apple-samples.test-support.ts";
import { createPostbackReceiver } from "./receive.ts";

const APP: App = {
  appId: "com.example.skan",
  name: "Skan",
  platform: "ios",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
  links: { appStoreId: "525463029" },
};

/** A store in memory, keyed as the table is. */
const memoryStore = () => {
  const items = new Map<string, StoredApplePostback>();
  const key = (p: Pick<StoredApplePostback, "kind" | "transactionId">) =>
    `${p.kind}#${p.transactionId}`;
  return {
    items,
    add: async (postback: StoredApplePostback) => {
      if (items.has(key(postback))) return false;
      items.set(key(postback), postback);
      return true;
    },
    remove: async (postback: Pick<StoredApplePostback, "kind" | "transactionId">) => {
      items.delete(key(postback));
    },
  };
};

describe("receiving a postback", () => {
  it("takes a stored postback back out when its lake row fails, so the device's retry writes both", async () => {
    const store = memoryStore();
    const rows: unknown[] = [];
    let lakeUp = false;
    const receiver = createPostbackReceiver({
      apps: async () => [APP],
      store,
      lake: {
        put: async (records) => {
          if (!lakeUp) throw new Error("the stream is out of reach");
          rows.push(...records);
        },
      },
    });
    await expect(receiver.receive("skadnetwork", SKAN_4_FINE)).rejects.toThrow(/out of reach/);
    expect(store.items.size).toBe(0);
    lakeUp = true;
    expect(await receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: true });
    expect(await receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: false });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      app_id: APP.appId,
      transaction_id: SKAN_4_FINE["transaction-id"],
    });
  });

  it("knows its two endpoint folders by their own names only", async () => {
    const store = memoryStore();
    const receiver = createPostbackReceiver({
      apps: async () => [APP],
      store,
      lake: { put: async () => undefined },
    });
    for (const folder of ["__proto__", "constructor", "toString", "hasOwnProperty", "elsewhere"]) {
      await expect(receiver.receive(folder, SKAN_4_FINE), folder).rejects.toMatchObject({
        statusCode: 404,
      });
    }
    expect(store.items.size).toBe(0);
  });
});

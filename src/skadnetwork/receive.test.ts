import { describe, expect, it } from "vitest";
import {
  copyStanding,
  type PostbackKey,
  type StoredApplePostback,
} from "../ports/apple-postbacks.ts";
import type { App } from "../ports/apps.ts";
import {
  AAK_DEVELOPMENT,
  SAMPLE_APP,
  SKAN_4_COARSE,
  SKAN_4_FINE,
} from "./apple-samples.test-support.ts";
import { readPostback } from "./postbacks.ts";
import { createPostbackReceiver } from "./receive.ts";

const APP = SAMPLE_APP;

/**
 * A store in memory, keyed as the table is, taking a copy in the place of one of lower standing
 * as the table's conditional put does (over HTTP: test/integration/skadnetwork.test.ts).
 */
const memoryStore = () => {
  const items = new Map<string, StoredApplePostback>();
  const key = (p: PostbackKey) => `${p.kind}#${p.transactionId}#${p.sequenceIndex}`;
  let down = false;
  return {
    items,
    fail: (value: boolean) => {
      down = value;
    },
    get: async (p: PostbackKey) => items.get(key(p)),
    dispute: async (p: PostbackKey) => {
      const kept = items.get(key(p));
      if (kept) items.set(key(p), { ...kept, valuesDisputed: true });
    },
    add: async (postback: StoredApplePostback) => {
      if (down) throw new Error("the table is out of reach");
      const kept = items.get(key(postback));
      if (kept && copyStanding(postback) <= copyStanding(kept)) return false;
      items.set(key(postback), postback);
      return true;
    },
  };
};

const recordingLake = () => {
  const rows: Record<string, unknown>[] = [];
  let down = false;
  return {
    rows,
    fail: (value: boolean) => {
      down = value;
    },
    put: async (records: readonly Record<string, unknown>[]) => {
      if (down) throw new Error("the stream is out of reach");
      rows.push(...records);
    },
  };
};

describe("receiving a postback", () => {
  it("stores nothing when its lake row fails, so the device's retry writes both", async () => {
    const store = memoryStore();
    const lake = recordingLake();
    const receiver = createPostbackReceiver({ apps: async () => [APP], store, lake });
    lake.fail(true);
    await expect(receiver.receive("skadnetwork", SKAN_4_FINE)).rejects.toThrow(/out of reach/);
    expect(store.items.size).toBe(0);
    lake.fail(false);
    expect(await receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: true });
    expect(await receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: false });
    expect(lake.rows).toHaveLength(1);
    expect(lake.rows[0]).toMatchObject({
      app_id: APP.appId,
      transaction_id: SKAN_4_FINE["transaction-id"],
    });
  });

  it("fails the answer when the table fails after the lake row, and its retry stores it", async () => {
    const store = memoryStore();
    const lake = recordingLake();
    const receiver = createPostbackReceiver({ apps: async () => [APP], store, lake });
    store.fail(true);
    await expect(receiver.receive("skadnetwork", SKAN_4_FINE)).rejects.toThrow(/out of reach/);
    store.fail(false);
    expect(await receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: true });
    // The row twice: the report counts each transaction once (./report-query.ts).
    expect(lake.rows.map((row) => row.transaction_id)).toEqual([
      SKAN_4_FINE["transaction-id"],
      SKAN_4_FINE["transaction-id"],
    ]);
    expect(store.items.size).toBe(1);
  });

  it("takes Apple's signed copy in place of an unverified one first received, and never the reverse", async () => {
    const store = memoryStore();
    const lake = recordingLake();
    const receiver = createPostbackReceiver({ apps: async () => [APP], store, lake });
    // Anyone who has the transaction id (every ad network the postback went to) can post first.
    const forged = { ...SKAN_4_FINE, "source-identifier": "1111" };
    expect(await receiver.receive("skadnetwork", forged)).toEqual({ created: true });
    const key = {
      kind: "skadnetwork" as const,
      transactionId: SKAN_4_FINE["transaction-id"],
      sequenceIndex: SKAN_4_FINE["postback-sequence-index"],
    };
    expect((await store.get(key))?.verification.status).toBe("unverified");
    expect(await receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: true });
    expect(await store.get(key)).toMatchObject({
      conversionValue: 63,
      verification: { status: "verified" },
    });
    // Once Apple's copy is kept, neither a forged one nor its retry is written.
    expect(await receiver.receive("skadnetwork", forged)).toEqual({ created: false });
    expect(await receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: false });
    expect(lake.rows.map((row) => row.verification)).toEqual(["unverified", "verified"]);
  });

  it("marks the stored values disputed when a second signed copy carries others, its row written once", async () => {
    const store = memoryStore();
    const lake = recordingLake();
    const receiver = createPostbackReceiver({ apps: async () => [APP], store, lake });
    const key = {
      kind: "skadnetwork" as const,
      transactionId: SKAN_4_FINE["transaction-id"],
      sequenceIndex: SKAN_4_FINE["postback-sequence-index"],
    };
    // Apple signs no conversion value: an edited copy posted first verifies.
    const edited = { ...SKAN_4_FINE, "conversion-value": 1 };
    expect(await receiver.receive("skadnetwork", edited)).toEqual({ created: true });
    // A retry of the same copy disputes nothing.
    expect(await receiver.receive("skadnetwork", edited)).toEqual({ created: false });
    expect(await store.get(key)).toMatchObject({ conversionValue: 1, valuesDisputed: false });

    expect(await receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: false });
    expect(await store.get(key)).toMatchObject({ conversionValue: 1, valuesDisputed: true });
    expect(await receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: false });
    // Both copies' rows, for the lake's report to see the dispute, at the kept copy's time;
    // the retry adds none.
    expect(lake.rows.map((row) => row.conversion_value)).toEqual([1, 63]);
    expect(lake.rows[1]?.received_at).toBe(lake.rows[0]?.received_at);
  });

  it("writes a disputing copy's row under the app its postback is kept under, whatever holds the id now", async () => {
    const edited = { ...SKAN_4_FINE, "conversion-value": 1 };
    const receiving = () => {
      const lake = recordingLake();
      const holders: { apps: App[] } = { apps: [] };
      const receiver = createPostbackReceiver({
        apps: async () => holders.apps,
        store: memoryStore(),
        lake,
      });
      return { lake, holders, receiver };
    };
    // Kept under no app; the app takes the id since: an edited copy adds no row to its report.
    const late = receiving();
    expect(await late.receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: true });
    late.holders.apps = [APP];
    expect(await late.receiver.receive("skadnetwork", edited)).toEqual({ created: false });
    expect(late.lake.rows).toEqual([]);

    // Kept under the app, which gives the id up since: the dispute reaches the app's report.
    const given = receiving();
    given.holders.apps = [APP];
    expect(await given.receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: true });
    given.holders.apps = [];
    expect(await given.receiver.receive("skadnetwork", edited)).toEqual({ created: false });
    expect(given.lake.rows.map((row) => [row.app_id, row.conversion_value])).toEqual([
      [APP.appId, 63],
      [APP.appId, 1],
    ]);
  });

  it("lets no unverified copy dispute another: anyone can post one", async () => {
    const store = memoryStore();
    const lake = recordingLake();
    const receiver = createPostbackReceiver({ apps: async () => [APP], store, lake });
    const forged = { ...SKAN_4_FINE, "source-identifier": "1111" };
    expect(await receiver.receive("skadnetwork", forged)).toEqual({ created: true });
    expect(await receiver.receive("skadnetwork", { ...forged, "conversion-value": 2 })).toEqual({
      created: false,
    });
    expect([...store.items.values()]).toMatchObject([
      { conversionValue: 63, valuesDisputed: false, verification: { status: "unverified" } },
    ]);
    expect(lake.rows).toHaveLength(1);
  });

  it("marks the stored values disputed when a signed copy differs in its coarse value alone", async () => {
    const store = memoryStore();
    const lake = recordingLake();
    const receiver = createPostbackReceiver({ apps: async () => [APP], store, lake });
    const edited = { ...SKAN_4_COARSE, "coarse-conversion-value": "low" };
    expect(await receiver.receive("skadnetwork", edited)).toEqual({ created: true });
    expect(await receiver.receive("skadnetwork", SKAN_4_COARSE)).toEqual({ created: false });
    expect([...store.items.values()]).toMatchObject([
      { coarseValue: "low", valuesDisputed: true, verification: { status: "verified" } },
    ]);
    expect(lake.rows.map((row) => row.coarse_conversion_value)).toEqual(["low", "high"]);
  });

  it("settles a copy against the one stored between its read and its write", async () => {
    const store = memoryStore();
    const lake = recordingLake();
    // Another copy, signed, with other values, is stored just after this one's read missed it.
    const other = readPostback("skadnetwork", { ...SKAN_4_FINE, "conversion-value": 1 });
    if (!other.ok) throw new Error(other.problem);
    let reads = 0;
    const racing = {
      ...store,
      get: async (key: PostbackKey) => {
        reads += 1;
        if (reads === 1) {
          await store.add({
            ...other.postback,
            appId: APP.appId,
            receivedAt: "2026-11-01T00:00:00.000Z",
            valuesDisputed: false,
          });
          return undefined;
        }
        return store.get(key);
      },
    };
    const receiver = createPostbackReceiver({ apps: async () => [APP], store: racing, lake });
    expect(await receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: false });
    expect([...store.items.values()]).toMatchObject([{ conversionValue: 1, valuesDisputed: true }]);
  });

  it("keeps a postback of an App Store id no app has, with no row in the lake", async () => {
    const store = memoryStore();
    const lake = recordingLake();
    const other: App = { ...APP, links: { appStoreId: "999" } };
    const receiver = createPostbackReceiver({ apps: async () => [other], store, lake });
    expect(await receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: true });
    expect([...store.items.values()]).toMatchObject([{ appId: null, appStoreId: "525463029" }]);
    expect(lake.rows).toEqual([]);
  });

  it("keeps a copy that takes the place of one kept under an app under that app, though its list of apps has none for the id", async () => {
    const store = memoryStore();
    const lake = recordingLake();
    // A list of apps a moment old, from before the id was set: under no app, the signed copy
    // would count for the app twice (the test's row in the lake, and itself by its App Store id).
    const receiver = createPostbackReceiver({ apps: async () => [], store, lake });
    const production = readPostback("skadnetwork", SKAN_4_FINE);
    if (!production.ok) throw new Error(production.problem);
    const test: StoredApplePostback = {
      ...production.postback,
      verification: { ...production.postback.verification, environment: "development" },
      appId: APP.appId,
      receivedAt: "2026-11-01T00:00:00.000Z",
      valuesDisputed: false,
    };
    await store.add(test);
    expect(await receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: true });
    expect(await store.get(test)).toMatchObject({
      appId: APP.appId,
      verification: { environment: "production" },
    });
    expect(lake.rows).toMatchObject([{ app_id: APP.appId, environment: "production" }]);
  });

  it("takes a copy signed for production in place of a test's, and neither disputes the other", async () => {
    const read = readPostback("adattributionkit", AAK_DEVELOPMENT);
    if (!read.ok) throw new Error(read.problem);
    const development = read.postback;
    expect(development.verification).toMatchObject({
      status: "verified",
      environment: "development",
    });
    const app: App = { ...APP, links: { appStoreId: development.appStoreId } };
    for (const environment of ["production", "development"] as const) {
      const store = memoryStore();
      const lake = recordingLake();
      const receiver = createPostbackReceiver({ apps: async () => [app], store, lake });
      // Kept with other values: signed in production, or (the control) in development.
      const kept: StoredApplePostback = {
        ...development,
        conversionValue: 7,
        verification: { ...development.verification, environment },
        appId: app.appId,
        receivedAt: "2026-11-01T00:00:00.000Z",
        valuesDisputed: false,
      };
      await store.add(kept);
      expect(await receiver.receive("appattribution", AAK_DEVELOPMENT)).toEqual({
        created: false,
      });
      const disputed = environment === "development";
      expect((await store.get(kept))?.valuesDisputed, environment).toBe(disputed);
      expect(lake.rows.length, environment).toBe(disputed ? 1 : 0);
    }
    // The reverse: a copy signed for production, where a test's is kept, takes its place.
    const store = memoryStore();
    const lake = recordingLake();
    const receiver = createPostbackReceiver({ apps: async () => [APP], store, lake });
    const production = readPostback("skadnetwork", SKAN_4_FINE);
    if (!production.ok) throw new Error(production.problem);
    expect(production.postback.verification.environment).toBe("production");
    const kept: StoredApplePostback = {
      ...production.postback,
      conversionValue: 7,
      verification: { ...production.postback.verification, environment: "development" },
      appId: APP.appId,
      receivedAt: "2026-11-01T00:00:00.000Z",
      valuesDisputed: false,
    };
    await store.add(kept);
    expect(await receiver.receive("skadnetwork", SKAN_4_FINE)).toEqual({ created: true });
    expect(await store.get(kept)).toMatchObject({
      conversionValue: SKAN_4_FINE["conversion-value"],
      verification: { environment: "production" },
      valuesDisputed: false,
    });
    expect(lake.rows.map((row) => row.environment)).toEqual(["production"]);
    // And a test's copy again, after it, is not written over it.
    const again = { ...kept, receivedAt: "2026-11-02T00:00:00.000Z" };
    expect(await store.add(again)).toBe(false);
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

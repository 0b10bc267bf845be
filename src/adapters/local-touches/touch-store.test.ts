/**
 * What the embedded touch store holds beyond the contract it shares with DynamoDB's table
 * (./touch-store.contract.test.ts): its folder opened again holds what it stored; a lookup
 * key that another begins with (an advertising id is the sender's to say, NULs and all) never
 * takes that other's touches; a touch written over is found by its new lookups only, and
 * reaped by its own expiry, the old version's keys deleted with no trace left; a deleted touch
 * and a released claim leave no key; a reap keeps DynamoDB's TTL to the second; a close waits
 * for the writes under way.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { touchExpirySeconds } from "../../touches/lookup-keys.ts";
import { contractTouch } from "../contracts/touch-store.test-support.ts";
import { keysIn } from "../local-disk/keys.test-support.ts";
import { SEPARATOR } from "../local-disk/level.ts";
import { openLocalTouchStore } from "./touch-store.ts";

const T0 = Date.parse("2026-11-24T12:00:00.000Z");
const APP = "com.example.local";
const day = { appId: APP, from: new Date(T0 - 86_400_000), to: new Date(T0 + 86_400_000) };

describe("the embedded touch store", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "touch-store-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("holds what it stored once its folder is opened again", async () => {
    const first = await openLocalTouchStore(dir);
    const touches = Array.from({ length: 500 }, (_, i) =>
      contractTouch(APP, T0 + i, { maid: `device-${i % 7}` }),
    );
    await first.put(touches);
    await first.recordSightings([
      { appId: APP, serviceId: "install-1", ip: "81.2.69.142", at: new Date(T0).toISOString() },
    ]);
    await first.close();

    const again = await openLocalTouchStore(dir);
    try {
      expect(await again.get(touches[123]?.clickId ?? "")).toEqual(touches[123]);
      expect(await again.byIp("81.2.69.142", day)).toHaveLength(500);
      expect(await again.byMaid("DEVICE-3", day)).toHaveLength(
        touches.filter((touch) => touch.maid === "device-3").length,
      );
      expect(await again.installsAt("81.2.69.142", day, 10)).toBe(1);
    } finally {
      await again.close();
    }
  });

  it("reaps every expired touch in one call, however many batches they take", async () => {
    const store = await openLocalTouchStore(dir);
    try {
      await store.put(Array.from({ length: 2_500 }, (_, i) => contractTouch(APP, T0 + i)));
      expect(await store.reap(new Date(T0 + 60 * 86_400_000))).toBe(2_500);
      expect(await store.byIp("81.2.69.142", day)).toEqual([]);
    } finally {
      await store.close();
    }
    expect(await keysIn(dir)).toEqual([]);
  });

  it("reaps a touch written over by its new expiry, and its old version's keys with the old", async () => {
    const DAY = 86_400_000;
    const store = await openLocalTouchStore(dir);
    const window = { appId: APP, from: new Date(T0 - 90 * DAY), to: new Date(T0 + 90 * DAY) };
    const old = contractTouch(APP, T0 - 40 * DAY, { ip: "81.2.69.1", maid: "device-old" });
    const later = { ...old, touchTime: new Date(T0).toISOString(), ip: "81.2.69.2", maid: null };
    const earlier = contractTouch(APP, T0, { ip: "81.2.69.3" });
    const rewound = { ...earlier, touchTime: new Date(T0 - 40 * DAY).toISOString() };
    try {
      await store.put([old, earlier]);
      await store.put([later, rewound]);
      expect(await store.byIp("81.2.69.1", window)).toEqual([]);
      expect(await store.byMaid("device-old", window)).toEqual([]);
      expect(await store.byIp("81.2.69.2", window)).toEqual([later]);
      expect(await store.byIp("81.2.69.3", window)).toEqual([rewound]);

      // Past the older time's expiry: the rewound touch is reaped, the moved-on one stays.
      expect(await store.reap(new Date(T0 - 5 * DAY))).toBe(1);
      expect(await store.get(later.clickId)).toEqual(later);
      expect(await store.get(rewound.clickId)).toBeUndefined();
      expect(await store.byIp("81.2.69.2", window)).toEqual([later]);
      // Past the rest: nothing of either is left.
      expect(await store.reap(new Date(T0 + 60 * DAY))).toBe(1);
    } finally {
      await store.close();
    }
    expect(await keysIn(dir)).toEqual([]);
  });

  it("reaps at its own expiry a touch whose entry gives an earlier one (kept for less time once)", async () => {
    const DAY = 86_400_000;
    const touch = contractTouch(APP, T0, { ip: "81.2.69.9" });
    const store = await openLocalTouchStore(dir);
    await store.put([touch]);
    await store.close();
    // The folder as a store that kept touches two days less left it: its entry two days early.
    const db = new ClassicLevel<string, string>(dir);
    await db.open();
    const [entry] = await db.keys({ gte: `x${SEPARATOR}`, lt: `x${SEPARATOR}~` }).all();
    if (!entry) throw new Error("no expiry entry");
    const [, seconds = "", ...rest] = entry.split(SEPARATOR);
    const earlier = [
      "x",
      String(Number(seconds) - 2 * 86_400).padStart(seconds.length, "0"),
      ...rest,
    ].join(SEPARATOR);
    await db.batch([
      { type: "del", key: entry },
      { type: "put", key: earlier, value: (await db.get(entry)) ?? "" },
    ]);
    await db.close();

    const again = await openLocalTouchStore(dir);
    try {
      // Past the early entry, before the touch's own expiry: it stays, with its lookups.
      const early = new Date((Number(seconds) - 86_400) * 1000);
      expect(await again.reap(early)).toBe(0);
      expect(await again.get(touch.clickId)).toEqual(touch);
      expect(await again.byIp("81.2.69.9", day)).toEqual([touch]);
      // Past its own: gone, with nothing left.
      expect(await again.reap(new Date(T0 + 60 * DAY))).toBe(1);
    } finally {
      await again.close();
    }
    expect(await keysIn(dir)).toEqual([]);
  });

  it("forgets a deleted touch with every key that names its device, and a released claim with its own", async () => {
    const store = await openLocalTouchStore(dir);
    const touch = contractTouch(APP, T0, { maid: "device-deleted" });
    const claim = {
      appId: APP,
      clickId: touch.clickId,
      serviceId: "install-1",
      touchTime: touch.touchTime,
      device: null,
      own: false,
    };
    try {
      await store.put([touch]);
      expect(await store.claimClick(claim)).toBe("this_install");
      await store.releaseClaim(claim);
      await store.delete([touch.clickId]);
    } finally {
      await store.close();
    }
    expect(await keysIn(dir)).toEqual([]);
  });

  it("keeps no sighting of an address it cannot key", async () => {
    const store = await openLocalTouchStore(dir);
    try {
      await store.recordSightings([
        {
          appId: APP,
          serviceId: "install-1",
          ip: "not an address",
          at: new Date(T0).toISOString(),
        },
      ]);
    } finally {
      await store.close();
    }
    expect(await keysIn(dir)).toEqual([]);
  });

  it("reaps a touch once its expiry's second is before the cutoff's, as DynamoDB's TTL", async () => {
    const store = await openLocalTouchStore(dir);
    const touch = contractTouch(APP, T0);
    const expiry = touchExpirySeconds(touch.touchTime) * 1000;
    try {
      await store.put([touch]);
      expect(await store.reap(new Date(expiry + 999))).toBe(0);
      expect(await store.get(touch.clickId)).toEqual(touch);
      expect(await store.reap(new Date(expiry + 1000))).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("lets the writes under way finish before it closes", async () => {
    const store = await openLocalTouchStore(dir);
    const touch = contractTouch(APP, T0);
    const putting = store.put([touch]);
    await store.close();
    await expect(putting).resolves.toBeUndefined();
    const again = await openLocalTouchStore(dir);
    try {
      expect(await again.get(touch.clickId)).toEqual(touch);
    } finally {
      await again.close();
    }
  });

  it("keeps a lookup key's window apart from a longer key's that begins with it", async () => {
    const store = await openLocalTouchStore(dir);
    try {
      const mine = contractTouch(APP, T0, { maid: "device-a" });
      // Unescaped, this one's entries would sort inside device-a's window.
      const crafted = contractTouch(APP, T0, {
        maid: `device-a\u0000${new Date(T0).toISOString()}`,
      });
      await store.put([mine, crafted]);
      expect(await store.byMaid("device-a", day)).toEqual([mine]);
      expect(await store.byMaid(crafted.maid ?? "", day)).toEqual([crafted]);
    } finally {
      await store.close();
    }
  });
});

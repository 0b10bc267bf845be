/**
 * A data folder's touches and sightings in the embedded DynamoDB's table, moved into the
 * embedded touch store at start: every live one found there by each lookup, the table left
 * empty, the expired ones left behind.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { paginateScan } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type DynamoConnection,
  LOCAL_TABLE_NAMES,
  startLocalDynamoDb,
} from "../../embedded/local-dynamodb.ts";
import { contractTouch } from "../contracts/touch-store.test-support.ts";
import { createTouchStore } from "../dynamodb/touches.ts";
import { moveTouchesFromDynamoDb } from "./from-dynamodb.ts";
import { openLocalTouchStore } from "./touch-store.ts";

const NOW = Date.parse("2026-11-24T12:00:00.000Z");
const APP = "com.example.moved";
const DAY = 86_400_000;

describe("touches moved from the embedded DynamoDB", () => {
  let dir: string;
  let dynamo: DynamoConnection;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "touches-moved-"));
    dynamo = await startLocalDynamoDb(join(dir, "dynamodb"));
  });
  afterAll(async () => {
    await dynamo.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("moves every live touch and sighting, leaves the table empty and the expired behind", async () => {
    const table = createTouchStore(dynamo.doc, LOCAL_TABLE_NAMES.touches);
    const touches = Array.from({ length: 1_200 }, (_, i) =>
      contractTouch(APP, NOW - i * 60_000, { maid: i % 2 === 0 ? `DEVICE-${i % 5}` : null }),
    );
    const expired = contractTouch(APP, NOW - 40 * DAY);
    await table.put([...touches, expired]);
    const at = new Date(NOW - 3_600_000).toISOString();
    await table.recordSightings([
      { appId: APP, serviceId: "install-1", ip: "81.2.69.142", at },
      { appId: APP, serviceId: "install-2", ip: "81.2.69.142", at },
      { appId: APP, serviceId: "install-3", ip: "2a00:1450:4001:81a::1", at },
    ]);

    const store = await openLocalTouchStore(join(dir, "touches"));
    try {
      expect(
        await moveTouchesFromDynamoDb(dynamo.doc, LOCAL_TABLE_NAMES.touches, store, new Date(NOW)),
      ).toEqual({ touches: 1_200, sightings: 3 });
      const window = { appId: APP, from: new Date(NOW - 30 * DAY), to: new Date(NOW) };
      expect(await store.byIp("81.2.69.142", window)).toEqual(touches);
      expect(await store.byMaid("device-2", window)).toEqual(
        touches.filter((touch) => touch.maid === "DEVICE-2"),
      );
      expect(await store.get(expired.clickId)).toBeUndefined();
      const day = { appId: APP, from: new Date(NOW - DAY), to: new Date(NOW) };
      expect(await store.installsAt("81.2.69.142", day, 10)).toBe(2);
      expect(await store.installsAt("2a00:1450:4001:81a::9", day, 10)).toBe(1);

      let left = 0;
      for await (const page of paginateScan(
        { client: dynamo.doc },
        { TableName: LOCAL_TABLE_NAMES.touches },
      )) {
        left += page.Items?.length ?? 0;
      }
      expect(left).toBe(0);
      expect(
        await moveTouchesFromDynamoDb(dynamo.doc, LOCAL_TABLE_NAMES.touches, store, new Date(NOW)),
      ).toEqual({ touches: 0, sightings: 0 });
    } finally {
      await store.close();
    }
  });
});

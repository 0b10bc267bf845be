/**
 * What the DynamoDB attribution item holds beyond what the store's contract reads back: a
 * resolved install keeps none of the facts it was matched on (its IP, user agent and
 * advertising id among them), and a delivered one neither its sender nor its open marker.
 */
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { resultOf } from "../../attribution/results.ts";
import { DEFAULT_ATTRIBUTION } from "../../attribution/settings.ts";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import { createAttributionStore } from "./attributions.ts";
import { dynaliteForTests } from "./dynamo-targets.test-support.ts";

const dynamo = dynaliteForTests("attributions-");
const APP = "com.example.game";

const FACTS = {
  appId: APP,
  os: "android",
  osVersion: "14",
  deviceModel: "Pixel 8",
  firstOpenTime: "2026-11-01T10:00:00.000Z",
  receivedAt: "2026-11-01T10:00:01.000Z",
  clockOffsetMs: null,
  maid: "38400000-8cf0-11bd-b23e-10b96e40000d",
  attStatus: null,
  referrerClickId: null,
  openUrlClickId: null,
  installBeganAt: null,
  deviceReferrerClickAt: null,
  deviceInstallBeganAt: null,
  ip: "81.2.69.142",
  userAgent: "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8)",
  platformAdsToken: null,
} as const;

describe("the DynamoDB attribution item", () => {
  it("forgets an install's facts once resolved, and its sender and open marker once delivered", async () => {
    const store = createAttributionStore(dynamo().doc, LOCAL_TABLE_NAMES.attributions);
    const raw = async () =>
      (
        await dynamo().doc.send(
          new GetCommand({
            TableName: LOCAL_TABLE_NAMES.attributions,
            Key: { attributionKey: `${APP}#s1` },
          }),
        )
      ).Item;
    await store.createPending({
      appId: APP,
      serviceId: "s1",
      facts: FACTS,
      requestedAt: "2026-11-01T10:00:02.000Z",
    });
    expect(await raw()).toMatchObject({ facts: FACTS, openMarker: expect.any(String) });

    const result = resultOf(
      { kind: "organic" },
      null,
      new Date("2026-11-01T10:00:03.000Z"),
      DEFAULT_ATTRIBUTION,
    );
    await store.resolve(APP, "s1", result, { ip: FACTS.ip, userAgent: FACTS.userAgent });
    const resolved = await raw();
    expect(resolved).not.toHaveProperty("facts");
    expect(resolved).toMatchObject({ sender: { ip: FACTS.ip }, openMarker: expect.any(String) });

    await store.markDelivered(APP, "s1");
    const delivered = await raw();
    expect(delivered).not.toHaveProperty("sender");
    expect(delivered).not.toHaveProperty("openMarker");
    expect(JSON.stringify(delivered)).not.toContain(FACTS.ip);
    expect(JSON.stringify(delivered)).not.toContain(FACTS.maid);
  });
});

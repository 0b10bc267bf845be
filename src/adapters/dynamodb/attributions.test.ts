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
import { attributionFacts } from "../contracts/attributions.test-support.ts";
import { createAttributionStore } from "./attributions.ts";
import { dynaliteForTests } from "./dynamo-targets.test-support.ts";

const dynamo = dynaliteForTests("attributions-");
const APP = "com.example.game";

const FACTS = attributionFacts(APP, {
  maid: "38400000-8cf0-11bd-b23e-10b96e40000d",
  userAgent: "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8)",
});

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
    expect(JSON.stringify(delivered)).not.toContain(String(FACTS.ip));
    expect(JSON.stringify(delivered)).not.toContain(String(FACTS.maid));
  });
});

/**
 * The DynamoDB delivery log's own rules on dynalite, beside the contract it shares with the
 * embedded log: an attempt recorded again counted by its new verdict, and a page cursor that
 * is not one the log gave answered as one, whatever its fields hold.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ValidationError } from "../../domain/errors.ts";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import type { DeliveryLogEntry } from "../../ports/postbacks.ts";
import { describeReplacedAttempts } from "../local-delivery-log/replaced-attempts.test-support.ts";
import { onDynalite } from "./dynamo-targets.test-support.ts";
import { createDeliveryLog } from "./postbacks.ts";

const openLog = onDynalite((doc) => createDeliveryLog(doc, LOCAL_TABLE_NAMES.deliveryLog));

describeReplacedAttempts("the DynamoDB delivery log", openLog);

describe("the DynamoDB delivery log's page cursor", () => {
  let log: Awaited<ReturnType<typeof openLog>>;
  const app = "com.example.cursor";
  beforeAll(async () => {
    log = await openLog();
    const entry = (attempt: number): DeliveryLogEntry => ({
      appId: app,
      sendId: "snd_1",
      configId: "cfg",
      target: "partner",
      partner: "custom",
      subject: { kind: "install", serviceId: "s1", eventId: null },
      time: `2026-11-24T12:0${attempt}:00.000Z`,
      url: "https://pb.example.com/i",
      method: "GET",
      status: 503,
      answer: null,
      error: null,
      attempt,
      retry: attempt > 1,
      verdict: "retry",
      final: false,
    });
    for (const attempt of [1, 2, 3]) await log.append(entry(attempt));
  });
  afterAll(() => log.close());

  const cursor = (fields: unknown) => Buffer.from(JSON.stringify(fields)).toString("base64url");

  it("pages on with a cursor it gave", async () => {
    const first = await log.listByApp(app, { limit: 2 });
    const second = await log.listByApp(app, { limit: 2, after: first.next ?? undefined });
    expect([...first.entries, ...second.entries].map((e) => e.attempt)).toEqual([3, 2, 1]);
  });

  it("refuses a cursor whose fields are no place in the app's attempts", async () => {
    for (const crafted of [
      cursor({ logKey: "", logSort: "" }),
      cursor({ logKey: "a", logSort: "zzzz" }),
      cursor({ logKey: "a", logSort: "count#2026-11-24#cfg" }),
      cursor({ logKey: "snd_1#1", logSort: "2026-11-24T12:01:00.000Z#snd_2#1" }),
      cursor({ logKey: "a", logSort: `${"2".repeat(2000)}#a` }),
      cursor({ logKey: "a", logSort: "\ud800#a" }),
      cursor({ logKey: 1, logSort: 2 }),
      "not-a-cursor",
    ]) {
      const refused = await log.listByApp(app, { limit: 2, after: crafted }).catch((e) => e);
      expect(refused).toBeInstanceOf(ValidationError);
      expect((refused as Error).message).toBe("cursor: must be the next_cursor of an earlier page");
    }
  });
});

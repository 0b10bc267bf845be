/**
 * The DynamoDB delivery log's own rules, beside the contract it shares with the embedded log: an
 * attempt recorded again counted by its new verdict, a record never kept apart from its count
 * (two writers of one attempt, a write that fails), and a page cursor that is not one the log
 * gave answered as one, whatever its fields hold. On moto's DynamoDB API: the log writes in
 * transactions, which dynalite lacks.
 */
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ValidationError } from "../../domain/errors.ts";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import type { DeliveryLog, DeliveryLogEntry } from "../../ports/postbacks.ts";
import {
  attemptEntry,
  describeReplacedAttempts,
} from "../local-delivery-log/replaced-attempts.test-support.ts";
import { onMoto } from "./dynamo-targets.test-support.ts";
import { createDeliveryLog } from "./postbacks.ts";

type Sent = Parameters<DynamoDBDocumentClient["send"]>[0];

/** The tables on moto, with the client the logs of a test are made over. */
const openTables = onMoto(
  "the DynamoDB delivery log's own rules (src/adapters/dynamodb/postbacks.test.ts)",
  (doc) => ({ doc }),
);

if (openTables) {
  const openLog = async () => {
    const { doc, close } = await openTables();
    return { ...createDeliveryLog(doc, LOCAL_TABLE_NAMES.deliveryLog), close };
  };

  describeReplacedAttempts("the DynamoDB delivery log", openLog);

  describe("the DynamoDB delivery log's records and counts", () => {
    let tables: Awaited<ReturnType<NonNullable<typeof openTables>>>;
    beforeAll(async () => {
      tables = await (openTables as NonNullable<typeof openTables>)();
    });
    afterAll(() => tables.close());

    /** Whether the app's records and its counts say the same, verdict by verdict. */
    const agreement = async (log: DeliveryLog, appId: string) => {
      const { entries } = await log.listByApp(appId, { limit: 100 });
      const recorded = { delivered: 0, retry: 0, failed: 0, skipped: 0 };
      for (const entry of entries) recorded[entry.verdict] += 1;
      const counted = { delivered: 0, retry: 0, failed: 0, skipped: 0 };
      for (const day of await log.counts(appId, new Date("2026-11-01T00:00:00.000Z"))) {
        for (const verdict of ["delivered", "retry", "failed", "skipped"] as const) {
          counted[verdict] += day[verdict];
        }
      }
      return { recorded, counted };
    };

    /** Is a command one that writes a day's counts (alone, or in a transaction)? */
    const writesCounts = (command: unknown) => {
      const keys =
        command instanceof UpdateCommand
          ? [command.input.Key?.logKey]
          : command instanceof TransactWriteCommand
            ? (command.input.TransactItems ?? []).map((item) => item.Update?.Key?.logKey)
            : [];
      return keys.some((key) => String(key).startsWith("count#"));
    };

    it("counts an attempt once when two writers log it at once, each having read no record of it", async () => {
      const appId = "com.example.taken-over";
      // Both writers read before either writes: the delivery that took the attempt over, and
      // the one it took it from, logging at the same moment.
      let reads = 0;
      let bothRead = () => {};
      const read = new Promise<void>((resolve) => {
        bothRead = resolve;
      });
      const held = {
        send: async (command: Sent) => {
          if (command instanceof BatchGetCommand) {
            const answer = await tables.doc.send(command);
            reads += 1;
            if (reads === 2) bothRead();
            return answer;
          }
          await read;
          return tables.doc.send(command);
        },
      } as unknown as DynamoDBDocumentClient;
      const first = createDeliveryLog(held, LOCAL_TABLE_NAMES.deliveryLog);
      const second = createDeliveryLog(held, LOCAL_TABLE_NAMES.deliveryLog);
      await Promise.all([
        first.append(
          attemptEntry(appId, {
            time: "2026-11-24T12:00:10.000Z",
            verdict: "retry",
            error: "no answer within 10 s",
          }),
        ),
        second.append(
          attemptEntry(appId, {
            time: "2026-11-24T12:00:11.000Z",
            verdict: "delivered",
            status: 200,
          }),
        ),
      ]);
      const log = createDeliveryLog(tables.doc, LOCAL_TABLE_NAMES.deliveryLog);
      const { recorded, counted } = await agreement(log, appId);
      expect(Object.values(recorded).reduce((a, b) => a + b)).toBe(1);
      expect(counted).toEqual(recorded);
    });

    it("keeps no record when its count cannot be written, and counts the attempt logged again once", async () => {
      const appId = "com.example.counts-refused";
      // DynamoDB refuses the write of the day's counts once (throttled, say).
      let refusals = 1;
      const refusing = {
        send: async (command: Sent) => {
          if (refusals > 0 && writesCounts(command)) {
            refusals -= 1;
            throw new Error("throughput exceeded");
          }
          return tables.doc.send(command);
        },
      } as unknown as DynamoDBDocumentClient;
      const log = createDeliveryLog(refusing, LOCAL_TABLE_NAMES.deliveryLog);
      const attempt: DeliveryLogEntry = attemptEntry(appId, {
        time: "2026-11-24T12:00:00.000Z",
        verdict: "delivered",
        status: 200,
        final: true,
      });
      await expect(log.append(attempt)).rejects.toThrow("throughput exceeded");
      expect(await agreement(log, appId)).toEqual({
        recorded: { delivered: 0, retry: 0, failed: 0, skipped: 0 },
        counted: { delivered: 0, retry: 0, failed: 0, skipped: 0 },
      });
      // Logged again (and again): one record, counted once.
      await log.append(attempt);
      await log.append(attempt);
      expect(await agreement(log, appId)).toEqual({
        recorded: { delivered: 1, retry: 0, failed: 0, skipped: 0 },
        counted: { delivered: 1, retry: 0, failed: 0, skipped: 0 },
      });
    });
  });

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
        reason: null,
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
        expect((refused as Error).message).toBe(
          "cursor: must be the next_cursor of an earlier page",
        );
      }
    });
  });
}

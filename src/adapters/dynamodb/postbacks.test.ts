/**
 * The DynamoDB delivery log's own rules, beside the contract it shares with the embedded log: an
 * attempt recorded again counted by its new verdict, a record never kept apart from its count
 * (two writers of one attempt, a write that fails), and a page cursor that is not one the log
 * gave answered as one, whatever its fields hold. On moto's DynamoDB API: the log writes in
 * transactions, which dynalite lacks.
 */
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ValidationError } from "../../domain/errors.ts";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import type { DeliveryLog, DeliveryLogEntry } from "../../ports/postbacks.ts";
import {
  attemptEntry,
  describeReplacedAttempts,
} from "../local-delivery-log/replaced-attempts.test-support.ts";
import { onMoto } from "./dynamo-targets.test-support.ts";
import { createDeliveryLog, createOutboxStore } from "./postbacks.ts";

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

    /**
     * A client that holds every write until two reads of what is recorded are answered: two
     * writers that both read before either writes.
     */
    const heldUntilBothRead = () => {
      let reads = 0;
      let bothRead = () => {};
      const read = new Promise<void>((resolve) => {
        bothRead = resolve;
      });
      return {
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

    it("counts an attempt once when two writers replace it at once, each having read its earlier record", async () => {
      const appId = "com.example.replaced-at-once";
      const time = "2026-11-24T12:00:10.000Z";
      await createDeliveryLog(tables.doc, LOCAL_TABLE_NAMES.deliveryLog).append(
        attemptEntry(appId, { time, verdict: "retry", error: "no answer within 10 s" }),
      );
      const held = heldUntilBothRead();
      await Promise.all([
        createDeliveryLog(held, LOCAL_TABLE_NAMES.deliveryLog).append(
          attemptEntry(appId, { time, verdict: "failed", final: true, status: 500 }),
        ),
        createDeliveryLog(held, LOCAL_TABLE_NAMES.deliveryLog).append(
          attemptEntry(appId, { time, verdict: "delivered", status: 200 }),
        ),
      ]);
      const log = createDeliveryLog(tables.doc, LOCAL_TABLE_NAMES.deliveryLog);
      const { recorded, counted } = await agreement(log, appId);
      expect(Object.values(recorded).reduce((a, b) => a + b)).toBe(1);
      expect(counted).toEqual(recorded);
    });

    it("records an attempt given twice in one group once, as the last given, and counts it so", async () => {
      const appId = "com.example.twice-in-a-group";
      const time = "2026-11-24T12:00:10.000Z";
      const log = createDeliveryLog(tables.doc, LOCAL_TABLE_NAMES.deliveryLog);
      await Promise.all([
        log.append(attemptEntry(appId, { time, verdict: "retry", error: "no answer" })),
        log.append(attemptEntry(appId, { time, verdict: "delivered", status: 200 })),
      ]);
      const { recorded, counted } = await agreement(log, appId);
      expect(recorded).toEqual({ delivered: 1, retry: 0, failed: 0, skipped: 0 });
      expect(counted).toEqual(recorded);
    });

    it("counts an attempt once when two writers log it at once, each having read no record of it", async () => {
      const appId = "com.example.taken-over";
      // Both writers read before either writes: the delivery that took the attempt over, and
      // the one it took it from, logging at the same moment.
      const held = heldUntilBothRead();
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
        cursor({ logKey: "cfg#0", logSort: "count#2026-11-24#partner#cfg#0" }),
        cursor({ logKey: "snd_1#1", logSort: "2026-11-24T12:01:00.000Z#snd_2#1" }),
        cursor({ logKey: "a", logSort: `${"2".repeat(2000)}#a` }),
        cursor({ logKey: "a", logSort: "\ud800#a" }),
        // Below the counts and ending with its key, but no string DynamoDB takes as a key:
        // half a UTF-16 pair, and more bytes than a sort key holds in fewer characters.
        cursor({ logKey: "a", logSort: "2026\ud800#a" }),
        cursor({ logKey: "a", logSort: `2026${"\u00e9".repeat(600)}#a` }),
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

/**
 * The log's requests, over a client that answers as DynamoDB may: what it reads before a
 * transaction, which cancellations it tries again, and how it reads counts page by page.
 */
describe("the DynamoDB delivery log's requests", () => {
  const APP = "com.example.requests";
  const ATTEMPT = attemptEntry(APP, { time: "2026-11-24T12:00:10.000Z", verdict: "delivered" });
  const cancelled = (...codes: string[]) =>
    new TransactionCanceledException({
      message: "Transaction cancelled",
      $metadata: {},
      CancellationReasons: codes.map((Code) => ({ Code })),
    });

  /** A client whose transactions fail with `failures` in turn, then succeed. */
  const clientOf = (failures: readonly Error[] = [], answers: Record<string, unknown>[] = []) => {
    const sent: Sent[] = [];
    let transactions = 0;
    const doc = {
      send: async (command: Sent) => {
        sent.push(command);
        if (command instanceof TransactWriteCommand) {
          const failure = failures[transactions++];
          if (failure) throw failure;
          return {};
        }
        return answers.shift() ?? {};
      },
    } as unknown as DynamoDBDocumentClient;
    return { log: createDeliveryLog(doc, LOCAL_TABLE_NAMES.deliveryLog), sent };
  };
  const ofKind = <C>(sent: Sent[], kind: abstract new (...args: never[]) => C) =>
    sent.filter((command): command is Sent & C => command instanceof kind);

  it("reads what is recorded with strong consistency, and asks again for keys left unread", async () => {
    const table = LOCAL_TABLE_NAMES.deliveryLog;
    const key = `${ATTEMPT.sendId}#${ATTEMPT.attempt}`;
    const { log, sent } = clientOf(
      [],
      [{ UnprocessedKeys: { [table]: { Keys: [{ logKey: key }], ConsistentRead: true } } }],
    );
    await log.append(ATTEMPT);
    const reads = ofKind(sent, BatchGetCommand);
    expect(reads).toHaveLength(2);
    expect(reads[0]?.input.RequestItems?.[table]).toMatchObject({
      Keys: [{ logKey: key }],
      ConsistentRead: true,
    });
    expect(reads[1]?.input.RequestItems?.[table]?.Keys).toEqual([{ logKey: key }]);
    expect(ofKind(sent, TransactWriteCommand)).toHaveLength(1);
  });

  it("gives up on reads DynamoDB keeps leaving unread, after eight more tries", async () => {
    const table = LOCAL_TABLE_NAMES.deliveryLog;
    const unread = {
      UnprocessedKeys: {
        [table]: { Keys: [{ logKey: `${ATTEMPT.sendId}#${ATTEMPT.attempt}` }] },
      },
    };
    const { log, sent } = clientOf(
      [],
      Array.from({ length: 20 }, () => unread),
    );
    vi.useFakeTimers();
    try {
      const failing = log.append(ATTEMPT).catch((error: unknown) => error);
      await vi.runAllTimersAsync();
      expect(await failing).toMatchObject({
        message: `DynamoDB kept refusing reads on ${table}`,
      });
    } finally {
      vi.useRealTimers();
    }
    expect(ofKind(sent, BatchGetCommand)).toHaveLength(9);
    expect(ofKind(sent, TransactWriteCommand)).toHaveLength(0);
  });

  it("tries a transaction again after a conflict or a record written since it was read", async () => {
    const { log, sent } = clientOf([
      cancelled("None", "TransactionConflict"),
      cancelled("ConditionalCheckFailed", "None"),
    ]);
    await log.append(ATTEMPT);
    expect(ofKind(sent, TransactWriteCommand)).toHaveLength(3);
    // Each try reads the records anew.
    expect(ofKind(sent, BatchGetCommand)).toHaveLength(3);
  });

  it("gives up at once on a cancellation no try gets past, and after eight tries on the others", async () => {
    const refused = cancelled("TransactionConflict", "ValidationError");
    const once = clientOf([refused]);
    await expect(once.log.append(ATTEMPT)).rejects.toBe(refused);
    expect(ofKind(once.sent, TransactWriteCommand)).toHaveLength(1);

    const conflict = cancelled("TransactionConflict");
    const always = clientOf(Array.from({ length: 20 }, () => conflict));
    await expect(always.log.append(ATTEMPT)).rejects.toBe(conflict);
    expect(ofKind(always.sent, TransactWriteCommand)).toHaveLength(8);
  });

  it("reads every page of an app's counts", async () => {
    const count = (day: string, delivered: number) => ({
      logSort: `count#${day}#partner#cfg#3`,
      day,
      configId: "cfg",
      partner: "custom",
      delivered,
    });
    const { log, sent } = clientOf(
      [],
      [
        { Items: [count("2026-11-24", 2)], LastEvaluatedKey: { logKey: "k1" } },
        { Items: [count("2026-11-24", 3), count("2026-11-25", 1)] },
      ],
    );
    expect(await log.counts(APP, new Date("2026-11-01T00:00:00.000Z"))).toEqual([
      {
        day: "2026-11-24",
        configId: "cfg",
        partner: "custom",
        delivered: 5,
        retry: 0,
        failed: 0,
        skipped: 0,
      },
      {
        day: "2026-11-25",
        configId: "cfg",
        partner: "custom",
        delivered: 1,
        retry: 0,
        failed: 0,
        skipped: 0,
      },
    ]);
    const queries = ofKind(sent, QueryCommand);
    expect(queries.map((query) => query.input.ExclusiveStartKey)).toEqual([
      undefined,
      { logKey: "k1" },
    ]);
  });
});

describe("the DynamoDB outbox's requests", () => {
  it("reads a send with strong consistency: one added a moment ago is found", async () => {
    const sent: Sent[] = [];
    const doc = {
      send: async (command: Sent) => {
        sent.push(command);
        return {};
      },
    } as unknown as DynamoDBDocumentClient;
    expect(await createOutboxStore(doc, LOCAL_TABLE_NAMES.outbox).get("snd_1")).toBeUndefined();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(GetCommand);
    expect((sent[0] as GetCommand).input).toMatchObject({
      Key: { sendId: "snd_1" },
      ConsistentRead: true,
    });
  });
});

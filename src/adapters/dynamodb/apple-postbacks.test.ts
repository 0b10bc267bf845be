import { DeleteCommand, type GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ValidationError } from "../../domain/errors.ts";
import { DAY_MS } from "../../domain/time.ts";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import {
  type ApplePostbackStore,
  type StoredApplePostback,
  UNVERIFIED_POSTBACK_DAYS,
} from "../../ports/apple-postbacks.ts";
import { storedPostback } from "../../skadnetwork/apple-samples.test-support.ts";
import { createApplePostbackStore } from "./apple-postbacks.ts";
import { onDynalite, recordingDoc } from "./dynamo-targets.test-support.ts";

const NOW = Date.parse("2026-12-01T00:00:00.000Z");
const daysAgo = (days: number) => new Date(NOW - days * DAY_MS).toISOString();
const FAR = { from: new Date(0), to: new Date(NOW + DAY_MS) };

const postback = (
  transactionId: string,
  receivedAt: string,
  verified: boolean,
): StoredApplePostback =>
  storedPostback({
    adNetworkId: "example123.skadnetwork",
    transactionId,
    conversionValue: 20,
    verification: verified
      ? { status: "verified", environment: "production", keyId: "k", reason: null }
      : { status: "unverified", environment: null, keyId: null, reason: "changed" },
    appId: "com.example.ios",
    receivedAt,
  });

describe("Apple's postbacks on DynamoDB (dynalite)", () => {
  let target: ApplePostbackStore & { close(): Promise<void> };
  beforeAll(async () => {
    target = await onDynalite((doc) =>
      createApplePostbackStore(doc, LOCAL_TABLE_NAMES.applePostbacks),
    )();
  });
  afterAll(() => target?.close());

  it("forgets unverified postbacks past their days, and never a verified one", async () => {
    const old = UNVERIFIED_POSTBACK_DAYS + 1;
    await target.add(postback("old-unverified", daysAgo(old), false));
    await target.add(postback("old-verified", daysAgo(old), true));
    await target.add(postback("new-unverified", daysAgo(1), false));
    // Apple's signed copy in an old unverified one's place: kept, as every verified one.
    await target.add(postback("replaced", daysAgo(old), false));
    expect(await target.add(postback("replaced", daysAgo(old), true))).toBe(true);

    expect(await target.reap(new Date(NOW))).toBe(1);
    const kept = async (transactionId: string) =>
      (await target.get({ kind: "skadnetwork", transactionId, sequenceIndex: 0 }))?.verification
        .status ?? null;
    expect(await kept("old-unverified")).toBeNull();
    expect(await kept("old-verified")).toBe("verified");
    expect(await kept("new-unverified")).toBe("unverified");
    expect(await kept("replaced")).toBe("verified");
    // Nothing more to forget until the new one's days are over.
    expect(await target.reap(new Date(NOW))).toBe(0);
    expect(await target.reap(new Date(NOW + UNVERIFIED_POSTBACK_DAYS * DAY_MS))).toBe(1);
  });

  it("keeps a transaction's later windows beside its first, and each window's retry once", async () => {
    const window = (sequenceIndex: number, verified: boolean) => ({
      ...postback("shared-transaction", daysAgo(2 - sequenceIndex), verified),
      sequenceIndex,
    });
    expect(await target.add(window(0, true))).toBe(true);
    expect(await target.add(window(1, true))).toBe(true);
    expect(await target.add(window(2, false))).toBe(true);
    expect(await target.add(window(1, true))).toBe(false);
    // Apple's signed copy of the third window in its unverified one's place.
    expect(await target.add(window(2, true))).toBe(true);
    const windows = await Promise.all(
      [0, 1, 2].map((sequenceIndex) =>
        target.get({ kind: "skadnetwork", transactionId: "shared-transaction", sequenceIndex }),
      ),
    );
    expect(windows.map((kept) => [kept?.sequenceIndex, kept?.verification.status])).toEqual([
      [0, "verified"],
      [1, "verified"],
      [2, "verified"],
    ]);
  });

  it("takes a copy signed for production in a test's place, never a test's or an unverified one in its", async () => {
    const signed = (environment: "production" | "development", conversionValue: number) => ({
      ...postback("test-then-production", daysAgo(1), true),
      conversionValue,
      verification: { status: "verified" as const, environment, keyId: "k", reason: null },
    });
    const key = {
      kind: "skadnetwork" as const,
      transactionId: "test-then-production",
      sequenceIndex: 0,
    };
    expect(await target.add(signed("development", 1))).toBe(true);
    expect(await target.add(postback("test-then-production", daysAgo(1), false))).toBe(false);
    expect(await target.add(signed("development", 2))).toBe(false);
    expect(await target.add(signed("production", 3))).toBe(true);
    expect(await target.add(signed("development", 4))).toBe(false);
    expect(await target.add(signed("production", 5))).toBe(false);
    expect(await target.get(key)).toMatchObject({
      conversionValue: 3,
      verification: { environment: "production" },
    });
  });

  it("marks a postback's values disputed, as it is read and listed", async () => {
    const kept = { ...postback("disputed", daysAgo(1), true), appId: "com.example.disputed" };
    expect(await target.add(kept)).toBe(true);
    await target.dispute(kept);
    expect(await target.get(kept)).toMatchObject({ conversionValue: 20, valuesDisputed: true });
    const listed = await target.listByApp("com.example.disputed", FAR, { limit: 10 });
    expect(listed.postbacks).toMatchObject([{ transactionId: "disputed", valuesDisputed: true }]);
    // A verified copy is never written over: the mark stays.
    expect(await target.add({ ...kept, conversionValue: 63 })).toBe(false);
    expect(await target.get(kept)).toMatchObject({ conversionValue: 20, valuesDisputed: true });
  });

  it("pages an app's postbacks, and refuses a cursor of another app or outside the range as the caller's error", async () => {
    const APP = "com.example.pages";
    for (const [index, id] of ["p1", "p2", "p3"].entries()) {
      await target.add({ ...postback(id, daysAgo(3 - index), true), appId: APP });
    }
    const first = await target.listByApp(APP, FAR, { limit: 2 });
    expect(first.postbacks).toHaveLength(2);
    expect(first.next).toEqual(expect.any(String));
    const after = first.next ?? "";
    const rest = await target.listByApp(APP, FAR, { limit: 2, after });
    expect([...first.postbacks, ...rest.postbacks].map((p) => p.transactionId).sort()).toEqual([
      "p1",
      "p2",
      "p3",
    ]);
    const refused = (appId: string, range: { from: Date; to: Date }) =>
      target.listByApp(appId, range, { limit: 2, after }).catch((error: unknown) => error);
    expect(await refused("com.example.other", FAR)).toBeInstanceOf(ValidationError);
    const narrow = { from: new Date(NOW - 10 * DAY_MS), to: new Date(NOW - 5 * DAY_MS) };
    expect(await refused(APP, narrow)).toBeInstanceOf(ValidationError);
  });

  it("lists no unverified postback past its days, before the reaper or TTL has taken it", async () => {
    // Received 40 days before the real clock's now: its item is still here, its time is over.
    const past = new Date(Date.now() - 40 * DAY_MS).toISOString();
    await target.add({
      ...postback("lapsed-unverified", past, false),
      appId: "com.example.lapsed",
    });
    await target.add({ ...postback("lapsed-verified", past, true), appId: "com.example.lapsed" });
    const { postbacks } = await target.listByApp(
      "com.example.lapsed",
      { from: new Date(Date.now() - 60 * DAY_MS), to: new Date() },
      { limit: 10 },
    );
    expect(postbacks.map((p) => p.transactionId)).toEqual(["lapsed-verified"]);
  });

  it("keeps a postback of each framework under the same transaction id, and one of no app under none", async () => {
    const skan = { ...postback("shared-tx", daysAgo(1), true), appId: null };
    const aak = { ...skan, kind: "adattributionkit" as const, conversionValue: 7 };
    expect(await target.add(skan)).toBe(true);
    expect(await target.add(aak)).toBe(true);
    expect((await target.get(skan))?.conversionValue).toBe(20);
    expect((await target.get(aak))?.conversionValue).toBe(7);
    const { postbacks } = await target.listByApp(null, FAR, { limit: 10 });
    expect(postbacks.map((p) => [p.kind, p.transactionId])).toEqual(
      expect.arrayContaining([
        ["skadnetwork", "shared-tx"],
        ["adattributionkit", "shared-tx"],
      ]),
    );
  });

  it("keeps an unverified postback its days to the second", async () => {
    const at = new Date(NOW).toISOString();
    await target.add({ ...postback("to-the-second", at, false), appId: "com.example.second" });
    const end = NOW + UNVERIFIED_POSTBACK_DAYS * DAY_MS;
    // Other tests' postbacks may be reaped here too: only this one's presence is asked.
    const there = async () =>
      (await target.get({
        kind: "skadnetwork",
        transactionId: "to-the-second",
        sequenceIndex: 0,
      })) !== undefined;
    await target.reap(new Date(end));
    expect(await there()).toBe(true);
    await target.reap(new Date(end + 1_000));
    expect(await there()).toBe(false);
  });

  it("marks no postback that is not there", async () => {
    const key = { kind: "skadnetwork" as const, transactionId: "never-came", sequenceIndex: 0 };
    await target.dispute(key);
    expect(await target.get(key)).toBeUndefined();
  });

  it("refuses a cursor from before the range asked", async () => {
    const APP = "com.example.before";
    for (const [index, id] of ["b1", "b2", "b3"].entries()) {
      await target.add({ ...postback(id, daysAgo(3 - index), true), appId: APP });
    }
    const { next } = await target.listByApp(APP, FAR, { limit: 1 });
    const later = { from: new Date(NOW - 1.5 * DAY_MS), to: FAR.to };
    await expect(
      target.listByApp(APP, later, { limit: 1, after: next ?? "" }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});

describe("Apple's postbacks on DynamoDB: the reaper and a verified copy", () => {
  it("leaves a verified copy that took an expired one's place after the reaper listed it", async () => {
    const made = await onDynalite((doc) => ({ doc }))();
    try {
      const table = LOCAL_TABLE_NAMES.applePostbacks;
      const plain = createApplePostbackStore(made.doc, table);
      const lapsed = postback("raced", daysAgo(UNVERIFIED_POSTBACK_DAYS + 1), false);
      await plain.add(lapsed);
      // Apple's signed copy arrives between the reaper's scan and its delete.
      const send = made.doc.send.bind(made.doc);
      let arrived = false;
      made.doc.send = (async (command: unknown) => {
        if (command instanceof DeleteCommand && !arrived) {
          arrived = true;
          await plain.add({ ...lapsed, ...verifiedOf(lapsed) });
        }
        return send(command as never);
      }) as typeof made.doc.send;
      expect(await plain.reap(new Date(NOW))).toBe(0);
      expect(arrived).toBe(true);
      expect((await plain.get(lapsed))?.verification.status).toBe("verified");
    } finally {
      await made.close();
    }
  });

  it("reads a postback with strong consistency", async () => {
    const { doc, sent } = recordingDoc();
    await createApplePostbackStore(doc, "apple-postbacks").get({
      kind: "skadnetwork",
      transactionId: "t",
      sequenceIndex: 0,
    });
    expect(sent).toHaveLength(1);
    expect((sent[0] as GetCommand).input.ConsistentRead).toBe(true);
  });
});

const verifiedOf = (stored: StoredApplePostback): Partial<StoredApplePostback> => ({
  verification: { status: "verified", environment: "production", keyId: "k", reason: null },
  receivedAt: stored.receivedAt,
});

/** The embedded delivery log's own rules, beside the contract it shares with DynamoDB's. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ValidationError } from "../../domain/errors.ts";
import { keysIn } from "../local-disk/keys.test-support.ts";
import { type LocalDeliveryLog, openLocalDeliveryLog } from "./delivery-log.ts";
import { attemptEntry, describeReplacedAttempts } from "./replaced-attempts.test-support.ts";

describeReplacedAttempts("the embedded delivery log", async () => {
  const dir = await mkdtemp(join(tmpdir(), "delivery-log-"));
  const log = await openLocalDeliveryLog(join(dir, "log"));
  return {
    append: (entry) => log.append(entry),
    listByApp: (appId, page) => log.listByApp(appId, page),
    counts: (appId, since) => log.counts(appId, since),
    close: async () => {
      await log.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe("the embedded delivery log's page cursors", () => {
  const APP = "com.example.cursors";
  const attempt = (sendId: string, time: string) =>
    attemptEntry(APP, { sendId, time, verdict: "delivered", status: 200, final: true });

  it("pages on with a cursor it gave, and refuses any other", async () => {
    const dir = await mkdtemp(join(tmpdir(), "delivery-log-"));
    const log = await openLocalDeliveryLog(join(dir, "log"));
    try {
      for (const [i, id] of ["snd_a", "snd_b\u0000x", "snd_c"].entries()) {
        await log.append(attempt(id, `2026-11-2${i + 1}T12:00:00.000Z`));
      }
      const first = await log.listByApp(APP, { limit: 2 });
      expect(first.next).not.toBeNull();
      const second = await log.listByApp(APP, { limit: 2, after: first.next ?? undefined });
      expect([...first.entries, ...second.entries].map((e) => e.sendId)).toEqual([
        "snd_c",
        "snd_b\u0000x",
        "snd_a",
      ]);
      const encoded = (text: string) => Buffer.from(text, "utf8").toString("base64url");
      for (const crafted of [
        encoded("x\u0000y"),
        encoded("2026-11-22T12:00:00.000Z"),
        encoded("2026-11-22T12:00:00.000Z\u0000snd_b\u0000x\u00001"),
        encoded("zzzz"),
        "not-a-cursor",
        "",
        // The cursor given, written otherwise: the same bytes, but not as it was given.
        `${first.next}=`,
      ]) {
        const refused = await log.listByApp(APP, { limit: 2, after: crafted }).catch((e) => e);
        expect(refused, crafted).toBeInstanceOf(ValidationError);
      }
    } finally {
      await log.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the embedded delivery log's lifetimes and purges", () => {
  const APP = "com.example.lifetimes";
  let dir: string;
  let log: LocalDeliveryLog;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "delivery-log-"));
    log = await openLocalDeliveryLog(join(dir, "log"));
  });
  afterEach(async () => {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });
  const sendIds = async (appId = APP) =>
    (await log.listByApp(appId, { limit: 10 })).entries.map((entry) => entry.sendId);

  it("keeps an attempt 30 days from its time, and its day's counts a day longer", async () => {
    await log.append(
      attemptEntry(APP, { sendId: "snd_1", time: "2026-10-01T12:00:00.000Z", verdict: "retry" }),
    );
    // Long ago: an expiry of fewer digits is still in time order.
    await log.append(
      attemptEntry(APP, { sendId: "snd_0", time: "2001-01-01T00:00:00.000Z", verdict: "retry" }),
    );
    expect(await log.reap(new Date("2026-10-31T11:59:00.000Z"))).toBe(2);
    expect(await sendIds()).toEqual(["snd_1"]);
    expect(await log.reap(new Date("2026-10-31T12:00:01.000Z"))).toBe(1);
    expect(await sendIds()).toEqual([]);
    const days = async () =>
      (await log.counts(APP, new Date("2026-09-01T00:00:00.000Z"))).map((c) => c.day);
    expect(await days()).toEqual(["2026-10-01"]);
    expect(await log.reap(new Date("2026-11-01T00:00:01.000Z"))).toBe(1);
    expect(await days()).toEqual([]);
  });

  it("names a day's count by the partner of its latest attempt", async () => {
    const time = "2026-11-20T12:00:00.000Z";
    await log.append(attemptEntry(APP, { sendId: "snd_1", time, verdict: "delivered" }));
    await log.append(
      attemptEntry(APP, { sendId: "snd_2", time, verdict: "delivered", partner: "renamed" }),
    );
    expect(await log.counts(APP, new Date(time))).toMatchObject([
      { partner: "renamed", delivered: 2 },
    ]);
  });

  it("purges one install's attempts, not those of an install whose id begins like it, nor another app's", async () => {
    const of = (appId: string, sendId: string, serviceId: string) =>
      attemptEntry(appId, {
        sendId,
        time: "2026-11-20T12:00:00.000Z",
        verdict: "delivered",
        subject: { kind: "install", serviceId, eventId: null },
      });
    await log.append(of(APP, "snd_gone", "s"));
    await log.append(of(APP, "snd_longer", "s\u0000b"));
    await log.append(of("com.example.other", "snd_other", "s"));
    expect(await log.purgeInstall(APP, "s")).toBe(1);
    expect(await sendIds()).toEqual(["snd_longer"]);
    expect(await sendIds("com.example.other")).toEqual(["snd_other"]);
  });
});

describe("the embedded delivery log, opened and closed", () => {
  const APP = "com.example.closing";
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "delivery-log-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const entry = (sendId: string) =>
    attemptEntry(APP, { sendId, time: "2026-11-20T12:00:00.000Z", verdict: "delivered" });

  it("writes the attempts given before a close, and refuses those after it", async () => {
    const log = await openLocalDeliveryLog(dir);
    const given = log.append(entry("snd_before"));
    await log.close();
    await expect(given).resolves.toBeUndefined();
    await expect(log.append(entry("snd_after"))).rejects.toThrow();
    const again = await openLocalDeliveryLog(dir);
    try {
      expect((await again.listByApp(APP, { limit: 10 })).entries.map((one) => one.sendId)).toEqual([
        "snd_before",
      ]);
    } finally {
      await again.close();
    }
  });

  it("keeps nothing of a purged install's attempts but its days' counts", async () => {
    const log = await openLocalDeliveryLog(dir);
    await log.append(entry("snd_1"));
    await log.append({ ...entry("snd_1"), attempt: 2 });
    expect(await log.purgeInstall(APP, entry("snd_1").subject.serviceId)).toBe(2);
    await log.close();
    const left = await keysIn(dir);
    expect(left.map((key) => key.slice(0, 2))).toEqual(["c\u0000", "x\u0000"]);
  });
});

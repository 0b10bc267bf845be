/** The embedded delivery log's own rules, beside the contract it shares with DynamoDB's. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../domain/errors.ts";
import { openLocalDeliveryLog } from "./delivery-log.ts";
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

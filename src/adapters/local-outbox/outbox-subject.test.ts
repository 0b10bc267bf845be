/**
 * The embedded outbox keeps all of an event send's subject: the customer user id the event was
 * sent with is what its webhook names the user by.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { OutboxRow } from "../../ports/postbacks.ts";
import { openLocalOutboxStore } from "./outbox-store.ts";

describe("the embedded outbox's event subject", () => {
  it("keeps the customer user id the event was sent with", async () => {
    const dir = await mkdtemp(join(tmpdir(), "outbox-subject-"));
    const outbox = await openLocalOutboxStore(dir);
    try {
      const subject = {
        kind: "event",
        serviceId: "svc-1",
        eventId: "evt-1",
        name: "service_purchase",
        time: "2026-11-24T11:00:00.000Z",
        revenue: null,
        ip: null,
        userAgent: null,
        customerUserId: "u-42",
      } as const;
      const row: OutboxRow = {
        sendId: "snd_user",
        appId: "com.example.subject",
        configId: "backend",
        target: "webhook",
        subject,
        state: "queued",
        attempts: 0,
        nextAttemptAt: null,
        note: null,
        claimToken: null,
        claimedUntil: null,
        createdAt: "2026-11-24T12:00:00.000Z",
        updatedAt: "2026-11-24T12:00:00.000Z",
      };
      await outbox.add(row);
      expect((await outbox.get("snd_user"))?.subject).toEqual(subject);
    } finally {
      await outbox.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The DynamoDB outbox keeps all of an event send's subject: the customer user id the event was
 * sent with is what its webhook names the user by, and a row read back without it would name
 * the install's user (or none) instead.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import type { OutboxRow } from "../../ports/postbacks.ts";
import { onDynalite } from "./dynamo-targets.test-support.ts";
import { createOutboxStore } from "./postbacks.ts";

const openOutbox = onDynalite((doc) => createOutboxStore(doc, LOCAL_TABLE_NAMES.outbox));

const row = (sendId: string, subject: OutboxRow["subject"]): OutboxRow => ({
  sendId,
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
});

const event = {
  kind: "event",
  serviceId: "svc-1",
  eventId: "evt-1",
  name: "service_purchase",
  time: "2026-11-24T11:00:00.000Z",
  revenue: null,
  ip: null,
  userAgent: null,
} as const;

describe("the DynamoDB outbox's event subject", () => {
  let outbox: Awaited<ReturnType<typeof openOutbox>>;
  beforeAll(async () => {
    outbox = await openOutbox();
  });
  afterAll(() => outbox.close());

  it("keeps the customer user id the event was sent with", async () => {
    await outbox.add(row("snd_user", { ...event, customerUserId: "u-42" }));
    expect((await outbox.get("snd_user"))?.subject).toEqual({ ...event, customerUserId: "u-42" });
  });

  it("reads a row added before the id was kept as naming none", async () => {
    await outbox.add(row("snd_old", event));
    const subject = (await outbox.get("snd_old"))?.subject;
    expect(subject).toEqual(event);
    expect(subject?.kind === "event" ? (subject.customerUserId ?? null) : "install").toBeNull();
  });
});

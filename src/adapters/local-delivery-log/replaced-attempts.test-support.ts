/**
 * What both delivery logs (this folder's, and the DynamoDB table's in
 * ../dynamodb/postbacks.ts) do with an attempt recorded again: its worker stopped after
 * logging it and before settling it, and the delivery that took the attempt over logged its own
 * outcome. The record is replaced, and the day's counts hold the new verdict only.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeliveryLog, DeliveryLogEntry } from "../../ports/postbacks.ts";

type Log = Pick<DeliveryLog, "append" | "listByApp" | "counts"> & { close(): Promise<void> };

/** An attempt of `appId`'s, as a test states it. */
export const attemptEntry = (
  appId: string,
  overrides: Partial<DeliveryLogEntry> & Pick<DeliveryLogEntry, "time" | "verdict">,
): DeliveryLogEntry => ({
  appId,
  sendId: "snd_replaced",
  configId: "cfg",
  target: "partner",
  partner: "custom",
  subject: { kind: "install", serviceId: "s1", eventId: null },
  url: "https://pb.example.com/i",
  method: "GET",
  status: null,
  answer: null,
  error: null,
  attempt: 1,
  retry: false,
  final: false,
  reason: null,
  ...overrides,
});

export const describeReplacedAttempts = (name: string, open: () => Promise<Log>) =>
  describe(`${name}: an attempt recorded again`, () => {
    // Opened in a hook, whose time allows for a store that starts slowly (moto's server,
    // installed on first use), not in the test's own time.
    let log: Log;
    beforeEach(async () => {
      log = await open();
    });
    afterEach(() => log.close());

    it("counts its new verdict in place of the one it replaced, on either day", async () => {
      const app = "com.example.replaced";
      await log.append(
        attemptEntry(app, {
          time: "2026-11-24T12:00:10.000Z",
          verdict: "retry",
          error: "no answer within 10 s",
        }),
      );
      await log.append(
        attemptEntry(app, {
          time: "2026-11-24T12:01:00.000Z",
          verdict: "delivered",
          status: 200,
          final: true,
        }),
      );
      // Another attempt, taken over past midnight: counted on its new day only.
      await log.append(
        attemptEntry(app, {
          sendId: "snd_late",
          time: "2026-11-24T23:59:50.000Z",
          verdict: "retry",
        }),
      );
      await log.append(
        attemptEntry(app, {
          sendId: "snd_late",
          time: "2026-11-25T00:00:30.000Z",
          verdict: "failed",
        }),
      );
      // Recorded again with the verdict it had: counted once.
      await log.append(
        attemptEntry(app, {
          sendId: "snd_same",
          time: "2026-11-25T01:00:00.000Z",
          verdict: "delivered",
        }),
      );
      await log.append(
        attemptEntry(app, {
          sendId: "snd_same",
          time: "2026-11-25T01:00:05.000Z",
          verdict: "delivered",
        }),
      );

      const page = await log.listByApp(app, { limit: 10 });
      expect(page.entries.map((e) => `${e.sendId} ${e.verdict}`)).toEqual([
        "snd_same delivered",
        "snd_late failed",
        "snd_replaced delivered",
      ]);
      const counts = await log.counts(app, new Date("2026-11-24T00:00:00.000Z"));
      const byDay = Object.fromEntries(
        counts.map(({ day, delivered, retry, failed }) => [day, { delivered, retry, failed }]),
      );
      expect(byDay).toEqual({
        "2026-11-24": { delivered: 1, retry: 0, failed: 0 },
        "2026-11-25": { delivered: 1, retry: 0, failed: 1 },
      });
    });

    it("counts a partner and a webhook that share an id apart", async () => {
      const app = "com.example.shared-id";
      const time = "2026-11-24T12:00:00.000Z";
      await log.append(
        attemptEntry(app, { sendId: "snd_p", configId: "main", time, verdict: "delivered" }),
      );
      await log.append(
        attemptEntry(app, {
          sendId: "snd_w",
          configId: "main",
          target: "webhook",
          partner: "webhook",
          time,
          verdict: "failed",
        }),
      );
      const counts = await log.counts(app, new Date("2026-11-24T00:00:00.000Z"));
      expect(
        counts
          .map(({ configId, partner, delivered, failed }) => ({
            configId,
            partner,
            delivered,
            failed,
          }))
          .sort((a, b) => a.partner.localeCompare(b.partner)),
      ).toEqual([
        { configId: "main", partner: "custom", delivered: 1, failed: 0 },
        { configId: "main", partner: "webhook", delivered: 0, failed: 1 },
      ]);
    });
  });

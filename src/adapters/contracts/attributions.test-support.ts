/**
 * The attribution store's contract (AttributionStore in src/ports/attributions.ts), one suite for
 * every store behind the port: the DynamoDB table (on dynalite, and on DynamoDB's API as moto's
 * server answers it, as on AWS) and the embedded runtime's own store. Each store's test file
 * calls `describeAttributionStoreContract` with a factory of its own side; the `it`s share its
 * store, each with an app of its own. Held here: a pending attribution made once; resolved
 * once, however many runs race, its facts forgotten but for its sender, kept until delivered;
 * failed only while pending, and resolvable after; the sweeper's list of what is open (unresolved, or resolved with its lake rows
 * unwritten) requested before a time, whatever offset the time is written with; deletion.
 */
import { describe, expect, it } from "vitest";
import { resultOf } from "../../attribution/results.ts";
import { DEFAULT_ATTRIBUTION } from "../../attribution/settings.ts";
import type { InstallFacts } from "../../domain/install-facts.ts";
import type { AttributionResult, AttributionStore } from "../../ports/attributions.ts";
import { underTest } from "./under-test.test-support.ts";

export interface AttributionStoreUnderTest {
  readonly store: AttributionStore;
  close(): Promise<void>;
}

let apps = 0;
/** An app of its own for each test, so that tests share a store and not their records. */
const freshApp = () => `com.attributions.t${++apps}`;

/** An install's facts as matching reads them, for the attribution stores' tests. */
export const attributionFacts = (
  appId: string,
  overrides: Partial<InstallFacts> = {},
): InstallFacts => ({
  appId,
  os: "android",
  osVersion: "14",
  deviceModel: "Pixel 8",
  firstOpenTime: "2026-11-01T10:00:00.000Z",
  receivedAt: "2026-11-01T10:00:01.000Z",
  clockOffsetMs: null,
  maid: null,
  attStatus: null,
  referrerClickId: "click-1",
  openUrlClickId: null,
  installBeganAt: null,
  deviceReferrerClickAt: null,
  deviceInstallBeganAt: null,
  ip: "81.2.69.142",
  userAgent: null,
  platformAdsToken: null,
  ...overrides,
});

const REQUESTED = "2026-11-01T10:00:02.000Z";
const organic = (): AttributionResult =>
  resultOf({ kind: "organic" }, null, new Date("2026-11-01T10:00:03.000Z"), DEFAULT_ATTRIBUTION);

const SENDER = { ip: "81.2.69.142", userAgent: "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8)" };

const pending = (appId: string, serviceId: string, requestedAt = REQUESTED) => ({
  appId,
  serviceId,
  facts: attributionFacts(appId),
  requestedAt,
});

export const describeAttributionStoreContract = (
  name: string,
  factory: () => Promise<AttributionStoreUnderTest>,
): void => {
  describe(`the attribution store: ${name}`, () => {
    const subject = underTest(factory);
    const store = () => subject().store;
    /** The app's open attributions requested before `before`, by service id. */
    const openOf = async (appId: string, before: string) =>
      (await store().listOpen(new Date(before)))
        .filter((open) => open.appId === appId)
        .map((open) => open.serviceId)
        .sort();

    it("makes a pending attribution once, with its facts", async () => {
      const app = freshApp();
      expect(await store().createPending(pending(app, "d1"))).toBe(true);
      expect(await store().createPending(pending(app, "d1", "2026-11-02T00:00:00.000Z"))).toBe(
        false,
      );
      expect(await store().get(app, "d1")).toEqual({ state: "pending", ...pending(app, "d1") });
      expect(await store().get(app, "d2")).toBeUndefined();
      expect(await store().get(freshApp(), "d1")).toBeUndefined();
    });

    it("resolves an attribution once, forgetting its facts, however many runs race", async () => {
      const app = freshApp();
      await store().createPending(pending(app, "d1"));
      const result = organic();
      const raced = await Promise.all(
        Array.from({ length: 5 }, () => store().resolve(app, "d1", result, SENDER)),
      );
      expect(raced.filter(Boolean)).toHaveLength(1);
      expect(await store().get(app, "d1")).toEqual({
        state: "resolved",
        appId: app,
        serviceId: "d1",
        result,
        delivered: false,
        sender: SENDER,
      });
      // Nothing to resolve: no record.
      expect(await store().resolve(app, "none", result, SENDER)).toBe(false);
      expect(await store().get(app, "none")).toBeUndefined();
    });

    it("keeps the sender with the result until delivered, then forgets it", async () => {
      const app = freshApp();
      await store().createPending(pending(app, "d1"));
      await store().resolve(app, "d1", organic(), { ip: null, userAgent: "agent" });
      expect(await store().get(app, "d1")).toMatchObject({
        delivered: false,
        sender: { ip: null, userAgent: "agent" },
      });
      await store().markDelivered(app, "d1");
      expect(await store().get(app, "d1")).toEqual({
        state: "resolved",
        appId: app,
        serviceId: "d1",
        result: organic(),
        delivered: true,
        sender: null,
      });
    });

    it("marks only a pending attribution failed, and resolves a failed one", async () => {
      const app = freshApp();
      await store().createPending(pending(app, "d1"));
      await store().markFailed(app, "d1");
      expect(await store().get(app, "d1")).toMatchObject({
        state: "failed",
        facts: attributionFacts(app),
      });
      expect(await store().resolve(app, "d1", organic(), SENDER)).toBe(true);
      await store().markFailed(app, "d1");
      expect(await store().get(app, "d1")).toMatchObject({ state: "resolved" });
      await store().markFailed(app, "none");
      expect(await store().get(app, "none")).toBeUndefined();
    });

    it("lists what is open and requested before a time: unresolved, or resolved and not delivered", async () => {
      const app = freshApp();
      await store().createPending(pending(app, "pending"));
      await store().createPending(pending(app, "failed"));
      await store().markFailed(app, "failed");
      await store().createPending(pending(app, "resolved"));
      await store().resolve(app, "resolved", organic(), SENDER);
      await store().createPending(pending(app, "delivered"));
      await store().resolve(app, "delivered", organic(), SENDER);
      await store().markDelivered(app, "delivered");
      await store().createPending(pending(app, "later", "2026-11-01T12:00:00.000Z"));
      // Written with an offset: compared as the instant it names (10:30 UTC).
      await store().createPending(pending(app, "offset", "2026-11-01T12:30:00.000+02:00"));

      expect(await store().get(app, "delivered")).toMatchObject({ delivered: true });
      expect(await openOf(app, "2026-11-01T11:00:00.000Z")).toEqual([
        "failed",
        "offset",
        "pending",
        "resolved",
      ]);
      expect(await openOf(app, "2026-11-01T13:00:00.000Z")).toEqual([
        "failed",
        "later",
        "offset",
        "pending",
        "resolved",
      ]);
      // Requested at the time itself is not before it.
      expect(await openOf(app, REQUESTED)).toEqual([]);
      // Only a resolved attribution is delivered.
      await expect(store().markDelivered(app, "pending")).rejects.toThrow();
      expect(await store().get(app, "pending")).toMatchObject({ state: "pending" });
    });

    it("lists every open attribution of many installs", async () => {
      const app = freshApp();
      const ids = Array.from({ length: 30 }, (_, i) => `open-${String(i).padStart(2, "0")}`);
      for (const serviceId of ids) await store().createPending(pending(app, serviceId));
      expect(await openOf(app, "2026-11-01T11:00:00.000Z")).toEqual(ids);
    });

    it("forgets a deleted install's attribution, and lists it open no more", async () => {
      const app = freshApp();
      await store().createPending(pending(app, "d1"));
      await store().createPending(pending(app, "d2"));
      await store().delete(app, "d1");
      await store().delete(app, "none");
      expect(await store().get(app, "d1")).toBeUndefined();
      expect(await openOf(app, "2026-11-01T11:00:00.000Z")).toEqual(["d2"]);
      // Made again after its deletion (the device reported it again).
      expect(await store().createPending(pending(app, "d1"))).toBe(true);
    });
  });
};

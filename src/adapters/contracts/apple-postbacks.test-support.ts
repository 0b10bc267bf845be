/**
 * The contract of the store of Apple's postbacks (src/ports/apple-postbacks.ts) where it differs
 * by server: one suite for each server the store runs against (dynalite on the embedded
 * runtime, DynamoDB's own API on AWS, moto's here). Each runner's test file calls
 * `describeApplePostbackStoreContract` with a factory of its own side; the `it`s are the same
 * and share its store, each with App Store ids and transaction ids of its own.
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../domain/errors.ts";
import type {
  ApplePostbackStore,
  StoredApplePostback,
  Verification,
} from "../../ports/apple-postbacks.ts";
import { storedPostback } from "../../skadnetwork/apple-samples.test-support.ts";
import { underTest } from "./under-test.test-support.ts";

export interface ApplePostbackStoreUnderTest extends ApplePostbackStore {
  close(): Promise<void>;
}

const DAY = 86_400_000;
/** Ten days ago: an unverified postback's days are not over (the listings leave those out). */
const T0 = Date.now() - 10 * DAY;
const at = (days: number) => new Date(T0 + days * DAY).toISOString();
const FAR = { from: new Date(T0 - 20 * DAY), to: new Date(T0 + 20 * DAY) };

const SIGNED: Readonly<Record<"production" | "development" | "unverified", Verification>> = {
  production: { status: "verified", environment: "production", keyId: "k", reason: null },
  development: { status: "verified", environment: "development", keyId: "d", reason: null },
  unverified: { status: "unverified", environment: null, keyId: null, reason: "changed" },
};

let ids = 0;
/** An App Store id of its own for each test, so that tests share the table and not its items. */
const freshAppStoreId = () => `${7_000_000_000 + ++ids}`;

const postback = (
  appStoreId: string,
  transactionId: string,
  signed: keyof typeof SIGNED,
  options: { readonly appId?: string | null; readonly days?: number } = {},
): StoredApplePostback =>
  storedPostback({
    adNetworkId: "example123.skadnetwork",
    appStoreId,
    transactionId: `${appStoreId}-${transactionId}`,
    conversionValue: 20,
    verification: SIGNED[signed],
    appId: options.appId ?? null,
    receivedAt: at(options.days ?? 0),
  });

const transactions = (page: { readonly postbacks: readonly StoredApplePostback[] }) =>
  page.postbacks.map((kept) => kept.transactionId.replace(/^\d+-/, ""));

export const describeApplePostbackStoreContract = (
  name: string,
  factory: () => Promise<ApplePostbackStoreUnderTest>,
): void => {
  describe(`the store of Apple's postbacks ${name}`, () => {
    const store = underTest(factory);

    it("finds by App Store id the postbacks of no app that Apple's production key verified, and no other", async () => {
      const id = freshAppStoreId();
      const other = freshAppStoreId();
      await store().add(postback(id, "production", "production", { days: 1 }));
      await store().add(postback(id, "development", "development", { days: 2 }));
      await store().add(postback(id, "unverified", "unverified", { days: 3 }));
      await store().add(postback(id, "of-an-app", "production", { appId: "com.example.had" }));
      await store().add(postback(other, "production", "production"));
      expect(transactions(await store().listUnclaimed(id, FAR, { limit: 10 }))).toEqual([
        "production",
      ]);
      // They are still no app's, and listed with the rest of no app's.
      const noApp = (await store().listByApp(null, FAR, { limit: 1_000 })).postbacks;
      expect(
        noApp
          .filter((kept) => kept.appStoreId === id)
          .map((kept) => kept.transactionId.replace(/^\d+-/, "")),
      ).toEqual(["production", "development", "unverified"]);
    });

    it("finds one that took a lesser copy's place under no app, and none that took a place under an app", async () => {
      const id = freshAppStoreId();
      await store().add(postback(id, "was-unverified", "unverified"));
      expect(await store().add(postback(id, "was-unverified", "production", { days: 1 }))).toBe(
        true,
      );
      await store().add(postback(id, "was-a-test", "development", { days: 2 }));
      expect(await store().add(postback(id, "was-a-test", "production", { days: 3 }))).toBe(true);
      // A test's copy kept under no app, then Apple's under the app that has the id now.
      await store().add(postback(id, "now-the-apps", "development", { days: 4 }));
      const apps = { appId: "com.example.late", days: 5 };
      expect(await store().add(postback(id, "now-the-apps", "production", apps))).toBe(true);
      expect(transactions(await store().listUnclaimed(id, FAR, { limit: 10 }))).toEqual([
        "was-unverified",
        "was-a-test",
      ]);
      expect(transactions(await store().listByApp("com.example.late", FAR, { limit: 10 }))).toEqual(
        ["now-the-apps"],
      );
    });

    it("finds one whose values were disputed, with the mark", async () => {
      const id = freshAppStoreId();
      const kept = postback(id, "disputed", "production");
      await store().add(kept);
      await store().dispute(kept);
      expect((await store().listUnclaimed(id, FAR, { limit: 10 })).postbacks).toMatchObject([
        { transactionId: kept.transactionId, valuesDisputed: true, appId: null },
      ]);
    });

    it("pages them in their range, oldest first, and refuses a cursor of another id or outside the range", async () => {
      const id = freshAppStoreId();
      for (const [days, transaction] of [
        [-2, "before"],
        [0, "p1"],
        [1, "p2"],
        [2, "p3"],
      ] as const) {
        await store().add(postback(id, transaction, "production", { days }));
      }
      const range = { from: new Date(T0 - DAY), to: new Date(T0 + 3 * DAY) };
      const first = await store().listUnclaimed(id, range, { limit: 2 });
      expect(transactions(first)).toEqual(["p1", "p2"]);
      const after = first.next ?? "";
      expect(after).not.toBe("");
      const rest = await store().listUnclaimed(id, range, { limit: 2, after });
      expect(transactions(rest)).toEqual(["p3"]);
      expect(rest.next).toBeNull();
      const refused = (appStoreId: string, within: { from: Date; to: Date }) =>
        store()
          .listUnclaimed(appStoreId, within, { limit: 2, after })
          .catch((error: unknown) => error);
      expect(await refused(freshAppStoreId(), range)).toBeInstanceOf(ValidationError);
      const narrow = { from: new Date(T0 + 2 * DAY), to: new Date(T0 + 3 * DAY) };
      expect(await refused(id, narrow)).toBeInstanceOf(ValidationError);
      // Nor is one listing's cursor the other's.
      const ofNoApp = await store().listByApp(null, FAR, { limit: 1 });
      const crossed = await store()
        .listUnclaimed(id, range, { limit: 2, after: ofNoApp.next ?? "" })
        .catch((error: unknown) => error);
      expect(crossed).toBeInstanceOf(ValidationError);
    });
  });
};

import { describe, expect, it } from "vitest";
import type { ApplePostbackStore, StoredApplePostback } from "../ports/apple-postbacks.ts";
import { AAK_DEVELOPMENT, SAMPLE_APP } from "./apple-samples.test-support.ts";
import { readAdAttributionKitPostback } from "./postbacks.ts";
import { unknownPostbacks } from "./unknown.ts";

const postback = (appStoreId: string, receivedAt: string, verified: boolean | "development") =>
  ({
    appStoreId,
    receivedAt,
    verification:
      verified === "development"
        ? { status: "verified", environment: "development", keyId: "d", reason: null }
        : verified
          ? { status: "verified", environment: "production", keyId: "k", reason: null }
          : { status: "unverified", environment: null, keyId: null, reason: "changed" },
  }) as StoredApplePostback;

/**
 * A store of no app's postbacks, paged as the real ones are (oldest first, `next` a cursor),
 * and, as DynamoDB does, with a cursor after any full page, even the last.
 */
const storeOf = (all: StoredApplePostback[]): Pick<ApplePostbackStore, "listByApp"> => ({
  listByApp: async (appId, _range, page) => {
    expect(appId).toBeNull();
    const start = Number(page.after ?? 0);
    const end = start + page.limit;
    return { postbacks: all.slice(start, end), next: end <= all.length ? String(end) : null };
  },
});

const RANGE = { from: new Date("2026-11-01T00:00:00Z"), to: new Date("2026-11-30T00:00:00Z") };

describe("the postbacks no app claims", () => {
  const all = [
    postback("111", "2026-11-02T00:00:00.000Z", true),
    postback("222", "2026-11-03T00:00:00.000Z", false),
    postback("111", "2026-11-04T00:00:00.000Z", false),
    postback("111", "2026-11-05T00:00:00.000Z", true),
  ];

  it("counts them by App Store id, most first, with the verified ones and their first and last", async () => {
    expect(await unknownPostbacks(storeOf(all), [], RANGE)).toEqual({
      app_store_ids: [
        {
          app_store_id: "111",
          postbacks: 3,
          verified: 2,
          development: 0,
          first_received_at: "2026-11-02T00:00:00.000Z",
          last_received_at: "2026-11-05T00:00:00.000Z",
          app_id: null,
        },
        {
          app_store_id: "222",
          postbacks: 1,
          verified: 0,
          development: 0,
          first_received_at: "2026-11-03T00:00:00.000Z",
          last_received_at: "2026-11-03T00:00:00.000Z",
          app_id: null,
        },
      ],
      truncated: false,
    });
  });

  it("counts a development-signed postback apart from the verified ones: anyone can make one for any id", async () => {
    // Apple's own example from a device's developer settings: no App Store app has its id.
    const read = readAdAttributionKitPostback(AAK_DEVELOPMENT);
    if (!read.ok) throw new Error(read.problem);
    const test: StoredApplePostback = {
      ...read.postback,
      appId: null,
      receivedAt: "2026-11-02T00:00:00.000Z",
      valuesDisputed: false,
    };
    const counted = await unknownPostbacks(
      storeOf([test, postback(test.appStoreId, "2026-11-03T00:00:00.000Z", "development")]),
      [],
      RANGE,
    );
    expect(counted.app_store_ids).toMatchObject([
      { app_store_id: test.appStoreId, postbacks: 2, verified: 0, development: 2 },
    ]);
  });

  it("names the app that has an id in its settings now: one set since its postbacks came, whose unverified ones stay under no app", async () => {
    const counted = await unknownPostbacks(
      storeOf(all),
      [SAMPLE_APP, { ...SAMPLE_APP, appId: "com.example.now", links: { appStoreId: "222" } }],
      RANGE,
    );
    expect(counted.app_store_ids.map((id) => [id.app_store_id, id.app_id])).toEqual([
      ["111", null],
      ["222", "com.example.now"],
    ]);
  });

  it("leaves out the verified postbacks of an id an app has now, which are that app's, and keeps its others", async () => {
    const counted = await unknownPostbacks(
      storeOf([...all, postback("111", "2026-11-06T00:00:00.000Z", "development")]),
      [{ ...SAMPLE_APP, appId: "com.example.late", links: { appStoreId: "111" } }],
      RANGE,
    );
    expect(counted.app_store_ids).toEqual([
      {
        app_store_id: "111",
        postbacks: 2,
        verified: 0,
        development: 1,
        first_received_at: "2026-11-04T00:00:00.000Z",
        last_received_at: "2026-11-06T00:00:00.000Z",
        app_id: "com.example.late",
      },
      expect.objectContaining({ app_store_id: "222", postbacks: 1, app_id: null }),
    ]);
    // An id whose postbacks were all verified is no longer listed once an app has it.
    const settled = await unknownPostbacks(
      storeOf([postback("333", "2026-11-02T00:00:00.000Z", true)]),
      [{ ...SAMPLE_APP, links: { appStoreId: "333" } }],
      RANGE,
    );
    expect(settled.app_store_ids).toEqual([]);
  });

  it("says it stopped short only when there was more", async () => {
    const counted = await unknownPostbacks(storeOf(all), [], RANGE, all.length);
    expect(counted.truncated).toBe(false);
    expect(counted.app_store_ids.map((id) => id.postbacks)).toEqual([3, 1]);
  });

  it("reads no more than its limit, and says so", async () => {
    const counted = await unknownPostbacks(storeOf(all), [], RANGE, 3);
    expect(counted.truncated).toBe(true);
    expect(counted.app_store_ids.map((id) => [id.app_store_id, id.postbacks])).toEqual([
      ["111", 2],
      ["222", 1],
    ]);
  });
});

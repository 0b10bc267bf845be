/**
 * An ad network's clicks and impressions over HTTP (`POST /v1/touches`): per-touch verdicts,
 * idempotency on (media source, network click id), app isolation, and the touch store's three
 * lookups, which must find every touch of a window however many share a key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Touch } from "../../src/ports/touches.ts";
import type { TouchesAnswer } from "../../src/touches/network-touches.ts";
import { PIXEL } from "../support/agents.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.touched";
const OTHER = "com.example.untouched";
const GAID = "38400000-8cf0-11bd-b23e-10b96e40000d";

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

const window = (appId: string) => ({
  appId,
  from: new Date(Date.now() - 86_400_000),
  to: new Date(Date.now() + 60_000),
});

describe("touches from ad networks", () => {
  let rt: TestRuntime;
  let keys: { sdkKey: string; serverKey: string };
  let other: { sdkKey: string; serverKey: string };

  const send = async (touches: unknown[], key = keys.serverKey) => {
    const response = await rt.post("/v1/touches", { touches }, key);
    expect(response.status).toBe(202);
    return (await response.json()) as TouchesAnswer;
  };

  beforeAll(async () => {
    rt = await startTestRuntime();
    keys = await rt.createApp(APP, "android");
    other = await rt.createApp(OTHER, "android");
  });

  afterAll(() => rt?.dispose());

  it("records good touches, rejects bad ones alone, and answers each", async () => {
    const answer = await send([
      {
        touch_type: "click",
        touch_time: minutesAgo(5),
        media_source: "network_a",
        campaign_name: "Spring",
        ip: "81.2.69.142",
        user_agent: PIXEL,
        maid: GAID,
        params: { sub1: "abc" },
      },
      { touch_type: "view", touch_time: minutesAgo(1), media_source: "network_a" },
      { touch_type: "impression", touch_time: minutesAgo(60 * 24 * 31), media_source: "network_a" },
      {
        touch_type: "impression",
        touch_time: minutesAgo(2),
        media_source: "network_a",
        maid: GAID,
      },
      {
        touch_type: "click",
        touch_time: minutesAgo(2),
        media_source: "x",
        deeplink_id: "AAAAAAAAAAA",
      },
    ]);
    expect(answer.accepted.map((verdict) => verdict.index)).toEqual([0, 3]);
    expect(answer.accepted.every((verdict) => !verdict.duplicate)).toBe(true);
    expect(answer.rejected).toEqual([
      { index: 1, error: "Unprocessable Entity", detail: expect.stringContaining("touch_type") },
      { index: 2, error: "Unprocessable Entity", detail: expect.stringContaining("30 days") },
      { index: 4, error: "Unprocessable Entity", detail: expect.stringContaining("deeplink_id") },
    ]);

    const byMaid = await rt.stores.touches.byMaid(GAID.toUpperCase(), window(APP));
    expect(byMaid.map((touch) => touch.touchType)).toEqual(["impression", "click"]);
    const click = byMaid[1] as Touch;
    expect(click).toMatchObject({
      clickId: answer.accepted[0]?.click_id,
      source: "network",
      campaignName: "Spring",
      platform: "android",
      deviceModel: "Pixel 8",
      params: { sub1: "abc" },
    });
    expect(await rt.stores.touches.byIp("81.2.69.142", window(APP))).toHaveLength(1);
    expect(await rt.stores.touches.byMaid(GAID, window(OTHER))).toHaveLength(0);
  });

  it("takes a network's click once, in one request or across requests", async () => {
    const touch = {
      touch_type: "click",
      touch_time: minutesAgo(3),
      media_source: "network_b",
      click_id: "nb-click-1",
      ip: "2a00:1450:4001:81a::200e",
    };
    const first = await send([touch, { ...touch, touch_time: minutesAgo(1) }]);
    expect(first.accepted).toEqual([
      { index: 0, click_id: expect.any(String), duplicate: false },
      { index: 1, click_id: first.accepted[0]?.click_id, duplicate: true },
    ]);
    const again = await send([touch]);
    expect(again.accepted).toEqual([
      { index: 0, click_id: first.accepted[0]?.click_id, duplicate: true },
    ]);
    // Another network's id of the same text is another touch; another app's, too.
    const elsewhere = await send([{ ...touch, media_source: "network_c" }]);
    expect(elsewhere.accepted[0]?.click_id).not.toBe(first.accepted[0]?.click_id);
    const otherApp = await send([touch], other.serverKey);
    expect(otherApp.accepted[0]).toMatchObject({ duplicate: false });

    // The IPv6 /64 is the key: another address of the same network finds it.
    const found = await rt.stores.touches.byIp("2a00:1450:4001:81a::1", window(APP));
    expect(found.map((t) => t.mediaSource).sort()).toEqual(["network_b", "network_c"]);
  });

  it("gives a request sent again under its Idempotency-Key the same ids, and refuses a key it cannot take", async () => {
    const impressions = [1, 2].map((n) => ({
      touch_type: "impression",
      touch_time: minutesAgo(n),
      media_source: "network_i",
    }));
    const sent = async (key?: string) => {
      const response = await rt.post(
        "/v1/touches",
        { touches: impressions },
        keys.serverKey,
        key === undefined ? {} : { "Idempotency-Key": key },
      );
      expect(response.status).toBe(202);
      return ((await response.json()) as TouchesAnswer).accepted.map((touch) => touch.click_id);
    };
    const first = await sent("4f1c-batch-17");
    expect(await sent("4f1c-batch-17")).toEqual(first);
    expect(await sent("4f1c-batch-18")).not.toEqual(first);
    expect(await sent()).not.toEqual(first);
    const refused = await rt.post("/v1/touches", { touches: impressions }, keys.serverKey, {
      "Idempotency-Key": "two words",
    });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      error: "Unprocessable Entity",
      detail: "Idempotency-Key: must be 1 to 255 visible ASCII characters, without spaces",
    });
  });

  it("finds every one of 10,000 clicks sharing one IP, newest first", async () => {
    const ip = "203.0.113.77";
    const base = Date.now() - 3_600_000;
    const clickIds: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const answer = await send(
        Array.from({ length: 1_000 }, (_, i) => ({
          touch_type: "click",
          touch_time: new Date(base + (batch * 1_000 + i) * 100).toISOString(),
          media_source: "carrier_nat",
          ip,
        })),
      );
      expect(answer.rejected).toEqual([]);
      clickIds.push(...answer.accepted.map((verdict) => verdict.click_id));
    }
    const found = await rt.stores.touches.byIp(ip, window(APP));
    expect(found).toHaveLength(10_000);
    expect(new Set(found.map((touch) => touch.clickId))).toEqual(new Set(clickIds));
    const times = found.map((touch) => touch.touchTime);
    expect(times).toEqual([...times].sort().reverse());
  }, 120_000);
});

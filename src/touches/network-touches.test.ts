import { describe, expect, it } from "vitest";
import type { LakeRecord } from "../lake/lake-tables.ts";
import { testLink } from "../links/link.test-support.ts";
import type { App } from "../ports/apps.ts";
import type { Link } from "../ports/links.ts";
import type { Touch } from "../ports/touches.ts";
import { createNetworkTouches } from "./network-touches.ts";

const APP: App = {
  appId: "com.example.game",
  name: "Game",
  platform: "android",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
};
const NOW = new Date("2026-11-24T12:00:00.000Z");

/** The touch store as a map, the way the port promises it behaves. */
const memoryTouches = () => {
  const stored = new Map<string, Touch>();
  return {
    stored,
    put: async (touches: readonly Touch[]) => {
      for (const touch of touches) stored.set(touch.clickId, touch);
    },
    putIfAbsent: async (touch: Touch) => {
      const found = stored.get(touch.clickId);
      if (found) return { touch: found, created: false };
      stored.set(touch.clickId, touch);
      return { touch, created: true };
    },
    delete: async (clickIds: readonly string[]) => {
      for (const clickId of clickIds) stored.delete(clickId);
    },
  };
};

const setup = (options: { streamFails?: boolean; links?: Link[] } = {}) => {
  const touches = memoryTouches();
  const rows: LakeRecord[] = [];
  const record = createNetworkTouches({
    apps: { get: async (appId) => (appId === APP.appId ? APP : undefined) },
    links: { get: async (id) => options.links?.find((link) => link.deeplinkId === id) },
    touches,
    stream: {
      put: async (records) => {
        if (options.streamFails) throw new Error("stream down");
        rows.push(...records);
      },
    },
    countries: { countryOf: () => "DE" },
    now: () => NOW,
  });
  return { record, touches, rows };
};

const click = (overrides: Record<string, unknown> = {}) => ({
  touch_type: "click",
  touch_time: "2026-11-24T11:00:00Z",
  media_source: "network_a",
  ...overrides,
});

describe("an ad network's touches", () => {
  it("stores each good touch and its lake row, IP truncated, and answers its click id", async () => {
    const { record, touches, rows } = setup();
    const answer = await record(APP.appId, {
      touches: [click({ ip: "81.2.69.142", click_id: "n1" }), click({ touch_type: "x" })],
    });
    expect(answer.accepted).toEqual([{ index: 0, click_id: expect.any(String), duplicate: false }]);
    expect(answer.rejected).toEqual([
      { index: 1, error: "Unprocessable Entity", detail: expect.stringContaining("touch_type") },
    ]);
    const clickId = answer.accepted[0]?.click_id ?? "";
    expect(touches.stored.get(clickId)).toMatchObject({ ip: "81.2.69.142", country: "DE" });
    expect(rows).toEqual([
      expect.objectContaining({ click_id: clickId, ip_truncated: "81.2.69.0", app_id: APP.appId }),
    ]);
  });

  it("takes back what it stored when the lake refuses the rows, so a retry is whole", async () => {
    const { record, touches } = setup({ streamFails: true });
    await expect(
      record(APP.appId, { touches: [click(), click({ click_id: "n2" })] }),
    ).rejects.toThrow("stream down");
    expect(touches.stored.size).toBe(0);
  });

  it("keeps a repeat of an earlier request's touch, and does not take it back on a failure", async () => {
    const { record, touches } = setup();
    const first = await record(APP.appId, { touches: [click({ click_id: "n3" })] });
    const failing = setup({ streamFails: true });
    // The same store, a failing stream.
    for (const [id, touch] of touches.stored) failing.touches.stored.set(id, touch);
    await expect(
      failing.record(APP.appId, { touches: [click({ click_id: "n3" }), click()] }),
    ).rejects.toThrow("stream down");
    expect([...failing.touches.stored.keys()]).toEqual([first.accepted[0]?.click_id]);
  });

  it("fills what a touch leaves out from the link it names, and refuses another app's link", async () => {
    const link = testLink({
      campaignId: "123",
      campaignName: "Winter",
      deepLinkPath: "/levels/7",
      params: { promo: "WINTER" },
    });
    const other = { ...link, deeplinkId: "AAAAAAAAAAA", appId: "com.example.other" };
    const { record, touches } = setup({ links: [link, other] });
    const answer = await record(APP.appId, {
      touches: [
        click({ deeplink_id: link.deeplinkId, campaign_name: "Spring", params: { sub1: "x" } }),
        click({ deeplink_id: other.deeplinkId }),
      ],
    });
    expect(answer.rejected.map((verdict) => verdict.index)).toEqual([1]);
    const stored = touches.stored.get(answer.accepted[0]?.click_id ?? "");
    expect(stored).toMatchObject({
      deeplinkId: link.deeplinkId,
      campaignId: "123",
      campaignName: "Spring",
      params: { deep_link_path: "/levels/7", promo: "WINTER", sub1: "x" },
    });
  });
});

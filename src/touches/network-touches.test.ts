import { describe, expect, it, vi } from "vitest";
import { parseEcbRates } from "../fx/ecb-rates.ts";
import type { LakeRecord } from "../lake/lake-tables.ts";
import { testLink } from "../links/link.test-support.ts";
import type { App } from "../ports/apps.ts";
import type { RecordStream } from "../ports/lake.ts";
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
/** EUR at 1.1 USD on the touches' day. */
const FX = parseEcbRates("Date,USD,\n2026-11-24,1.1,\n");

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

/**
 * The recorder over a touch store of its own (or `touches`), the lake's stream as `put`, the
 * app, `links`, and a country of DE for every address.
 */
const recorderOf = (
  put: RecordStream["put"],
  options: {
    touches?: ReturnType<typeof memoryTouches>;
    links?: Link[];
    now?: () => Date;
  } = {},
) => {
  const touches = options.touches ?? memoryTouches();
  const record = createNetworkTouches({
    apps: { get: async (appId) => (appId === APP.appId ? APP : undefined) },
    links: { get: async (id) => options.links?.find((link) => link.deeplinkId === id) },
    touches,
    stream: { put },
    countries: { countryOf: () => "DE" },
    fx: FX,
    now: options.now ?? (() => NOW),
  });
  return { record, touches };
};

const setup = (options: { streamFails?: boolean; links?: Link[] } = {}) => {
  const rows: LakeRecord[] = [];
  const { record, touches } = recorderOf(async (records) => {
    if (options.streamFails) throw new Error("stream down");
    rows.push(...records);
  }, options);
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

  it("takes back the random ids it stored when the lake refuses the rows; a network's click id stays for the retry to finish", async () => {
    const { record, touches } = setup({ streamFails: true });
    const sent = { touches: [click(), click({ click_id: "n2" })] };
    await expect(record(APP.appId, sent)).rejects.toThrow("stream down");
    expect([...touches.stored.values()].map((touch) => touch.networkClickId)).toEqual(["n2"]);
    // The retry, once the lake takes rows again: both touches, and the kept one's lake row.
    const retry = setup();
    for (const [id, touch] of touches.stored) retry.touches.stored.set(id, touch);
    const answer = await retry.record(APP.appId, sent);
    expect(answer.accepted.map((touch) => touch.duplicate)).toEqual([false, true]);
    expect(new Set(retry.rows.map((row) => row.click_id))).toEqual(
      new Set(answer.accepted.map((touch) => touch.click_id)),
    );
  });

  it("never takes back a touch a repeat has answered for, when the request that stored it fails after", async () => {
    const touches = memoryTouches();
    const rows: LakeRecord[] = [];
    let releaseFirst = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let puts = 0;
    const { record } = recorderOf(
      async (records) => {
        puts += 1;
        // The first request's rows wait on the lake, which then refuses them.
        if (puts === 1) {
          await firstHeld;
          throw new Error("stream down");
        }
        rows.push(...records);
      },
      { touches },
    );
    const sent = { touches: [click({ click_id: "n9" })] };
    const first = record(APP.appId, sent);
    const failed = expect(first).rejects.toThrow("stream down");
    await vi.waitFor(() => expect(puts).toBe(1));
    // The network's client gave up on the first request and sent it again: answered.
    const repeat = await record(APP.appId, sent);
    expect(repeat.accepted).toEqual([{ index: 0, click_id: expect.any(String), duplicate: true }]);
    releaseFirst();
    await failed;
    const clickId = repeat.accepted[0]?.click_id ?? "";
    expect(touches.stored.has(clickId)).toBe(true);
    expect(rows.map((row) => row.click_id)).toEqual([clickId]);
  });

  it("gives a request sent again under its Idempotency-Key the same ids, so rows a failure left in the lake count once", async () => {
    // Firehose took part of the rows, then failed: what it took stays in the lake.
    const rows: LakeRecord[] = [];
    let failing = true;
    const { record } = recorderOf(async (records) => {
      rows.push(...records.slice(0, 2));
      if (failing) throw new Error("stream down after 2 rows");
      rows.push(...records.slice(2));
    });
    const impressions = {
      touches: [1, 2, 3].map((n) => click({ touch_type: "impression", params: { n: String(n) } })),
    };
    await expect(record(APP.appId, impressions, "batch-7")).rejects.toThrow("stream down");
    failing = false;
    const retried = await record(APP.appId, impressions, "batch-7");
    const distinct = new Set(rows.map((row) => row.click_id));
    expect(distinct).toEqual(new Set(retried.accepted.map((touch) => touch.click_id)));
    expect(distinct.size).toBe(3);
    // The same touches in another request, or without a key, are touches of their own.
    const other = await record(APP.appId, impressions, "batch-8");
    const keyless = await record(APP.appId, impressions);
    const ids = [other, keyless].flatMap((answer) => answer.accepted.map((t) => t.click_id));
    expect(new Set([...distinct, ...ids]).size).toBe(9);
  });

  it("keeps the first receipt of a touch sent again under its Idempotency-Key, and what a failed resend added", async () => {
    const touches = memoryTouches();
    let clock = NOW;
    let streamFails = false;
    const { record } = recorderOf(
      async (records) => {
        if (streamFails && records.length > 0) throw new Error("stream down");
      },
      { touches, now: () => clock },
    );
    // A click with no network click id: the key gives it its id.
    const sent = { touches: [click({ maid: "38400000-8cf0-11bd-b23e-10b96e40000d" })] };
    const first = await record(APP.appId, sent, "batch-9");
    const [id] = first.accepted.map((touch) => touch.click_id);
    if (!id) throw new Error("no touch");
    // Its answer lost, the network sends it again minutes later: the touch it stored stands.
    clock = new Date(NOW.getTime() + 6 * 60_000);
    const again = await record(APP.appId, sent, "batch-9");
    expect(again.accepted).toEqual([{ index: 0, click_id: id, duplicate: true }]);
    expect(touches.stored.get(id)?.receivedAt).toBe(NOW.toISOString());
    // A resend with a touch more that fails: the first touch keeps its receipt, and the new
    // one, whose id the key gives, stays for the next resend, which answers it.
    streamFails = true;
    const more = { touches: [...sent.touches, click({ touch_type: "impression" })] };
    await expect(record(APP.appId, more, "batch-9")).rejects.toThrow("stream down");
    expect(touches.stored.size).toBe(2);
    expect(touches.stored.get(id)?.receivedAt).toBe(NOW.toISOString());
    streamFails = false;
    const last = await record(APP.appId, more, "batch-9");
    expect(last.accepted.map((touch) => touch.duplicate)).toEqual([true, true]);
    expect(new Set(last.accepted.map((touch) => touch.click_id))).toEqual(
      new Set(touches.stored.keys()),
    );
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
      adsetId: "as-1",
      adsetName: "Broad",
      adId: "ad-1",
      adName: "Video",
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
      adsetId: "as-1",
      adsetName: "Broad",
      adId: "ad-1",
      adName: "Video",
      params: { deep_link_path: "/levels/7", promo: "WINTER", sub1: "x" },
    });
    // Each of the network's own values wins over the link's.
    const own = await record(APP.appId, {
      touches: [
        click({
          deeplink_id: link.deeplinkId,
          campaign_id: "456",
          adset_id: "as-2",
          adset_name: "Lookalike",
          ad_id: "ad-2",
          ad_name: "Banner",
          params: { promo: "SPRING" },
        }),
      ],
    });
    expect(touches.stored.get(own.accepted[0]?.click_id ?? "")).toMatchObject({
      campaignId: "456",
      params: { deep_link_path: "/levels/7", promo: "SPRING" },
      adsetId: "as-2",
      adsetName: "Lookalike",
      adId: "ad-2",
      adName: "Banner",
    });
  });

  it("answers a click id sent twice in one request as one touch, the second a repeat, in the request's order", async () => {
    const { record, touches, rows } = setup();
    const answer = await record(APP.appId, {
      touches: [
        click({ click_id: "n5" }),
        click({ touch_type: "x" }),
        click({ click_id: "n5" }),
        click(),
      ],
    });
    const [first, repeat, other] = answer.accepted;
    expect(answer.accepted.map((touch) => [touch.index, touch.duplicate])).toEqual([
      [0, false],
      [2, true],
      [3, false],
    ]);
    expect(repeat?.click_id).toBe(first?.click_id);
    expect(other?.click_id).not.toBe(first?.click_id);
    expect(answer.rejected.map((verdict) => verdict.index)).toEqual([1]);
    expect(touches.stored.size).toBe(2);
    expect(rows.map((row) => row.click_id).sort()).toEqual(
      [first?.click_id, other?.click_id].sort(),
    );
  });

  it("takes the first of a click id sent twice by the request's order, whichever was checked first", async () => {
    // The first names a link, which is looked up; the second names none, and is ready at once.
    const link = testLink({ campaignName: "Winter" });
    const { record } = setup({ links: [link] });
    const answer = await record(APP.appId, {
      touches: [click({ click_id: "n7", deeplink_id: link.deeplinkId }), click({ click_id: "n7" })],
    });
    expect(answer.accepted.map((touch) => [touch.index, touch.duplicate])).toEqual([
      [0, false],
      [1, true],
    ]);
  });

  it("fails the request when a network's click id cannot be claimed, taking back the random ids it stored", async () => {
    const touches = memoryTouches();
    const rows: LakeRecord[] = [];
    const { record } = recorderOf(async (records) => void rows.push(...records), {
      touches: {
        ...touches,
        putIfAbsent: async () => {
          throw new Error("store down");
        },
      },
    });
    await expect(
      record(APP.appId, { touches: [click(), click({ click_id: "n7" })] }),
    ).rejects.toThrow("store down");
    expect(touches.stored.size).toBe(0);
    expect(rows).toEqual([]);
  });

  it("keeps a touch's own cost, else its link's, and its cost in USD on its lake row", async () => {
    const link = testLink({ cost: { model: "CPI", value: 2.5, currency: "EUR" } });
    const { record, touches, rows } = setup({ links: [link] });
    const answer = await record(APP.appId, {
      touches: [
        click({ cost_model: "CPC", cost_value: 0.2, cost_currency: "EUR", click_id: "a" }),
        click({ deeplink_id: link.deeplinkId, click_id: "b" }),
        click({
          deeplink_id: link.deeplinkId,
          touch_type: "impression",
          cost_model: "CPM",
          cost_value: 5,
          cost_currency: "USD",
          click_id: "c",
        }),
        click({ click_id: "d" }),
        click({ cost_model: "CPC", click_id: "e" }),
      ],
    });
    expect(answer.rejected).toEqual([
      {
        index: 4,
        error: "Unprocessable Entity",
        detail:
          "cost_value: is required with cost_model; cost_currency: is required with cost_model",
      },
    ]);
    const ids = answer.accepted.map((verdict) => verdict.click_id);
    expect(ids.map((id) => touches.stored.get(id)?.cost)).toEqual([
      { model: "CPC", value: 0.2, currency: "EUR" },
      { model: "CPI", value: 2.5, currency: "EUR" },
      { model: "CPM", value: 5, currency: "USD" },
      null,
    ]);
    const rowOf = (id: string | undefined) => rows.find((row) => row.click_id === id);
    expect(ids.map((id) => rowOf(id)?.cost_usd)).toEqual([0.22, null, 0.005, null]);
    expect(rowOf(ids[1])).toMatchObject({
      cost_model: "CPI",
      cost_value: 2.5,
      cost_currency: "EUR",
    });
  });
});

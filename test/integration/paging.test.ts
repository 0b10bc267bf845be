/**
 * Paging through one export while new events keep arriving: no gap, no repeat, for one client
 * or two at once, each naming its snapshot; a new export sees the present.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SNAPSHOT_HEADER } from "../../src/export/paging.ts";
import type { ExportRecord } from "../../src/record/columns.ts";
import { lakeEvent } from "../support/records.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.pager";
const T0 = Date.parse("2026-11-10T00:00:00Z");
const since = Math.floor(T0 / 1000);

describe("paging one export", () => {
  let rt: TestRuntime;
  let serverKey: string;
  const initial = new Set<string>();
  /** The events the first test adds while it pages, inside the window. */
  const lateIds: string[] = [];

  beforeAll(async () => {
    rt = await startTestRuntime();
    ({ serverKey } = await rt.createApp(APP));
    const events = Array.from({ length: 2_500 }, (_, i) =>
      lakeEvent({
        app_id: APP,
        event_id: `e-${String(i).padStart(5, "0")}`,
        event_time: new Date(T0 + i * 997).toISOString(),
      }),
    );
    for (const e of events) initial.add(String(e.event_id));
    await rt.streams.events.put(events);
    await rt.flush();
  });

  afterAll(async () => {
    await rt.dispose();
  });

  it("returns every event exactly once while events are being added, in order", async () => {
    const seen: ExportRecord[] = [];
    const limit = 300;
    let late = 0;
    for (let offset = 0; ; offset += limit) {
      const response = await rt.get(
        `/api/v1/export?timestamp=${since}&limit=${limit}&offset=${offset}`,
        serverKey,
      );
      expect(response.status).toBe(200);
      const { data } = (await response.json()) as { data: ExportRecord[] };
      seen.push(...data);
      // Late events land inside the window, before and after the pages already read.
      lateIds.push(`late-${late}`, `late-${late + 1}`);
      await rt.streams.events.put([
        lakeEvent({
          app_id: APP,
          event_id: `late-${late++}`,
          event_time: new Date(T0 + 5).toISOString(),
        }),
        lakeEvent({
          app_id: APP,
          event_id: `late-${late++}`,
          event_time: new Date(T0 + 3_000_000).toISOString(),
        }),
      ]);
      await rt.flush();
      if (data.length < limit) break;
    }
    const ids = seen.map((e) => String(e.event_id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(initial);
    const times = seen.map((e) => `${e.event_time}|${e.event_id}`);
    expect(times).toEqual([...times].sort());
  });

  it("shows the late events to a new export of the same window, with a snapshot of its own", async () => {
    const first = await rt.get(`/api/v1/export?timestamp=${since}&limit=10`, serverKey);
    const firstSnapshot = first.headers.get(SNAPSHOT_HEADER);
    await rt.streams.events.put([
      lakeEvent({ app_id: APP, event_id: "fresh-1", event_time: new Date(T0 + 7).toISOString() }),
    ]);
    await rt.flush();
    const response = await rt.get(`/api/v1/export?timestamp=${since}&limit=10000`, serverKey);
    expect(response.headers.get(SNAPSHOT_HEADER)).not.toBe(firstSnapshot);
    const { data } = (await response.json()) as { data: ExportRecord[] };
    const ids = data.map((e) => String(e.event_id));
    // Every event of the window now, each once: the first ones, the late ones (several at one
    // time), and the fresh one.
    expect(lateIds.length).toBeGreaterThan(2);
    expect(ids.toSorted()).toEqual([...initial, ...lateIds, "fresh-1"].sort());
  });

  it("gives two clients paging the same window at once each its own snapshot, every event once", async () => {
    const limit = 400;
    const exported = new Set<string>();
    /** Every event id the lake holds for the window now. */
    const everything = async () => {
      const response = await rt.get(`/api/v1/export?timestamp=${since}&limit=10000`, serverKey);
      const { data } = (await response.json()) as { data: ExportRecord[] };
      return new Set(data.map((e) => String(e.event_id)));
    };
    let added = 0;
    const arrive = async () => {
      await rt.streams.events.put(
        [T0 + 11, T0 + 2_000_000].map((at) =>
          lakeEvent({
            app_id: APP,
            event_id: `both-${added++}`,
            event_time: new Date(at).toISOString(),
          }),
        ),
      );
      await rt.flush();
    };
    const client = () => {
      const seen: string[] = [];
      let snapshot: string | null = null;
      let offset = 0;
      let done = false;
      return {
        seen,
        done: () => done,
        snapshot: () => snapshot,
        async next() {
          const query = `timestamp=${since}&limit=${limit}&offset=${offset}`;
          const pinned = snapshot === null ? "" : `&snapshot=${snapshot}`;
          const response = await rt.get(`/api/v1/export?${query}${pinned}`, serverKey);
          expect(response.status).toBe(200);
          const named = response.headers.get(SNAPSHOT_HEADER);
          if (snapshot === null) snapshot = named;
          expect(named).toBe(snapshot);
          const { data } = (await response.json()) as { data: ExportRecord[] };
          seen.push(...data.map((e) => `${e.event_time}|${e.event_id}`));
          offset += limit;
          done = data.length < limit;
        },
      };
    };
    await arrive();
    const before = await everything();
    const a = client();
    await a.next();
    await arrive();
    const between = await everything();
    const b = client();
    await b.next();
    // Taking turns, with new events between every page of either.
    while (!a.done() || !b.done()) {
      for (const c of [a, b]) {
        if (c.done()) continue;
        await c.next();
        await arrive();
      }
    }
    expect(a.snapshot()).not.toBe(b.snapshot());
    for (const [c, expected] of [
      [a, before],
      [b, between],
    ] as const) {
      const ids = c.seen.map((key) => key.split("|")[1] ?? "");
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(ids)).toEqual(expected);
      expect(c.seen).toEqual([...c.seen].sort());
      for (const id of ids) exported.add(id);
    }
    expect(exported.size).toBe(between.size);
  });

  it("answers a snapshot that is unknown or of another window with 422, saying what to do", async () => {
    const first = await rt.get(`/api/v1/export?timestamp=${since}&limit=1`, serverKey);
    const snapshot = first.headers.get(SNAPSHOT_HEADER) ?? "";
    expect(snapshot).toMatch(/^[0-9a-f-]{36}$/);
    for (const query of [
      `timestamp=${since}&snapshot=00000000-0000-4000-8000-000000000000`,
      `timestamp=${since + 1}&snapshot=${snapshot}`,
      `timestamp=${since}&snapshot=not-a-snapshot`,
    ]) {
      const response = await rt.get(`/api/v1/export?${query}&offset=1`, serverKey);
      expect(response.status, query).toBe(422);
      const body = (await response.json()) as { error: string; detail: string };
      expect(body.error).toBe("Unprocessable Entity");
      expect(body.detail, query).toMatch(
        /^snapshot: .*start the export again without it, at offset 0/,
      );
    }
  });
});

/** Paging through one export while new events keep arriving: no gap, no repeat. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

  it("shows the late events to a new export with another timestamp", async () => {
    const response = await rt.get(`/api/v1/export?timestamp=${since - 1}&limit=10000`, serverKey);
    const { data } = (await response.json()) as { data: ExportRecord[] };
    expect(data.some((e) => String(e.event_id).startsWith("late-"))).toBe(true);
    expect(data.length).toBeGreaterThan(initial.size);
  });
});

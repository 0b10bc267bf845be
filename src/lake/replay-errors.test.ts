import { describe, expect, it } from "vitest";
import { lakeEvent } from "../../test/support/records.ts";
import type { LakeErrorObjects, LakeRecord } from "../ports/lake.ts";
import { EVENTS_TABLE } from "./lake-tables.ts";
import { replayErrors } from "./replay-errors.ts";

const APP = "com.example.replay";

/** One line of Firehose's error output holding `records`, packed as the stream sends them. */
const errorLine = (records: readonly LakeRecord[]) =>
  JSON.stringify({
    errorCode: "DynamicPartitioning.ActivePartitionsLimitExceeded",
    rawData: Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join("")).toString("base64"),
  });

const memoryObjects = (texts: Record<string, string>) => {
  const objects: LakeErrorObjects & { texts: Record<string, string> } = {
    texts,
    async *list() {
      yield* Object.keys(texts).sort();
    },
    read: async (key) => texts[key] ?? "",
    replace: async (key, text) => {
      if (text === "") delete texts[key];
      else texts[key] = text;
    },
  };
  return objects;
};

describe("replaying the lake's error output", () => {
  it("leaves out the records of installs with a deletion request, looking each install up once", async () => {
    const event = (id: string, serviceId: string) =>
      lakeEvent({ app_id: APP, event_id: id, service_id: serviceId });
    const objects = memoryObjects({
      a: `${errorLine([event("d1", "deleted"), event("l1", "live")])}\n`,
      b: `${errorLine([event("d2", "deleted")])}\n${errorLine([event("l2", "live")])}\n`,
    });
    const looked: string[] = [];
    const put: LakeRecord[] = [];
    const result = await replayErrors({
      table: EVENTS_TABLE,
      objects,
      stream: { put: async (records) => void put.push(...records) },
      deletions: {
        listByInstall: async (appId, serviceId) => {
          looked.push(serviceId);
          return serviceId === "deleted"
            ? [
                {
                  requestId: "r1",
                  appId,
                  serviceId,
                  status: "completed",
                  requestedAt: "2026-11-01T10:00:00.000Z",
                  completedAt: "2026-11-01T10:20:00.000Z",
                },
              ]
            : [];
        },
      },
    });
    expect(result).toEqual({ objects: 2, records: 2, dropped: 2, kept: [] });
    expect(put.map((r) => r.event_id)).toEqual(["l1", "l2"]);
    expect(looked.sort()).toEqual(["deleted", "live"]);
    // The deleted install's records are gone from the error output too.
    expect(objects.texts).toEqual({});
  });

  it("puts an object's records back in calls of at most 500, in their order", async () => {
    const records = Array.from({ length: 1_201 }, (_, n) =>
      lakeEvent({ app_id: APP, event_id: `e${n}`, service_id: "live" }),
    );
    const objects = memoryObjects({
      a: `${errorLine(records.slice(0, 700))}\n${errorLine(records.slice(700))}\n`,
    });
    const calls: LakeRecord[][] = [];
    const result = await replayErrors({
      table: EVENTS_TABLE,
      objects,
      stream: { put: async (batch) => void calls.push([...batch]) },
      deletions: { listByInstall: async () => [] },
    });
    expect(result).toEqual({ objects: 1, records: 1_201, dropped: 0, kept: [] });
    expect(calls.map((batch) => batch.length)).toEqual([500, 500, 201]);
    expect(calls.flat().map((record) => record.event_id)).toEqual(records.map((r) => r.event_id));
  });
});

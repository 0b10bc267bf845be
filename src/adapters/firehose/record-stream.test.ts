import {
  FirehoseClient,
  PutRecordBatchCommand,
  type PutRecordBatchCommandInput,
} from "@aws-sdk/client-firehose";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { lakeEvent } from "../../../test/support/records.ts";
import {
  EVENTS_TABLE,
  type LakeRecord,
  lakeDay,
  PARTITION_DAY_KEY,
} from "../../lake/lake-tables.ts";
import { FIREHOSE_LIMITS, RecordTooLargeError } from "./packing.ts";
import { createFirehoseStream, FirehoseDeliveryError } from "./record-stream.ts";

const APP = "com.example.app";

/** The lake records inside a call's Firehose records, as Firehose would deaggregate them. */
const linesOf = (input: PutRecordBatchCommandInput | undefined): string[] =>
  (input?.Records ?? []).flatMap((r) =>
    Buffer.from(r.Data ?? new Uint8Array())
      .toString("utf8")
      .split("\n")
      .filter(Boolean),
  );

/** A record as the stream sends it: with the partition day its stream's partitioning reads. */
const asSent = (record: LakeRecord) => ({
  ...record,
  [PARTITION_DAY_KEY]: lakeDay(EVENTS_TABLE, record),
});

/** An event whose JSON line, as sent, is exactly `bytes` long. */
const eventOfSize = (bytes: number, id: string): LakeRecord => {
  const base = lakeEvent({ app_id: APP, event_id: id, customer_user_id: "" });
  const padding = bytes - Buffer.byteLength(`${JSON.stringify(asSent(base))}\n`);
  return { ...base, customer_user_id: "p".repeat(padding) };
};

describe("Firehose record stream", () => {
  const firehose = new FirehoseClient({ region: "eu-west-1" });
  const mock = mockClient(firehose);
  const stream = createFirehoseStream({
    firehose,
    streamName: "events",
    table: EVENTS_TABLE,
    maxAttempts: 3,
    baseDelayMs: 1,
  });
  const calls = () => mock.commandCalls(PutRecordBatchCommand).map((c) => c.args[0].input);

  beforeEach(() => {
    mock.reset();
  });

  it("packs many events into one Firehose record", async () => {
    mock.on(PutRecordBatchCommand).resolves({ FailedPutCount: 0, RequestResponses: [] });
    const events = Array.from({ length: 250 }, (_, i) =>
      lakeEvent({ app_id: APP, event_id: `e${i}` }),
    );

    await stream.put(events);

    const [call] = calls();
    expect(call?.DeliveryStreamName).toBe("events");
    expect(call?.Records).toHaveLength(1);
    expect(linesOf(call).map((l) => JSON.parse(l))).toEqual(events.map(asSent));
  });

  it("starts a new record at the record limit and a new call at 4 MiB", async () => {
    mock.on(PutRecordBatchCommand).resolves({ FailedPutCount: 0 });
    // Ten 102,400-byte lines fill a 1,024,000-byte record exactly; 45 lines make 5 records,
    // and only 4 such records fit in one 4 MiB call.
    const events = Array.from({ length: 45 }, (_, i) => eventOfSize(102_400, `e${i}`));

    await stream.put(events);

    const sent = calls();
    expect(sent.map((c) => c.Records?.map((r) => r.Data?.length))).toEqual([
      [1_024_000, 1_024_000, 1_024_000, 1_024_000],
      [512_000],
    ]);
    for (const call of sent) {
      const bytes = (call.Records ?? []).reduce((n, r) => n + (r.Data?.length ?? 0), 0);
      expect(bytes).toBeLessThanOrEqual(FIREHOSE_LIMITS.batchBytes);
    }
    expect(sent.flatMap(linesOf).map((l) => JSON.parse(l).event_id)).toEqual(
      events.map((e) => e.event_id),
    );
  });

  it("sends again only the records Firehose refused", async () => {
    const events = Array.from({ length: 30 }, (_, i) => eventOfSize(102_400, `e${i}`)); // 3 records
    mock
      .on(PutRecordBatchCommand)
      .resolvesOnce({
        FailedPutCount: 2,
        RequestResponses: [
          { ErrorCode: "ServiceUnavailableException", ErrorMessage: "Slow down." },
          { RecordId: "r2" },
          { ErrorCode: "InternalFailure", ErrorMessage: "Oops." },
        ],
      })
      .resolvesOnce({
        FailedPutCount: 1,
        RequestResponses: [{ RecordId: "r1" }, { ErrorCode: "InternalFailure" }],
      })
      .resolves({ FailedPutCount: 0, RequestResponses: [{ RecordId: "r3" }] });

    await stream.put(events);

    const sent = calls();
    expect(sent.map((c) => c.Records?.length)).toEqual([3, 2, 1]);
    const ids = (call: PutRecordBatchCommandInput | undefined) =>
      linesOf(call).map((l) => JSON.parse(l).event_id);
    expect(ids(sent[1])).toEqual([...ids(sent[0]).slice(0, 10), ...ids(sent[0]).slice(20)]);
    expect(ids(sent[2])).toEqual(ids(sent[0]).slice(20));
  });

  it("rejects, saying how many records failed, when the last attempt still fails", async () => {
    mock.on(PutRecordBatchCommand).resolves({
      FailedPutCount: 1,
      RequestResponses: [
        { RecordId: "r1" },
        { ErrorCode: "ServiceUnavailableException", ErrorMessage: "Slow down." },
      ],
    });
    const events = Array.from({ length: 15 }, (_, i) => eventOfSize(102_400, `e${i}`)); // 10 + 5

    const failure = stream.put(events);

    await expect(failure).rejects.toThrow(FirehoseDeliveryError);
    await expect(failure).rejects.toThrow(
      "Firehose events refused 1 of 2 records (5 lake records) after 3 attempts: ServiceUnavailableException Slow down.",
    );
    // First call with both records; every retry with the refused one only.
    expect(calls().map((c) => c.Records?.length)).toEqual([2, 1, 1]);
  });

  it("sends everything again when Firehose does not say which records failed", async () => {
    mock
      .on(PutRecordBatchCommand)
      .resolvesOnce({ FailedPutCount: 1 })
      .resolves({ FailedPutCount: 0 });
    await stream.put(Array.from({ length: 15 }, (_, i) => eventOfSize(102_400, `e${i}`)));
    expect(calls().map((c) => c.Records?.length)).toEqual([2, 2]);
  });

  it("sends everything again when Firehose counts failures but names none", async () => {
    mock
      .on(PutRecordBatchCommand)
      .resolvesOnce({ FailedPutCount: 1, RequestResponses: [{ RecordId: "a" }, { RecordId: "b" }] })
      .resolves({ FailedPutCount: 0 });
    await stream.put(Array.from({ length: 15 }, (_, i) => eventOfSize(102_400, `e${i}`)));
    expect(calls().map((c) => c.Records?.length)).toEqual([2, 2]);
  });

  it("makes four attempts unless told otherwise", async () => {
    mock.on(PutRecordBatchCommand).resolves({ FailedPutCount: 1 });
    const fourTimes = createFirehoseStream({
      firehose,
      streamName: "events",
      table: EVENTS_TABLE,
      baseDelayMs: 1,
    });
    await expect(fourTimes.put([lakeEvent({ app_id: APP })])).rejects.toThrow("after 4 attempts");
    expect(calls()).toHaveLength(4);
  });

  it("rejects an oversized event up front, sending nothing", async () => {
    mock.on(PutRecordBatchCommand).resolves({ FailedPutCount: 0 });
    const events = [
      lakeEvent({ app_id: APP }),
      eventOfSize(FIREHOSE_LIMITS.recordBytes + 1, "big"),
    ];

    await expect(stream.put(events)).rejects.toThrow(RecordTooLargeError);
    expect(calls()).toEqual([]);
  });

  it("refuses a put holding a record that does not fit the table, sending nothing", async () => {
    mock.on(PutRecordBatchCommand).resolves({ FailedPutCount: 0 });
    await expect(
      stream.put([lakeEvent({ app_id: APP }), lakeEvent({ app_id: APP, revenue: "4.99" })]),
    ).rejects.toThrow(/revenue: expected double/);
    await expect(stream.put([lakeEvent({ app_id: "../etc" })])).rejects.toThrow(/app_id/);
    expect(calls()).toEqual([]);
  });

  it("accepts an event of exactly the record limit, and an empty put without a call", async () => {
    mock.on(PutRecordBatchCommand).resolves({ FailedPutCount: 0 });
    await stream.put([]);
    await stream.put([eventOfSize(FIREHOSE_LIMITS.recordBytes, "max")]);
    expect(calls().map((c) => c.Records?.length)).toEqual([1]);
  });

  it("rejects a maxAttempts below 1", () => {
    expect(() =>
      createFirehoseStream({
        firehose,
        streamName: "events",
        table: EVENTS_TABLE,
        maxAttempts: 0,
      }),
    ).toThrow(RangeError);
  });
});

import type { BatchWriteCommand, DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { deleteAll, epochSeconds, writeAll } from "./expiry.ts";

type Requests = NonNullable<BatchWriteCommand["input"]["RequestItems"]>;

/** A client that answers each batch with `unprocessed(batch)`, recording every batch sent. */
const recording = (
  unprocessed: (batch: Requests[string], call: number) => Requests[string] = () => [],
) => {
  const batches: Requests[string][] = [];
  const doc = {
    send: async (command: BatchWriteCommand) => {
      const batch = command.input.RequestItems?.t ?? [];
      batches.push(batch);
      const left = unprocessed(batch, batches.length);
      return { UnprocessedItems: left.length > 0 ? { t: left } : {} };
    },
  } as unknown as DynamoDBDocumentClient;
  return { doc, batches };
};

const keys = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `k${i}` }));

describe("batched writes of expiring items", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends them 25 at a time, every one", async () => {
    const { doc, batches } = recording();
    await deleteAll(doc, "t", keys(60));
    expect(batches.map((batch) => batch.length)).toEqual([25, 25, 10]);
    expect(batches.flat().map((request) => request.DeleteRequest?.Key?.id)).toEqual(
      keys(60).map((key) => key.id),
    );
  });

  it("sends again what DynamoDB left unprocessed, until it takes it", async () => {
    const { doc, batches } = recording((batch, call) => (call === 1 ? batch.slice(20) : []));
    await deleteAll(doc, "t", keys(25));
    expect(batches.map((batch) => batch.length)).toEqual([25, 5]);
    expect(batches[1]?.map((request) => request.DeleteRequest?.Key?.id)).toEqual(
      keys(25)
        .slice(20)
        .map((key) => key.id),
    );
  });

  it("gives up, saying so, when DynamoDB keeps refusing", async () => {
    vi.useFakeTimers();
    const { doc, batches } = recording((batch) => batch);
    const failed = writeAll(doc, "t", [{ DeleteRequest: { Key: { id: "k" } } }]).catch(
      (error: unknown) => error,
    );
    await vi.runAllTimersAsync();
    expect(await failed).toMatchObject({ message: "DynamoDB kept refusing writes on t" });
    expect(batches).toHaveLength(9);
  });

  it("names a time in whole seconds, as DynamoDB's TTL reads it", () => {
    expect(epochSeconds(1_999)).toBe(1);
    expect(epochSeconds(Date.parse("2026-12-01T00:00:00.000Z"))).toBe(1_796_083_200);
  });
});

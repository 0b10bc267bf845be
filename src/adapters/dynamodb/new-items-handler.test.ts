import { marshall } from "@aws-sdk/util-dynamodb";
import type { Context, DynamoDBRecord } from "aws-lambda";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { logger } from "../../logging/logger.ts";
import { createNewItemsHandler, SKIPPED_ITEM_MESSAGE } from "./new-items-handler.ts";

const record = (id: string, platform = "android"): DynamoDBRecord => ({
  eventID: `event-${id}`,
  eventName: "INSERT",
  dynamodb: {
    SequenceNumber: `seq-${id}`,
    Keys: marshall({ pk: `touch#${id}` }) as never,
    NewImage: marshall({ pk: `touch#${id}`, id, platform }) as never,
  },
});

const item = z.object({ id: z.string(), platform: z.enum(["android", "ios"]) });
const itemOf = (raw: Record<string, unknown>) => item.parse(raw);
type Item = z.infer<typeof item>;

const run = (handler: ReturnType<typeof createNewItemsHandler<Item>>, records: DynamoDBRecord[]) =>
  handler({ Records: records }, {} as Context);

afterEach(() => vi.restoreAllMocks());

describe("a table-stream worker's handler on AWS", () => {
  it("skips an item its table's reader refuses, naming its keys, and hands over the rest", async () => {
    const errors = vi.spyOn(logger, "error").mockImplementation(() => {});
    const handled: string[][] = [];
    const handler = createNewItemsHandler(itemOf, async (items) => {
      handled.push(items.map((each) => each.id));
    });
    await run(handler, [record("a"), record("b", "harmonyos"), record("c")]);
    expect(handled).toEqual([["a", "c"]]);
    expect(errors).toHaveBeenCalledWith(
      SKIPPED_ITEM_MESSAGE,
      expect.objectContaining({ sequenceNumber: "seq-b", keys: { pk: "touch#b" } }),
    );
  });

  it("skips an item the handler refuses with a record error, and hands over every other", async () => {
    const errors = vi.spyOn(logger, "error").mockImplementation(() => {});
    const written: string[] = [];
    // As a lake stream does: every record checked before any is taken.
    const handler = createNewItemsHandler(itemOf, async (items) => {
      if (items.some((each) => each.id === "b"))
        throw new TypeError("touches.cost: expected double");
      written.push(...items.map((each) => each.id));
    });
    await run(handler, [record("a"), record("b"), record("c")]);
    expect(written).toEqual(["a", "c"]);
    expect(errors).toHaveBeenCalledTimes(1);
    expect(errors).toHaveBeenCalledWith(
      SKIPPED_ITEM_MESSAGE,
      expect.objectContaining({ eventId: "event-b" }),
    );
  });

  it("fails the batch on any other error, to be tried again", async () => {
    const errors = vi.spyOn(logger, "error").mockImplementation(() => {});
    const handle = vi.fn(async () => {
      throw new Error("Firehose refused 3 of 3 records after 4 attempts");
    });
    await expect(
      run(createNewItemsHandler(itemOf, handle), [record("a"), record("b")]),
    ).rejects.toThrow(/Firehose/);
    expect(handle).toHaveBeenCalledTimes(1);
    expect(errors).not.toHaveBeenCalled();
  });

  it("takes a zod error of the handler's for a record error too", async () => {
    vi.spyOn(logger, "error").mockImplementation(() => {});
    const written: string[] = [];
    const handler = createNewItemsHandler(itemOf, async (items) => {
      for (const each of items) z.literal("a").parse(each.id);
      written.push(...items.map((each) => each.id));
    });
    await run(handler, [record("a"), record("b")]);
    expect(written).toEqual(["a"]);
  });

  it("hands over new items only: a change or a removal is no new item", async () => {
    const handled: string[] = [];
    const handler = createNewItemsHandler(itemOf, async (items) => {
      handled.push(...items.map((each) => each.id));
    });
    await run(handler, [
      { ...record("a"), eventName: "MODIFY" },
      { ...record("b"), eventName: "REMOVE" },
      record("c"),
    ]);
    expect(handled).toEqual(["c"]);
  });

  it("fails the batch when an item handled alone fails otherwise, or no item was there to blame", async () => {
    vi.spyOn(logger, "error").mockImplementation(() => {});
    let calls = 0;
    const flaky = createNewItemsHandler(itemOf, async () => {
      calls += 1;
      if (calls === 1) throw new TypeError("touches.cost: expected double");
      throw new Error("Firehose is down");
    });
    await expect(run(flaky, [record("a"), record("b")])).rejects.toThrow("Firehose is down");

    const broken = createNewItemsHandler(itemOf, async () => {
      throw new TypeError("cannot read properties of undefined");
    });
    await expect(run(broken, [record("x", "harmonyos")])).rejects.toThrow(TypeError);
  });
});

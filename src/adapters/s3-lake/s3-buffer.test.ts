import { Readable } from "node:stream";
import { GetObjectCommand, HeadObjectCommand } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { headObject, memoryAsyncBuffer, readRange, s3AsyncBuffer } from "./s3-buffer.ts";
import { createVersionedS3 } from "./versioned-s3.test-support.ts";

const text = (bytes: ArrayBuffer) => Buffer.from(bytes).toString("utf8");

describe("an S3 object version as an AsyncBuffer", () => {
  it("reads exactly the bytes asked for, of the version it was opened at", async () => {
    const s3 = createVersionedS3({ versioned: ["lake"] });
    s3.put("lake", "f.parquet", "0123456789");
    const object = await headObject(s3.client, "lake", "f.parquet");
    expect(object).toMatchObject({ bucket: "lake", key: "f.parquet", size: 10 });
    expect(object.versionId).toBeDefined();
    // A newer version does not change what this one reads.
    s3.put("lake", "f.parquet", "abcdefghijklmnop");
    const file = s3AsyncBuffer(s3.client, object);
    expect(file.byteLength).toBe(10);
    expect(text(await file.slice(2, 5))).toBe("234");
    expect(text(await file.slice(7))).toBe("789");
    expect(text(await file.slice(0))).toBe("0123456789");
    // The whole object is one GET without a range.
    expect(s3.served.map((served) => served.range)).toEqual(["bytes=2-4", "bytes=7-9", undefined]);
    // The version named is the one HeadObject gives.
    expect(await headObject(s3.client, "lake", "f.parquet", object.versionId)).toEqual(object);
  });

  it("reads no other object in a bucket without versions: the ETag must match", async () => {
    const s3 = createVersionedS3({ versioned: [] });
    s3.put("lake", "f.parquet", "0123456789");
    const object = await headObject(s3.client, "lake", "f.parquet");
    expect(object.versionId).toBeUndefined();
    s3.put("lake", "f.parquet", "abcdefghij");
    await expect(readRange(s3.client, object, 0, 4)).rejects.toThrow(/pre-conditions/);
  });

  it("refuses a range outside the object, or an empty one, without asking S3", async () => {
    const s3 = createVersionedS3({ versioned: ["lake"] });
    s3.put("lake", "f.parquet", "0123456789");
    const object = await headObject(s3.client, "lake", "f.parquet");
    for (const [start, end] of [
      [-1, 4],
      [0, 11],
      [5, 4],
    ] as const) {
      await expect(readRange(s3.client, object, start, end)).rejects.toThrow(
        `s3://lake/f.parquet: bytes ${start}-${end} outside 0-10`,
      );
    }
    expect((await readRange(s3.client, object, 4, 4)).byteLength).toBe(0);
    expect(s3.served).toEqual([]);
  });

  it("refuses a short read, a body that is no stream, and a head without size or ETag", async () => {
    const s3 = createVersionedS3({ versioned: ["lake"] });
    s3.put("lake", "f.parquet", "0123456789");
    const object = await headObject(s3.client, "lake", "f.parquet");
    // A body the SDK would type as its own stream: a plain Readable is what matters here.
    const short = Readable.from([Buffer.from("01")]) as never;
    s3.mock.on(GetObjectCommand).resolves({ Body: short });
    await expect(readRange(s3.client, object, 0, 4)).rejects.toThrow(
      "s3://lake/f.parquet: asked for 4 bytes, got 2",
    );
    s3.mock.on(GetObjectCommand).resolves({ Body: undefined });
    await expect(readRange(s3.client, object, 0, 4)).rejects.toThrow(
      "s3://lake/f.parquet did not return a Node stream",
    );
    for (const head of [{ ETag: '"e"' }, { ContentLength: 10 }]) {
      s3.mock.on(HeadObjectCommand).resolves(head);
      await expect(headObject(s3.client, "lake", "f.parquet")).rejects.toThrow(
        "s3://lake/f.parquet: HeadObject gave no size or ETag",
      );
    }
  });

  it("reads bytes in memory the same way", async () => {
    const file = memoryAsyncBuffer(new TextEncoder().encode("0123456789").buffer as ArrayBuffer);
    expect(file.byteLength).toBe(10);
    expect(text(await file.slice(2, 5))).toBe("234");
    expect(text(await file.slice(7))).toBe("789");
  });
});

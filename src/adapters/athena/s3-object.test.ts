import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { createFakeS3 } from "./fake-s3.test-support.ts";
import { openObject, parseS3Uri, putJson, readText } from "./s3-object.ts";

describe("S3 objects for the Athena engine", () => {
  it("reads an s3:// URI as bucket and key, and refuses anything else", () => {
    expect(parseS3Uri("s3://results/exports/q1.csv")).toEqual({
      bucket: "results",
      key: "exports/q1.csv",
    });
    for (const uri of [
      "https://results/q1.csv",
      "see s3://results/q1.csv",
      "s3://results/",
      "s3://results",
      "s3:///q1.csv",
    ]) {
      expect(() => parseS3Uri(uri), uri).toThrow(/Not an S3 object URI/);
    }
  });

  it("opens an object whole, with its size and ETag, or from a byte without its size", async () => {
    const s3 = createFakeS3();
    s3.put("results", "q1.csv", "héllo world");
    const whole = await openObject(s3.client, { bucket: "results", key: "q1.csv" });
    expect(await readText(whole.body)).toBe("héllo world");
    expect(whole.size).toBe(12);
    expect(whole.etag).toMatch(/^"[0-9a-f]{32}"$/);

    const tail = await openObject(s3.client, { bucket: "results", key: "q1.csv" }, 7);
    expect(await readText(tail.body)).toBe("world");
    expect(tail.size).toBeUndefined();
    expect(tail.etag).toBe(whole.etag);
    expect(s3.served.map((served) => served.range)).toEqual([undefined, "bytes=7-"]);
  });

  it("refuses a body that is no Node stream: the wrong runtime", async () => {
    const s3 = createFakeS3();
    s3.mock.on(GetObjectCommand).resolves({ Body: undefined, ETag: '"e"' });
    await expect(openObject(s3.client, { bucket: "results", key: "q1.csv" })).rejects.toThrow(
      "s3://results/q1.csv did not return a Node stream",
    );
  });

  it("writes JSON as JSON", async () => {
    const s3 = createFakeS3();
    await putJson(s3.client, { bucket: "results", key: "q1.csv.pages.json" }, '{"version":1}');
    expect(s3.text("results", "q1.csv.pages.json")).toBe('{"version":1}');
    const [put] = s3.mock.commandCalls(PutObjectCommand);
    expect(put?.args[0].input).toMatchObject({
      Bucket: "results",
      Key: "q1.csv.pages.json",
      ContentType: "application/json",
    });
  });
});

import { randomBytes } from "node:crypto";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PageBody } from "./page-body.ts";

describe("a page's body from its file", () => {
  let dir: string;
  let path: string;
  // More than a few of the buffers it reads into, and not a whole number of them.
  const bytes = randomBytes(3 * 256 * 1024 + 12_345);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "page-body-"));
    path = join(dir, "page.csv");
    await writeFile(path, bytes);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const collected = () => {
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        // A copy: the body reuses its buffer once this is called back.
        chunks.push(Buffer.from(chunk));
        setImmediate(done);
      },
    });
    return { sink, bytes: () => Buffer.concat(chunks) };
  };

  it("sends itself whole, twice in a row through the buffers it reuses, and closes its file", async () => {
    for (let round = 0; round < 2; round++) {
      const file = await open(path);
      const { sink, bytes: sent } = collected();
      await new PageBody(file).sendTo(sink);
      expect(sent().equals(bytes)).toBe(true);
      expect(sink.writableFinished).toBe(true);
      expect(file.fd).toBe(-1);
    }
  });

  it("reads as any stream, for a consumer that frames it", async () => {
    const body = new PageBody(await open(path));
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it("reads into its reader's buffers, and closes its file at the end", async () => {
    const file = await open(path);
    const body = new PageBody(file);
    const buffer = Buffer.alloc(100_000);
    const parts: Buffer[] = [];
    for (let read = await body.readInto(buffer, 7, 99_000); read > 0; ) {
      parts.push(Buffer.from(buffer.subarray(7, 7 + read)));
      read = await body.readInto(buffer, 7, 99_000);
    }
    expect(Buffer.concat(parts).equals(bytes)).toBe(true);
    await expect.poll(() => file.fd).toBe(-1);
  });

  it("fails at once, and closes its file, for a destination already gone", async () => {
    const file = await open(path);
    const destination = new PassThrough();
    destination.destroy();
    await expect(new PageBody(file).sendTo(destination)).rejects.toThrow(/closed/);
    await expect.poll(() => file.fd).toBe(-1);
  });

  it("fails, and closes its file, when the destination goes away halfway", async () => {
    const file = await open(path);
    const destination = new PassThrough({ highWaterMark: 1 });
    // Nobody reads it: its first write is never called back, and then it is destroyed.
    setTimeout(() => destination.destroy(), 20);
    await expect(new PageBody(file).sendTo(destination)).rejects.toThrow();
    await expect.poll(() => file.fd).toBe(-1);
  });

  // A folder opens, and fails its first read.
  it("read as a stream, fails with its file's error, and closes it", async () => {
    const file = await open(dir);
    const reading = (async () => {
      for await (const _chunk of new PageBody(file));
    })();
    await expect(reading).rejects.toMatchObject({ code: "EISDIR" });
    await expect.poll(() => file.fd).toBe(-1);
  });

  it("read into its reader's buffers, fails with its file's error, and closes it", async () => {
    const file = await open(dir);
    await expect(new PageBody(file).readInto(Buffer.alloc(16), 0, 16)).rejects.toMatchObject({
      code: "EISDIR",
    });
    await expect.poll(() => file.fd).toBe(-1);
  });
});

import { spawn } from "node:child_process";
import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { openFileQueue } from "./file-queue.ts";

const job = z.object({ n: z.number() });

describe("the folder queue", () => {
  let dir: string;
  let clock: number;
  const open = (maxAttempts = 3, compactAfterLines?: number) =>
    openFileQueue({
      dir,
      parse: (body) => job.parse(body),
      maxAttempts,
      now: () => clock,
      compactAfterLines,
    });
  const journalLines = async () =>
    (await readFile(join(dir, "journal"), "utf8")).split("\n").filter(Boolean).length;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "file-queue-"));
    clock = Date.parse("2026-11-24T00:00:00Z");
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("hands out what was sent, oldest first, once, until it is acknowledged", async () => {
    const queue = await open();
    await queue.send([{ n: 1 }, { n: 2 }]);
    await queue.send([{ n: 3 }]);
    const first = await queue.take(2);
    expect(first.map((m) => [m.body.n, m.attempt])).toEqual([
      [1, 1],
      [2, 1],
    ]);
    const rest = await queue.take(10);
    expect(rest.map((m) => m.body.n)).toEqual([3]);
    expect(await queue.take(10)).toEqual([]);
    for (const message of [...first, ...rest]) await queue.ack(message.id);
    expect(queue.depth()).toEqual({ ready: 0, taken: 0 });
    await queue.close();
    // Nothing comes back after a reopen, whose journal is written anew empty.
    const reopened = await open();
    expect(await reopened.take(10)).toEqual([]);
    expect(await journalLines()).toBe(0);
  });

  it("keeps every message of sends made together, each resolved once it is on the disk", async () => {
    const queue = await open();
    await Promise.all(Array.from({ length: 50 }, (_, n) => queue.send([{ n }])));
    await queue.close();
    const reopened = await open();
    expect((await reopened.take(100)).map((m) => m.body.n).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, n) => n),
    );
  });

  it("writes its journal anew once it is long, losing nothing it holds", async () => {
    const queue = await open(3, 20);
    await queue.send(Array.from({ length: 30 }, (_, n) => ({ n })));
    const taken = await queue.take(27);
    for (const message of taken.slice(0, 25)) await queue.ack(message.id);
    await queue.fail(taken[25]?.id ?? "", new Error("later"), 0);
    // 30 sent, 27 handed out, 25 done, one put back: 83 lines written, far fewer kept.
    expect(await journalLines()).toBeLessThan(30);
    await queue.close();
    const reopened = await open(3, 20);
    const again = await reopened.take(10);
    expect(again.map((m) => [m.body.n, m.attempt])).toEqual([
      [27, 1],
      [28, 1],
      [29, 1],
      [25, 2],
      [26, 2],
    ]);
  });

  it("keeps a message it hands out or puts back when that line is the one that rewrites the journal", async () => {
    // Long enough after one line to be written anew: the taking's line rewrites it.
    const taking = await open(3, 1);
    await taking.send([{ n: 1 }]);
    expect(await taking.take(1)).toHaveLength(1);
    // Reopened as after a kill -9 (not closed): what was handed out comes again.
    expect((await (await open(3, 1)).take(1)).map((m) => [m.body.n, m.attempt])).toEqual([[1, 2]]);

    await rm(dir, { recursive: true, force: true });
    // Two lines: the putting back's line rewrites it.
    const failing = await open(3, 2);
    await failing.send([{ n: 2 }]);
    const [taken] = await failing.take(1);
    expect(await failing.fail(taken?.id ?? "", new Error("down"), 60)).toBe("retried");
    clock += 60_000;
    expect((await (await open(3, 2)).take(1)).map((m) => [m.body.n, m.attempt])).toEqual([[2, 2]]);
  });

  it("keeps what a send holds when its lines are the ones that rewrite the journal", async () => {
    const queue = await open(3, 20);
    // Five lines a message, none held after: twenty lines, at the bound and not past it.
    for (let n = 0; n < 4; n++) {
      await queue.send([{ n }]);
      const [first] = await queue.take(1);
      await queue.fail(first?.id ?? "", new Error("again"), 0);
      const [second] = await queue.take(1);
      await queue.ack(second?.id ?? "");
    }
    expect(await journalLines()).toBe(20);
    await queue.send([{ n: 99 }]);
    expect(await journalLines()).toBe(1);
    // Reopened as after a kill -9 (not closed).
    expect((await (await open(3, 20)).take(10)).map((m) => m.body.n)).toEqual([99]);
  });

  it("writes its journal anew only once it is past its bound and holds few of its lines", async () => {
    const queue = await open(3, 20);
    await queue.send([{ n: 0 }]);
    await queue.ack((await queue.take(1))[0]?.id ?? "");
    // Short: kept as it is, although it holds nothing.
    expect(await journalLines()).toBe(3);

    // One message waits for an hour while others come and go: the journal is written anew as
    // soon as its lines pass the bound, counting those the last rewrite wrote.
    await queue.send([{ n: -1 }], { delaySeconds: 3600 });
    let longest = 0;
    for (let n = 1; n <= 20; n++) {
      await queue.send([{ n }]);
      longest = Math.max(longest, await journalLines());
      const [message] = await queue.take(1);
      longest = Math.max(longest, await journalLines());
      await queue.ack(message?.id ?? "");
      longest = Math.max(longest, await journalLines());
    }
    expect(longest).toBe(20);

    // Holding many: not written anew at each change, each rewrite as long as what it replaces.
    await rm(dir, { recursive: true, force: true });
    const busy = await open(3, 20);
    await busy.send(Array.from({ length: 30 }, (_, n) => ({ n })));
    const taken = await busy.take(30);
    await busy.ack(taken[0]?.id ?? "");
    expect(await journalLines()).toBe(61);
  });

  it("keeps a message being buried in a journal written anew meanwhile", async () => {
    const queue = await open(3, 1);
    await queue.send([{ n: 0 }]);
    // A body that no longer parses: buried when it is taken.
    await queue.send([{ n: "x" } as unknown as { n: number }]);
    const [good] = await queue.take(1);
    // The burial cannot finish (its folder is gone), as when the process is killed during it.
    await rm(join(dir, "dead"), { recursive: true });
    const taking = queue.take(1).then(
      () => "buried",
      (error: unknown) => error,
    );
    // Meanwhile an acknowledgement's line writes the journal anew.
    await queue.ack(good?.id ?? "");
    expect(await journalLines()).toBe(1);
    expect(await taking).toMatchObject({ code: "ENOENT" });
    const reopened = await open(3, 1);
    expect(await reopened.take(1)).toEqual([]);
    expect((await reopened.dead()).map((m) => m.body)).toEqual([{ n: "x" }]);
  });

  it("puts a failed message back behind those sent after it, across a reopen too", async () => {
    const queue = await open();
    await queue.send([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const [first] = await queue.take(1);
    await queue.fail(first?.id ?? "", new Error("down"), 0);
    await queue.close();
    const reopened = await open();
    expect((await reopened.take(10)).map((m) => [m.body.n, m.attempt])).toEqual([
      [2, 1],
      [3, 1],
      [1, 2],
    ]);
  });

  it("keeps a failed message's delay and its error across a reopen, burying it there once its attempts are spent", async () => {
    const queue = await open(3);
    await queue.send([{ n: 1 }]);
    const [first] = await queue.take(1);
    expect(await queue.fail(first?.id ?? "", new Error("store down"), 60)).toBe("retried");
    await queue.close();
    // Reopened by a release that allows a single attempt.
    const reopened = await open(1);
    expect(await reopened.take(1)).toEqual([]);
    expect(await reopened.dead()).toEqual([]);
    clock += 60_000;
    expect(await reopened.take(1)).toEqual([]);
    expect((await reopened.dead()).map((m) => [m.body, m.attempt, m.lastError])).toEqual([
      [{ n: 1 }, 1, "store down"],
    ]);
  });

  it("leaves a message put back where it is when an acknowledgement of it comes late", async () => {
    const queue = await open();
    await queue.send([{ n: 1 }]);
    const [message] = await queue.take(1);
    await queue.fail(message?.id ?? "", new Error("timed out"), 0);
    const lines = await journalLines();
    await queue.ack(message?.id ?? "");
    expect(await journalLines()).toBe(lines);
    expect((await (await open()).take(1)).map((m) => [m.body.n, m.attempt])).toEqual([[1, 2]]);
  });

  it("tells its listeners of each send and each settling, and counts its backlog as the messages due and taken", async () => {
    const queue = await open();
    let sends = 0;
    let settles = 0;
    queue.onSend(() => sends++);
    queue.onSettle(() => settles++);
    await queue.send([]);
    await queue.send([{ n: 1 }, { n: 2 }]);
    await queue.send([{ n: 3 }], { delaySeconds: 60 });
    expect([sends, queue.backlog()]).toEqual([2, 2]);
    const [first] = await queue.take(1);
    expect(queue.backlog()).toBe(2);
    await queue.ack(first?.id ?? "");
    await queue.ack(first?.id ?? "");
    expect([settles, queue.backlog()]).toEqual([1, 1]);
    const [second] = await queue.take(1);
    await queue.fail(second?.id ?? "", new Error("down"), 30);
    expect([settles, queue.backlog()]).toEqual([2, 0]);
    clock += 60_000;
    expect(queue.backlog()).toBe(2);
  });

  it("lets the sends under way finish before it closes", async () => {
    const queue = await open();
    const sending = queue.send([{ n: 1 }]);
    await queue.close();
    await expect(sending).resolves.toBeUndefined();
    expect((await (await open()).take(1)).map((m) => m.body.n)).toEqual([1]);
  });

  it("keeps a delayed message back until its time", async () => {
    const queue = await open();
    await queue.send([{ n: 1 }], { delaySeconds: 30 });
    expect(await queue.take(1)).toEqual([]);
    expect(queue.nextVisibleIn()).toBe(30_000);
    clock += 30_000;
    expect((await queue.take(1)).map((m) => m.body.n)).toEqual([1]);
  });

  it("says when the soonest of its waiting messages is due, whatever order they came in", async () => {
    const queue = await open();
    expect(queue.nextVisibleIn()).toBeUndefined();
    await queue.send([{ n: 1 }], { delaySeconds: 60 });
    await queue.send([{ n: 2 }], { delaySeconds: 30 });
    await queue.send([{ n: 3 }], { delaySeconds: 45 });
    expect(queue.nextVisibleIn()).toBe(30_000);
    clock += 40_000;
    expect(queue.nextVisibleIn()).toBe(0);
    expect((await queue.take(10)).map((m) => m.body.n)).toEqual([2]);
    expect(queue.nextVisibleIn()).toBe(5_000);
  });

  it("tries a failed message again after the delay, then buries it after its last attempt", async () => {
    const queue = await open(2);
    await queue.send([{ n: 7 }]);
    const [first] = await queue.take(1);
    expect(await queue.fail(first?.id ?? "", new Error("store down"), 5)).toBe("retried");
    expect(await queue.take(1)).toEqual([]);
    clock += 4_999;
    expect(await queue.take(1)).toEqual([]);
    expect(queue.nextVisibleIn()).toBe(1);
    clock += 1;
    const [second] = await queue.take(1);
    expect(second?.attempt).toBe(2);
    expect(await queue.fail(second?.id ?? "", new Error("still down"), 5)).toBe("dead");
    clock += 60_000;
    expect(await queue.take(1)).toEqual([]);
    expect(await queue.dead()).toEqual([
      { id: first?.id, body: { n: 7 }, attempt: 2, lastError: "still down" },
    ]);
    // Buried for good: a reopened queue neither hands it out nor lists it twice.
    await queue.close();
    const reopened = await open(2);
    expect(await reopened.take(1)).toEqual([]);
    expect(reopened.depth()).toEqual({ ready: 0, taken: 0 });
    expect((await reopened.dead()).map((m) => [m.id, m.lastError])).toEqual([
      [first?.id, "still down"],
    ]);
  });

  it("changes nothing when a message no longer taken is failed", async () => {
    const queue = await open();
    await queue.send([{ n: 1 }]);
    const [message] = await queue.take(1);
    await queue.ack(message?.id ?? "");
    // Late, after an acknowledgement of the same message (or of a delivery before a restart).
    expect(await queue.fail(message?.id ?? "", new Error("late"), 0)).toBe("retried");
    expect(await queue.take(1)).toEqual([]);
    expect(await queue.dead()).toEqual([]);
  });

  it("lists its dead messages oldest first, passing by a file damaged in the folder", async () => {
    const queue = await open(1);
    for (let n = 0; n < 12; n++) await queue.send([{ n }]);
    const taken = await queue.take(12);
    // They die in an order of their own, neither the sending's nor its reverse.
    for (const n of [5, 11, 0, 7, 2, 9, 4, 1, 10, 3, 8, 6]) {
      const message = taken[n];
      expect(await queue.fail(message?.id ?? "", new Error(`error ${n}`), 0)).toBe("dead");
    }
    await writeFile(join(dir, "dead", "000-damaged.json"), "{ not json");
    expect((await queue.dead()).map((m) => [m.body, m.lastError])).toEqual(
      Array.from({ length: 12 }, (_, n) => [{ n }, `error ${n}`]),
    );
  });

  it("refuses a send once closed, holding nothing of it", async () => {
    const queue = await open();
    await queue.close();
    await expect(queue.send([{ n: 1 }])).rejects.toThrow(/closed/);
    expect(queue.depth()).toEqual({ ready: 0, taken: 0 });
    expect(await (await open()).take(1)).toEqual([]);
  });

  it("survives a reopen: waiting messages stay, taken ones come back as one more attempt", async () => {
    const before = await open();
    await before.send([{ n: 1 }, { n: 2 }]);
    const [taken] = await before.take(1);
    expect(taken?.body.n).toBe(1);

    const after = await open();
    const again = await after.take(10);
    expect(again.map((m) => [m.body.n, m.attempt])).toEqual([
      [2, 1],
      [1, 2],
    ]);
  });

  it("buries a message whose deliveries all died with their process", async () => {
    const first = await open(1);
    await first.send([{ n: 1 }]);
    await first.take(1);
    const second = await open(1);
    expect(await second.take(1)).toEqual([]);
    expect((await second.dead()).map((m) => [m.body, m.lastError])).toEqual([
      [{ n: 1 }, "the process handling it stopped before it was done"],
    ]);
  });

  it("buries a body that no longer parses instead of handing it out", async () => {
    const queue = await open();
    await queue.send([{ n: 1 }]);
    await queue.close();
    const id = "by-hand";
    await appendFile(
      join(dir, "journal"),
      `${JSON.stringify({ s: { id, body: { n: "x" }, attempt: 0, sentAt: "", visibleAt: 0 } })}\n`,
    );
    const reopened = await open();
    expect((await reopened.take(1)).map((m) => m.body)).toEqual([{ n: 1 }]);
    expect(await reopened.take(1)).toEqual([]);
    expect((await reopened.dead()).map((m) => [m.id, m.lastError])).toEqual([
      [id, expect.stringMatching(/expected number/)],
    ]);
  });

  it("passes by a damaged line alone, and the lines that name its message, reading the rest", async () => {
    const queue = await open();
    await queue.send([{ n: 1 }]);
    await queue.close();
    const id = "damaged";
    await appendFile(
      join(dir, "journal"),
      `{"s":{"id":"${id}","body":{"n":2},"att\n${JSON.stringify({ t: id })}\n${JSON.stringify({ k: "unknown" })}\n${JSON.stringify({ s: { id: "after", body: { n: 3 }, attempt: 0, sentAt: "", visibleAt: 0 } })}\n`,
    );
    const reopened = await open();
    // The damaged line alone is lost: the lines after it are read.
    expect((await reopened.take(10)).map((m) => [m.body.n, m.attempt])).toEqual([
      [1, 1],
      [3, 1],
    ]);
    expect(reopened.depth()).toEqual({ ready: 0, taken: 2 });
    expect(await reopened.dead()).toEqual([]);
  });

  it("redelivers what a process killed with SIGKILL had taken and not acknowledged", async () => {
    const script = join(dir, "taker.mts");
    const module = fileURLToPath(new URL("./file-queue.ts", import.meta.url));
    await writeFile(
      script,
      `import { openFileQueue } from ${JSON.stringify(module)};
const queue = await openFileQueue({ dir: ${JSON.stringify(join(dir, "q"))}, parse: (b) => b, maxAttempts: 5 });
await queue.send(Array.from({ length: 20 }, (_, n) => ({ n })));
const taken = await queue.take(5);
for (const message of taken.slice(0, 2)) await queue.ack(message.id);
process.stdout.write("ready\\n");
setInterval(() => {}, 1000);
`,
    );
    // Node itself with tsx's loader, so SIGKILL reaches the process that holds the queue.
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      cwd: fileURLToPath(new URL("../../..", import.meta.url)),
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("ready")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`taker exited with ${code}`)));
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;

    const queue = await openFileQueue({
      dir: join(dir, "q"),
      parse: (body) => job.parse(body),
      maxAttempts: 5,
    });
    const left = await queue.take(100);
    expect(left.map((m) => m.body.n).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 18 }, (_, i) => i + 2),
    );
    expect(left.filter((m) => m.attempt === 2).map((m) => m.body.n)).toEqual([2, 3, 4]);
  });
});

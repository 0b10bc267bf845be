/**
 * A durable work queue in a folder, for the embedded runtime: what SQS and its dead-letter
 * queue are on AWS. The queue's state is a journal it appends to, one JSON line a change:
 *
 *     {"s":{…}}         a message stored: sent, or put back to be tried again (`visibleAt` says when)
 *     {"t":"<id>"}      handed to the worker (a delivery)
 *     {"k":"<id>"}      done: acknowledged, or moved to the dead-letter folder
 *
 *     journal           the lines, replayed when the queue opens
 *     dead/<id>.json    failed its last attempt (the dead-letter queue), with its last error
 *
 * Every line is written to the file as it happens, so a killed process loses none. A send
 * resolves once its lines are synced as well, and sends under way together share one sync
 * (a group commit): a burst of sends costs a write each and a few syncs, where a file per
 * message cost a synced file and a rename each. A delivery and an acknowledgement are not
 * synced: after a crash of the machine a delivered message may come again, which the
 * at-least-once contract allows (workers are idempotent).
 *
 * The folder has one owner, the running service: when it opens the queue, a message handed out
 * and never acknowledged was taken by a process that is gone (a crash, `kill -9`), so it is put
 * back, as SQS redelivers a message whose visibility timeout ran out. That delivery counts as an
 * attempt, so a message that kills the process each time it is handled still ends in `dead/`
 * (as SQS moves a message received `maxAttempts` times to its dead-letter queue instead of
 * delivering it again). On opening, and once it has grown well past what it holds, the journal
 * is written anew with only the messages it holds.
 */
import { randomUUID } from "node:crypto";
import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fsyncSync,
  openSync,
  renameSync,
  writeSync,
} from "node:fs";
import { mkdir, open, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import type { WorkMessage, WorkQueue } from "../../ports/work-queue.ts";

const storedMessage = z.object({
  id: z.string(),
  body: z.unknown(),
  /** Deliveries so far. */
  attempt: z.number().int().min(0),
  sentAt: z.string(),
  /** Epoch milliseconds before which the message is not handed out. */
  visibleAt: z.number(),
  lastError: z.string().optional(),
});
type Stored = z.infer<typeof storedMessage>;

const journalLine = z.union([
  z.object({ s: storedMessage }),
  z.object({ t: z.string() }),
  z.object({ k: z.string() }),
]);

/** The journal is written anew once it holds this many lines and 8 times the messages held. */
const COMPACT_AFTER_LINES = 50_000;

export interface FileQueue<T> extends WorkQueue<T> {
  /** Takes up to `max` messages that are visible now, oldest first; each counts a delivery. */
  take(max: number): Promise<WorkMessage<T>[]>;
  /** Done: the message is deleted. */
  ack(id: string): Promise<void>;
  /**
   * Failed: the message comes again after `delaySeconds`, or, once it has had `maxAttempts`
   * deliveries, goes to `dead/` with the error. Says which.
   */
  fail(id: string, error: unknown, delaySeconds: number): Promise<"retried" | "dead">;
  /** Milliseconds until the next waiting message is visible; undefined when none waits. */
  nextVisibleIn(): number | undefined;
  /** Messages waiting (visible or not) and taken. */
  depth(): { ready: number; taken: number };
  /** Messages due now (visible and waiting) and taken: the work before a new message. */
  backlog(): number;
  /** Called after each acknowledgement or failure, when the backlog may have shrunk. */
  onSettle(listener: () => void): void;
  /** Called after each send, so a consumer in the same process need not poll. */
  onSend(listener: () => void): void;
  /** The messages in `dead/`, for the operator and for tests. */
  dead(): Promise<Array<{ id: string; body: unknown; attempt: number; lastError?: string }>>;
  /** Closes the journal; the queue takes nothing more. */
  close(): Promise<void>;
}

let sequence = 0;
/** Ids sort by sending time, then by order within a process. */
const newId = () =>
  `${Date.now().toString(36).padStart(9, "0")}-${(sequence++ % 36 ** 6).toString(36).padStart(6, "0")}-${randomUUID().slice(0, 8)}`;

const writeSynced = async (path: string, text: string) => {
  const file = await open(path, "w");
  try {
    await file.writeFile(text);
    await file.sync();
  } finally {
    await file.close();
  }
};

const readStored = async (path: string): Promise<Stored | undefined> => {
  const text = await readFile(path, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return storedMessage.parse(JSON.parse(text));
  } catch {
    return undefined;
  }
};

/**
 * What a journal holds: its messages in the order they were stored, and which were handed out.
 * A line torn by a crash (the last), or one damaged by hand, is passed by.
 */
const replay = (text: string) => {
  const messages = new Map<string, Stored>();
  const handedOut = new Set<string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    let entry: z.infer<typeof journalLine>;
    try {
      entry = journalLine.parse(JSON.parse(line));
    } catch {
      continue;
    }
    if ("s" in entry) {
      // Stored again (a retry): it waits at the back, as it was put back.
      messages.delete(entry.s.id);
      messages.set(entry.s.id, entry.s);
      handedOut.delete(entry.s.id);
    } else if ("t" in entry) {
      const stored = messages.get(entry.t);
      if (stored) {
        messages.set(entry.t, { ...stored, attempt: stored.attempt + 1 });
        handedOut.add(entry.t);
      }
    } else {
      messages.delete(entry.k);
      handedOut.delete(entry.k);
    }
  }
  return { messages, handedOut };
};

const storedLine = (stored: Stored) => `${JSON.stringify({ s: stored })}\n`;

export const openFileQueue = async <T>(options: {
  readonly dir: string;
  /** Parses a body back; the queue stores what `send` was given as JSON. */
  readonly parse: (body: unknown) => T;
  /** Deliveries of a message before it goes to `dead/` (SQS's maxReceiveCount). */
  readonly maxAttempts: number;
  readonly now?: () => number;
  /** Lines past which the journal is written anew, when it holds 8 times its messages. */
  readonly compactAfterLines?: number;
}): Promise<FileQueue<T>> => {
  const now = options.now ?? Date.now;
  const compactAfterLines = options.compactAfterLines ?? COMPACT_AFTER_LINES;
  const journalPath = join(options.dir, "journal");
  const deadPath = (id: string) => join(options.dir, "dead", `${id}.json`);
  await mkdir(join(options.dir, "dead"), { recursive: true });

  const { messages, handedOut } = replay(await readFile(journalPath, "utf8").catch(() => ""));
  const ready = new Map<string, Stored>();
  for (const [id, stored] of messages) if (!handedOut.has(id)) ready.set(id, stored);
  // Handed out by a process that is gone and never acknowledged: put back behind the rest,
  // the delivery counted (replay counted it).
  for (const id of handedOut) {
    const stored = messages.get(id);
    if (stored) {
      ready.set(id, { ...stored, lastError: "the process handling it stopped before it was done" });
    }
  }
  const taken = new Map<string, Stored>();
  /** Sent, their lines written and not yet synced: handed out once they are. */
  const sending = new Map<string, Stored>();
  /** Being moved to `dead/`: kept by a journal written anew until they are there. */
  const burying = new Map<string, Stored>();

  let fd = -1;
  let lines = 0;
  /**
   * Writes the journal anew with what the queue holds, synced, in place of the old: the
   * messages waiting and being sent, and those handed out (stored with one delivery fewer, then
   * their delivery, as replay counts it).
   */
  const rewrite = () => {
    const next = `${journalPath}.next`;
    const nextFd = openSync(next, "w");
    try {
      let text = "";
      for (const stored of [...ready.values(), ...sending.values(), ...burying.values()]) {
        text += storedLine(stored);
      }
      for (const stored of taken.values()) {
        text += storedLine({ ...stored, attempt: stored.attempt - 1 });
        text += `${JSON.stringify({ t: stored.id })}\n`;
      }
      writeSync(nextFd, text);
      fdatasyncSync(nextFd);
      renameSync(next, journalPath);
    } catch (error) {
      closeSync(nextFd);
      throw error;
    }
    // The rename on the disk too: after a power cut the journal is the new one or the old.
    const folder = openSync(options.dir, "r");
    try {
      fsyncSync(folder);
    } finally {
      closeSync(folder);
    }
    if (fd >= 0) closeSync(fd);
    fd = nextFd;
    lines = ready.size + sending.size + burying.size + 2 * taken.size;
  };
  rewrite();

  /** Syncs under way: one running, and at most one to start once it ends (a group commit). */
  let syncing: Promise<void> | undefined;
  let following: Promise<void> | undefined;
  const synced = (): Promise<void> => {
    if (!syncing) {
      const handle = fd;
      syncing = new Promise<void>((resolve, reject) => {
        fdatasync(handle, (error) => (error ? reject(error) : resolve()));
      }).finally(() => {
        syncing = undefined;
      });
      return syncing;
    }
    // The sync running may have begun before this caller's lines were written.
    following ??= syncing
      .catch(() => undefined)
      .then(() => {
        following = undefined;
        return synced();
      });
    return following;
  };

  /** Appends lines to the journal now (the system has them once this returns). */
  const append = (text: string, count: number) => {
    if (fd < 0) throw new Error(`the queue in ${options.dir} is closed`);
    writeSync(fd, text);
    lines += count;
    // Written anew between syncs only, so that no sync waits on a closed file.
    if (
      lines > compactAfterLines &&
      lines > 8 * (ready.size + sending.size + taken.size) &&
      syncing === undefined
    ) {
      rewrite();
    }
  };

  const listeners: Array<() => void> = [];
  const settleListeners: Array<() => void> = [];
  const settled = () => {
    for (const listener of settleListeners) listener();
  };

  const bury = async (stored: Stored) => {
    burying.set(stored.id, stored);
    try {
      await writeSynced(deadPath(stored.id), JSON.stringify(stored));
      append(`${JSON.stringify({ k: stored.id })}\n`, 1);
    } finally {
      burying.delete(stored.id);
    }
  };

  const toMessage = (stored: Stored): WorkMessage<T> => ({
    id: stored.id,
    body: options.parse(stored.body),
    attempt: stored.attempt,
  });

  return {
    async send(bodies, sendOptions) {
      if (bodies.length === 0) return;
      const visibleAt = now() + (sendOptions?.delaySeconds ?? 0) * 1000;
      const sentAt = new Date(now()).toISOString();
      const stored = bodies.map(
        (body): Stored => ({ id: newId(), body, attempt: 0, sentAt, visibleAt }),
      );
      for (const message of stored) sending.set(message.id, message);
      try {
        append(stored.map(storedLine).join(""), stored.length);
        await synced();
      } finally {
        for (const message of stored) sending.delete(message.id);
      }
      for (const message of stored) ready.set(message.id, message);
      for (const listener of listeners) listener();
    },

    async take(max) {
      const at = now();
      const chosen: Stored[] = [];
      for (const stored of ready.values()) {
        if (chosen.length >= max) break;
        if (stored.visibleAt <= at) chosen.push(stored);
      }
      const handed: WorkMessage<T>[] = [];
      for (const stored of chosen) {
        ready.delete(stored.id);
        // Delivered as often as it may be (the last deliveries died with the process).
        if (stored.attempt >= options.maxAttempts) {
          await bury(stored);
          continue;
        }
        const delivered = { ...stored, attempt: stored.attempt + 1 };
        let message: WorkMessage<T>;
        try {
          message = toMessage(delivered);
        } catch (error) {
          // A body that does not parse can never succeed.
          await bury({ ...delivered, lastError: String(error) });
          continue;
        }
        // Held before its line is written: a journal that line rewrites keeps it.
        taken.set(stored.id, delivered);
        append(`${JSON.stringify({ t: stored.id })}\n`, 1);
        handed.push(message);
      }
      return handed;
    },

    async ack(id) {
      if (!taken.delete(id)) return;
      append(`${JSON.stringify({ k: id })}\n`, 1);
      settled();
    },

    async fail(id, error, delaySeconds) {
      const stored = taken.get(id);
      if (!stored) return "retried";
      taken.delete(id);
      settled();
      const lastError = error instanceof Error ? error.message : String(error);
      if (stored.attempt >= options.maxAttempts) {
        await bury({ ...stored, lastError });
        return "dead";
      }
      const again = { ...stored, lastError, visibleAt: now() + delaySeconds * 1000 };
      ready.set(id, again);
      append(storedLine(again), 1);
      return "retried";
    },

    nextVisibleIn() {
      let next: number | undefined;
      for (const stored of ready.values()) {
        if (next === undefined || stored.visibleAt < next) next = stored.visibleAt;
      }
      return next === undefined ? undefined : Math.max(0, next - now());
    },

    depth: () => ({ ready: ready.size, taken: taken.size }),

    backlog() {
      const at = now();
      let due = 0;
      for (const stored of ready.values()) if (stored.visibleAt <= at) due++;
      return due + taken.size;
    },

    onSettle(listener) {
      settleListeners.push(listener);
    },

    onSend(listener) {
      listeners.push(listener);
    },

    async dead() {
      const found = [];
      for (const name of (await readdir(join(options.dir, "dead"))).sort()) {
        const stored = await readStored(join(options.dir, "dead", name));
        if (stored) {
          found.push({
            id: stored.id,
            body: stored.body,
            attempt: stored.attempt,
            lastError: stored.lastError,
          });
        }
      }
      return found;
    },

    async close() {
      await syncing?.catch(() => undefined);
      await following?.catch(() => undefined);
      if (fd >= 0) closeSync(fd);
      fd = -1;
    },
  };
};

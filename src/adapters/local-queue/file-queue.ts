/**
 * A durable work queue in a folder, for the embedded runtime: what SQS and its dead-letter
 * queue are on AWS. Each message is a file, moved between three folders by atomic renames:
 *
 *     ready/<id>.json   waiting, or waiting to be tried again (its `visibleAt` says when)
 *     taken/<id>.json   handed to the worker and not acknowledged yet
 *     dead/<id>.json    failed its last attempt (the dead-letter queue), with its last error
 *
 * A message is on disk, synced, before `send` resolves. The folder has one owner, the running
 * service: when it opens the queue, whatever is in `taken/` was taken by a process that is gone
 * (a crash, `kill -9`) and never acknowledged, so it is put back, as SQS redelivers a message
 * whose visibility timeout ran out. That delivery counts as an attempt, so a message that kills
 * the process each time it is handled still ends in `dead/` (as SQS moves a message received
 * `maxAttempts` times to its dead-letter queue instead of delivering it again). An acknowledgement unlinks the
 * file without a sync: after a crash an acknowledged message may come again, which the
 * at-least-once contract allows (workers are idempotent).
 */
import { randomUUID } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import type { WorkMessage, WorkQueue } from "../../ports/work-queue.ts";
import { syncFolder } from "../local-disk/sync.ts";

const FOLDERS = ["ready", "taken", "dead", "incoming"] as const;

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
}

let sequence = 0;
/** Ids sort by sending time, then by order within a process, so `ready/` lists oldest first. */
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
  // A file torn by a crash before its rename never reached ready/; one that does not parse
  // here was damaged by hand, and is left where it is for the operator.
  try {
    return storedMessage.parse(JSON.parse(text));
  } catch {
    return undefined;
  }
};

export const openFileQueue = async <T>(options: {
  readonly dir: string;
  /** Parses a body back; the queue stores what `send` was given as JSON. */
  readonly parse: (body: unknown) => T;
  /** Deliveries of a message before it goes to `dead/` (SQS's maxReceiveCount). */
  readonly maxAttempts: number;
  readonly now?: () => number;
}): Promise<FileQueue<T>> => {
  const now = options.now ?? Date.now;
  const path = (folder: (typeof FOLDERS)[number], id: string) =>
    join(options.dir, folder, `${id}.json`);
  for (const folder of FOLDERS) await mkdir(join(options.dir, folder), { recursive: true });

  // Writes torn before their rename were never acknowledged to a sender.
  for (const name of await readdir(join(options.dir, "incoming"))) {
    await rm(join(options.dir, "incoming", name), { force: true });
  }
  const ready = new Map<string, Stored>();
  for (const name of (await readdir(join(options.dir, "ready"))).sort()) {
    const stored = await readStored(join(options.dir, "ready", name));
    if (stored) ready.set(stored.id, stored);
  }
  /** Stores a message in ready/ (replacing any copy there) through a synced write and rename. */
  const store = async (stored: Stored) => {
    const incoming = path("incoming", stored.id);
    await writeSynced(incoming, JSON.stringify(stored));
    await rename(incoming, path("ready", stored.id));
  };

  // Taken by a process that is gone: delivered once more than the file says (it records the
  // deliveries before it was taken), never acknowledged, so put back. A file in both folders
  // was being put back when the process died; the one in ready/ is the newer.
  for (const name of (await readdir(join(options.dir, "taken"))).sort()) {
    const stored = await readStored(join(options.dir, "taken", name));
    if (stored && !ready.has(stored.id)) {
      const again = {
        ...stored,
        attempt: stored.attempt + 1,
        lastError: "the process handling it stopped before it was done",
      };
      await store(again);
      ready.set(again.id, again);
    }
    await rm(join(options.dir, "taken", name), { force: true });
  }
  await syncFolder(join(options.dir, "ready"));

  const taken = new Map<string, Stored>();
  const listeners: Array<() => void> = [];
  const settleListeners: Array<() => void> = [];
  const settled = () => {
    for (const listener of settleListeners) listener();
  };

  const bury = async (stored: Stored, from: "ready" | "taken") => {
    await writeSynced(path("dead", stored.id), JSON.stringify(stored));
    await rm(path(from, stored.id), { force: true });
  };

  const toMessage = (stored: Stored): WorkMessage<T> => ({
    id: stored.id,
    body: options.parse(stored.body),
    attempt: stored.attempt,
  });

  return {
    async send(messages, sendOptions) {
      if (messages.length === 0) return;
      const visibleAt = now() + (sendOptions?.delaySeconds ?? 0) * 1000;
      const sentAt = new Date(now()).toISOString();
      const stored = messages.map(
        (body): Stored => ({ id: newId(), body, attempt: 0, sentAt, visibleAt }),
      );
      await Promise.all(stored.map(store));
      await syncFolder(join(options.dir, "ready"));
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
      const messages: WorkMessage<T>[] = [];
      for (const stored of chosen) {
        ready.delete(stored.id);
        // Delivered as often as it may be (the last deliveries died with the process).
        if (stored.attempt >= options.maxAttempts) {
          await bury(stored, "ready");
          continue;
        }
        const delivered = { ...stored, attempt: stored.attempt + 1 };
        let message: WorkMessage<T>;
        try {
          message = toMessage(delivered);
        } catch (error) {
          // A body that does not parse can never succeed.
          await bury({ ...delivered, lastError: String(error) }, "ready");
          continue;
        }
        await rename(path("ready", stored.id), path("taken", stored.id));
        taken.set(stored.id, delivered);
        messages.push(message);
      }
      return messages;
    },

    async ack(id) {
      if (!taken.delete(id)) return;
      settled();
      await rm(path("taken", id), { force: true });
    },

    async fail(id, error, delaySeconds) {
      const stored = taken.get(id);
      if (!stored) return "retried";
      taken.delete(id);
      settled();
      const lastError = error instanceof Error ? error.message : String(error);
      if (stored.attempt >= options.maxAttempts) {
        await bury({ ...stored, lastError }, "taken");
        return "dead";
      }
      const again = { ...stored, lastError, visibleAt: now() + delaySeconds * 1000 };
      await store(again);
      await rm(path("taken", id), { force: true });
      ready.set(id, again);
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
  };
};

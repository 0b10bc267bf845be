/**
 * A LevelDB database of the embedded runtime's own stores (classic-level, in this process), with
 * the one thing they all need beside it: writes of one key that read it first (a conditional
 * write, a claim) take turns, so that two of them never both see the state before the other's
 * write, as DynamoDB's conditional writes of one item; writes of other keys go on meanwhile.
 * Reads go straight to the database. A write resolves once LevelDB has handed it to the system,
 * so a killed process loses none.
 */
import { ClassicLevel } from "classic-level";

export type LevelDb = ClassicLevel<string, string>;

/** Separates a key's parts; a part's own NUL is written as NUL then \x01 (`keyPart`). */
export const SEPARATOR = "\u0000";

/** A key part that cannot reach into the next: no other part's range takes its entries. */
export const keyPart = (part: string) =>
  part.includes(SEPARATOR) ? part.replaceAll(SEPARATOR, `${SEPARATOR}\u0001`) : part;

export interface LevelStore {
  readonly db: LevelDb;
  /** Runs `work` once every write of `key` given before it is done. */
  inTurn<T>(key: string, work: () => Promise<T>): Promise<T>;
  /** The value under `key`, parsed; undefined when there is none. */
  read<T>(key: string): Promise<T | undefined>;
  close(): Promise<void>;
}

/**
 * Table files LevelDB keeps open. It reads them through mmap, and each open one (up to 2 MB)
 * counts in the process's resident memory once read: with LevelDB's default of 1,000, memory
 * would grow with a store of every install until a thousand were mapped. 74 keeps 64 (LevelDB
 * holds 10 for itself), as for the embedded DynamoDB (src/embedded/dynalite-server.mjs).
 */
const MAX_OPEN_FILES = 74;

export const openLevelStore = async (dir: string): Promise<LevelStore> => {
  const db: LevelDb = new ClassicLevel<string, string>(dir, {
    keyEncoding: "utf8",
    valueEncoding: "utf8",
    maxOpenFiles: MAX_OPEN_FILES,
  });
  await db.open();
  /** Each key's last write given, while one is under way. */
  const turns = new Map<string, Promise<unknown>>();
  const inTurn = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const before = turns.get(key);
    const done = before ? before.then(work, work) : work();
    const settled = done.catch(() => undefined);
    turns.set(key, settled);
    void settled.then(() => {
      if (turns.get(key) === settled) turns.delete(key);
    });
    return done;
  };
  return {
    db,
    inTurn,
    // Read in this thread: a key of the service's own recent writes is in LevelDB's memory or
    // the system's page cache, and a read queued to libuv's threads (four, shared with every
    // file's sync) cost more than the read itself.
    async read<T>(key: string) {
      const text = db.getSync(key);
      return text === undefined ? undefined : (JSON.parse(text) as T);
    },
    async close() {
      while (turns.size > 0) await Promise.all(turns.values());
      await db.close();
    },
  };
};

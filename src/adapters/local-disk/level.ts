/**
 * A LevelDB database of the embedded runtime's own stores (classic-level, in this process), with
 * the one thing they all need beside it: writes that read first (a conditional write, a claim)
 * take turns, so that two of them never both see the state before the other's write. Reads go
 * straight to the database. A write resolves once LevelDB has handed it to the system, so a
 * killed process loses none.
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
  /** Runs `work` once every write given before it is done. */
  inTurn<T>(work: () => Promise<T>): Promise<T>;
  /** The value under `key`, parsed; undefined when there is none. */
  read<T>(key: string): Promise<T | undefined>;
  close(): Promise<void>;
}

export const openLevelStore = async (dir: string): Promise<LevelStore> => {
  const db: LevelDb = new ClassicLevel<string, string>(dir, {
    keyEncoding: "utf8",
    valueEncoding: "utf8",
  });
  await db.open();
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const done = turn.then(work, work);
    turn = done.catch(() => undefined);
    return done;
  };
  return {
    db,
    inTurn,
    async read<T>(key: string) {
      const text = await db.get(key);
      return text === undefined ? undefined : (JSON.parse(text) as T);
    },
    close: () => inTurn(() => db.close()),
  };
};

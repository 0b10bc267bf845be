/** What a LevelDB store's folder holds, for tests of what a store leaves behind. */
import { openLevelStore } from "./level.ts";

/** Every key the store's folder holds, once the store is closed. */
export const keysIn = async (dir: string): Promise<string[]> => {
  const level = await openLevelStore(dir);
  try {
    return await level.db.keys().all();
  } finally {
    await level.close();
  }
};

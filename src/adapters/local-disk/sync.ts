/**
 * The local disk's flushes, for the embedded adapters whose files must outlive a crash of the
 * machine, not only of the process: a file's bytes, and a folder's entries (a rename into it,
 * a removal).
 */
import { open } from "node:fs/promises";

const flush = async (path: string, flags: "r" | "r+") => {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/** A written file's bytes, on the disk. */
export const syncFile = (path: string) => flush(path, "r+");

/** A rename into the folder, or a removal from it, on the disk (a folder opens for reading). */
export const syncFolder = (path: string) => flush(path, "r");

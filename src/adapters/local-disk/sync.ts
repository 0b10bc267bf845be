/**
 * The local disk's flushes, for the embedded adapters whose files must outlive a crash of the
 * machine, not only of the process: a file's bytes, and a folder's entries (a rename into it,
 * a removal).
 */
import { open } from "node:fs/promises";

/** A written file's bytes, on the disk. */
export const syncFile = async (path: string) => {
  const file = await open(path, "r+");
  try {
    await file.sync();
  } finally {
    await file.close();
  }
};

/** A rename into the folder, or a removal from it, on the disk. */
export const syncFolder = async (path: string) => {
  const folder = await open(path, "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
};

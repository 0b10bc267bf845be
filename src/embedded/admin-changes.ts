/**
 * How the CLI tells a running embedded service that it changed apps or keys: it appends a line
 * to a marker file in the data folder. The file only grows, so its size (with its inode, should
 * it be deleted and made again) is a token that moves with every change, however close two
 * changes come: no file-system clock is involved. The service reads the token once per request,
 * as the request arrives (a stat, some microseconds), and its caches of keys and apps empty
 * themselves when it moved. So a revoked key or a disabled app stops at the next request, while
 * unchanged keys and apps are read from memory.
 */
import { statSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { dataPaths } from "./data-dir.ts";

export interface AdminRevision {
  /** The token as last checked. */
  readonly current: () => string;
  /** Reads the marker again: called as each request arrives, before it is authorized. */
  readonly check: () => void;
}

export const adminRevision = (dataDir: string): AdminRevision => {
  const marker = dataPaths(dataDir).adminChanges;
  const read = () => {
    const info = statSync(marker, { throwIfNoEntry: false });
    return info ? `${info.ino}:${info.size}` : "none";
  };
  let token = read();
  return {
    current: () => token,
    check: () => {
      token = read();
    },
  };
};

/** Appends one line (when, for whoever reads the file) to the marker. */
export const markAdminChange = async (dataDir: string): Promise<void> => {
  await appendFile(dataPaths(dataDir).adminChanges, `${new Date().toISOString()}\n`);
};

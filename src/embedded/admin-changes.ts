/**
 * How the CLI tells a running embedded service that it changed apps or keys: it replaces a
 * marker file in the data folder, and the service's caches compare the marker's identity on
 * every read (a stat, a few microseconds against a store read of a millisecond or more). So a
 * revoked key or a disabled app stops at the next request, while unchanged keys and apps are
 * read from memory.
 */
import { randomUUID } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { dataPaths } from "./data-dir.ts";

const RECENT_MS = 2_000;

/** A token that changes whenever the marker is replaced. */
export const adminRevision = (dataDir: string): (() => string) => {
  const marker = dataPaths(dataDir).adminChanges;
  return () => {
    const info = statSync(marker, { throwIfNoEntry: false });
    if (!info) return "none";
    const identity = `${info.ino}:${info.mtimeMs}`;
    // Two marks within one tick of the file system's clock may share a time and, the first
    // file being gone, an inode number: while a mark is that recent, its token tells them apart.
    if (Date.now() - info.mtimeMs < RECENT_MS) {
      return `${identity}:${readFileSync(marker, "utf8")}`;
    }
    return identity;
  };
};

/**
 * Replaces the marker with a new file holding a new random token, written beside and renamed
 * over so that a reader never sees it half-written.
 */
export const markAdminChange = async (dataDir: string): Promise<void> => {
  const marker = dataPaths(dataDir).adminChanges;
  const staged = `${marker}.${randomUUID()}`;
  await writeFile(staged, randomUUID());
  await rename(staged, marker);
};

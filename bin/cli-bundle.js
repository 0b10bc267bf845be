// The CLI's bundle (bin/build-cli.ts writes it at `npm install`): a command starts from it in
// under half the time its TypeScript takes to load through tsx. Plain JavaScript, as this runs
// before tsx is registered.
import { readFileSync, statSync } from "node:fs";

/** Where the bundle is written: two folders below the project, as the sources' files are, so
 * the paths they find from their own place (package.json, data/) are the same. */
export const BUNDLE_DIR = new URL("./.cli/", import.meta.url);
/** The bundle's entry, and the list of the sources it was built from with the time it was. */
export const BUNDLE_ENTRY = "main.js";
export const BUNDLE_INPUTS = "inputs.json";

/**
 * The bundle's entry when it is there and no source it was built from changed since (a
 * source edited, or checked out again, is newer); else undefined, and the CLI runs from the
 * sources through tsx.
 * @param {URL} [dir]
 * @returns {URL | undefined}
 */
export const freshBundle = (dir = BUNDLE_DIR) => {
  try {
    const { builtAt, inputs } = JSON.parse(readFileSync(new URL(BUNDLE_INPUTS, dir), "utf8"));
    const root = new URL("../../", dir);
    for (const input of inputs) {
      if (statSync(new URL(input, root)).mtimeMs > builtAt) return undefined;
    }
    return new URL(BUNDLE_ENTRY, dir);
  } catch {
    return undefined;
  }
};

/**
 * Which of a person's sessions hold. A session store keyed by the sessions' hashes cannot list
 * a person's sessions to end them; instead the person's record carries a random generation,
 * each session and pending sign-in the one it began under, and only those of the record's
 * current generation are taken. A new generation (the account made, its password set) ends all
 * the others at once, on both runtimes, with no scan of the sessions.
 */
import { createHash, randomBytes } from "node:crypto";
import type { User } from "../ports/users.ts";

/** A new generation: random, so an account made again never takes its old sessions back. */
export const newSessionGeneration = (): string => randomBytes(16).toString("base64url");

/**
 * The generation of a person disabled where the passwords are kept, as of that store's last
 * change to the account: the same for one disabling at every reading, another for the next. A
 * hash, so that it reads as a random one does and names neither the person nor the time.
 */
export const disabledGeneration = (email: string, changedAt: string): string =>
  createHash("sha256")
    .update(JSON.stringify(["disabled", email, changedAt]))
    .digest("base64url")
    .slice(0, 22);

/** Whether a session or pending sign-in begun under `generation` holds for the person now. */
export const holdsFor = (user: User, begun: { readonly generation: string }): boolean =>
  begun.generation === user.sessionGeneration;

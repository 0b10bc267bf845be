/**
 * Which of a person's sessions hold. A session store keyed by the sessions' hashes cannot list
 * a person's sessions to end them; instead the person's record carries a random generation,
 * each session and pending sign-in the one it began under, and only those of the record's
 * current generation are taken. A new generation (the account made, its password set) ends all
 * the others at once, on both runtimes, with no scan of the sessions.
 */
import { randomBytes } from "node:crypto";
import type { User } from "../ports/users.ts";

/** A new generation: random, so an account made again never takes its old sessions back. */
export const newSessionGeneration = (): string => randomBytes(16).toString("base64url");

/** Whether a session or pending sign-in begun under `generation` holds for the person now. */
export const holdsFor = (user: User, begun: { readonly generation?: string }): boolean =>
  begun.generation === user.sessionGeneration;

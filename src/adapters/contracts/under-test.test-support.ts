/**
 * What a contract suite runs against, one per `describe`: made before its tests (a store may
 * start a server), closed after them; the getter fails a test loudly if the making failed.
 */
import { afterAll, beforeAll } from "vitest";

export const underTest = <T extends { close(): Promise<void> }>(
  factory: () => Promise<T>,
): (() => T) => {
  let subject: T | undefined;
  beforeAll(async () => {
    subject = await factory();
  }, 120_000);
  afterAll(() => subject?.close());
  return () => {
    if (!subject) throw new Error("the store under test did not start");
    return subject;
  };
};

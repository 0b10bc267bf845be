/**
 * For a test whose expectations are made of "today" (a report's days reached, its ranges):
 * when the next UTC midnight is nearer than the test may run, it waits until midnight has
 * passed, so that the day the test starts on is the day it ends on.
 */
import { setTimeout as sleep } from "node:timers/promises";

const DAY_MS = 86_400_000;

export const clearOfMidnight = async (runsForMs: number): Promise<void> => {
  const untilMidnight = DAY_MS - (Date.now() % DAY_MS);
  if (untilMidnight < runsForMs) await sleep(untilMidnight + 1_000);
};

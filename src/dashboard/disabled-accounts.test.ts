/**
 * The sessions of people disabled in the credentials' pool, ended run by run, over a user store
 * in memory and the pool's list of disabled people as the credentials answer it.
 */
import { describe, expect, it } from "vitest";
import { NotFoundError } from "../domain/errors.ts";
import type { DisabledAccount, UserStore } from "../ports/users.ts";
import { endDisabledAccountsSessions } from "./disabled-accounts.ts";
import { memoryUserStore, testUser } from "./memory-stores.test-support.ts";

const poolOf = (disabled: DisabledAccount[]) => ({ disabledAccounts: async () => disabled });

describe("ending disabled people's sessions", () => {
  it("renews a disabling the pool does not date at every run, as nothing tells it from the last", async () => {
    const users = memoryUserStore([testUser("ann@example.com")]);
    const deps = { users, credentials: poolOf([{ email: "ann@example.com", changedAt: null }]) };
    expect(await endDisabledAccountsSessions(deps)).toBe(1);
    const once = (await users.get("ann@example.com"))?.sessionGeneration;
    expect(await endDisabledAccountsSessions(deps)).toBe(1);
    const twice = (await users.get("ann@example.com"))?.sessionGeneration;
    expect(new Set(["first", once, twice]).size).toBe(3);
  });

  it("goes on past a person removed during the run, and stops at any other failure", async () => {
    const stored = memoryUserStore([testUser("ann@example.com"), testUser("bo@example.com")]);
    const removedMeanwhile = (failure: Error): UserStore => ({
      ...stored,
      renewSessionGeneration: async (email, generation) => {
        if (email === "ann@example.com") throw failure;
        await stored.renewSessionGeneration(email, generation);
      },
    });
    const credentials = poolOf([
      { email: "ann@example.com", changedAt: "2026-12-01T10:00:00.000Z" },
      { email: "bo@example.com", changedAt: "2026-12-01T10:00:00.000Z" },
    ]);
    const gone = removedMeanwhile(new NotFoundError("No user ann@example.com."));
    expect(await endDisabledAccountsSessions({ users: gone, credentials })).toBe(1);
    expect((await stored.get("bo@example.com"))?.sessionGeneration).not.toBe("first");
    const down = removedMeanwhile(new Error("the store is down"));
    await expect(endDisabledAccountsSessions({ users: down, credentials })).rejects.toThrow(
      "the store is down",
    );
  });
});

/**
 * The open sessions of people disabled where their passwords are kept (Cognito's user pool on
 * AWS): Cognito refuses their sign-ins, but a session is the service's own and would hold until
 * it ends. A run gives each disabled person the users table has the session generation their
 * disabling names (./session-generation.ts), which ends their sessions and pending sign-ins at
 * their next request. The generation is derived from when the account last changed in the
 * pool, so the runs after the first find it set and write nothing: a person enabled again keeps
 * the session they then open, unless they open it during the very run that first saw them
 * disabled. A disabling the pool does not date is renewed at each run, as nothing tells it
 * from the last.
 */
import { NotFoundError } from "../domain/errors.ts";
import type { Credentials, UserStore } from "../ports/users.ts";
import { disabledGeneration, newSessionGeneration } from "./session-generation.ts";

export interface DisabledAccountsDeps {
  readonly users: Pick<UserStore, "get" | "renewSessionGeneration">;
  readonly credentials: Pick<Credentials, "disabledAccounts">;
}

/** Ends the sessions of every person disabled since the last run; how many people's it ended. */
export const endDisabledAccountsSessions = async (deps: DisabledAccountsDeps): Promise<number> => {
  let ended = 0;
  for (const { email, changedAt } of await deps.credentials.disabledAccounts()) {
    const generation =
      changedAt === null ? newSessionGeneration() : disabledGeneration(email, changedAt);
    // In the pool but not a person of the service's (removed from it): nothing to end.
    const user = await deps.users.get(email);
    if (!user || user.sessionGeneration === generation) continue;
    try {
      await deps.users.renewSessionGeneration(email, generation);
      ended += 1;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  return ended;
};

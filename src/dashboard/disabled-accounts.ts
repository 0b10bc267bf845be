/**
 * The open sessions of people disabled where their passwords are kept (Cognito's user pool on
 * AWS): Cognito refuses their sign-ins, but a session is the service's own and would hold until
 * it ends. Each run renews the session generation of every disabled person the users table has
 * (./session-generation.ts), which ends their sessions and pending sign-ins at their next
 * request; a disabled person has none left to end at the next run, so renewing again costs one
 * write and changes nothing. A person enabled again signs in as before.
 */
import { NotFoundError } from "../domain/errors.ts";
import type { Credentials, UserStore } from "../ports/users.ts";
import { newSessionGeneration } from "./session-generation.ts";

export interface DisabledAccountsDeps {
  readonly users: Pick<UserStore, "renewSessionGeneration">;
  readonly credentials: Pick<Credentials, "disabledAccounts">;
}

/** Ends the sessions of every disabled person; how many people's sessions it ended. */
export const endDisabledAccountsSessions = async (deps: DisabledAccountsDeps): Promise<number> => {
  let ended = 0;
  for (const email of await deps.credentials.disabledAccounts()) {
    try {
      await deps.users.renewSessionGeneration(email, newSessionGeneration());
      ended += 1;
    } catch (error) {
      // In the pool but not a person of the service's (removed from it): nothing to end.
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  return ended;
};

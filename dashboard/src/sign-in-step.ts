/**
 * What the sign-in does with the service's refusal of a TOTP code (src/dashboard/sessions.ts):
 * a wrong code keeps the code step, for the next one; any other 401 ends the sign-in (too many
 * wrong codes, the 5 minutes it waits for its code gone, a lockout), so the page goes back to
 * the password with the service's reason, rather than asking for codes no answer would take.
 */
import { ApiError, errorMessage } from "./api.ts";

/** How the service's refusal of a wrong code begins; the next code may still be taken. */
const WRONG_CODE = "The code is wrong";

export interface CodeRefusal {
  readonly message: string;
  /** The pending sign-in is over: sign in again with the password. */
  readonly signInOver: boolean;
}

export const codeRefusal = (caught: unknown): CodeRefusal => {
  const message = errorMessage(caught);
  const signInOver =
    caught instanceof ApiError && caught.status === 401 && !caught.detail.startsWith(WRONG_CODE);
  return { message, signInOver };
};

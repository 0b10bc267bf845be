/** The sign-in's code step: a wrong code keeps it, a sign-in the service ended goes back. */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../dashboard/src/api.ts";
import { codeRefusal } from "../../dashboard/src/sign-in-step.ts";

// The service's words (src/dashboard/sessions.ts, src/dashboard/sign-in-guard.ts).
const refused = (detail: string) => new ApiError(401, "Unauthorized", detail);

describe("codeRefusal", () => {
  it("keeps the code step for a wrong code", () => {
    const wrong = "The code is wrong: enter the code your authenticator app shows now.";
    expect(codeRefusal(refused(wrong))).toEqual({ message: wrong, signInOver: false });
  });

  it("goes back to the password when the service ended the sign-in", () => {
    for (const over of [
      "Too many wrong codes: sign in again with your password.",
      "This sign-in is over (it waits 5 minutes for its code): sign in again with your password.",
      "Too many failed sign-ins for this account from your address: try again in 15 minutes.",
    ]) {
      expect(codeRefusal(refused(over))).toEqual({ message: over, signInOver: true });
    }
  });

  it("keeps the code step when the service could not be reached or failed", () => {
    expect(codeRefusal(new TypeError("Failed to fetch"))).toEqual({
      message: "The service could not be reached.",
      signInOver: false,
    });
    expect(codeRefusal(new ApiError(500, "Internal Server Error", "")).signInOver).toBe(false);
  });
});

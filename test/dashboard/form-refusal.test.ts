/** A form's refusal as the Apps and People pages show it beside their inputs. */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../dashboard/src/api.ts";
import { refusalProblems } from "../../dashboard/src/form-problems.ts";

const LABELS = { email: "Email", role: "Role" };
const TAKEN = { field: "email", text: "A person with the email ann@example.com already exists." };

describe("refusalProblems", () => {
  it("says a 409 as the form says a key taken, beside its input", () => {
    expect(refusalProblems(new ApiError(409, "Conflict", "exists"), LABELS, TAKEN)).toEqual([
      TAKEN,
    ]);
  });

  it("says a 422's problems beside the inputs they name, in the form's words", () => {
    expect(
      refusalProblems(
        new ApiError(422, "Unprocessable Entity", "body.email: must be an email address"),
        LABELS,
        TAKEN,
      ),
    ).toEqual([{ field: "email", text: "Email must be an email address" }]);
  });

  it("says anything else, a 409 of a form with no key to take too, in one message", () => {
    const [other] = refusalProblems(new ApiError(409, "Conflict", "the last admin"), LABELS);
    expect(other?.field).toBeNull();
    expect(other?.text).toContain("the last admin");
    const [down] = refusalProblems(new TypeError("Failed to fetch"), LABELS, TAKEN);
    expect(down?.field).toBeNull();
  });
});

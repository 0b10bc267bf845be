import { describe, expect, it } from "vitest";
import * as z from "zod";
import { ValidationError } from "../domain/errors.ts";
import { checked, joinProblems } from "./issues.ts";

const signIn = z.strictObject({
  email: z.string().min(3).max(320),
  password: z.string().min(1).max(64),
  day: z.iso.date({ error: "must be a UTC day, YYYY-MM-DD" }).optional(),
  tags: z.array(z.string()).optional(),
});

describe("checked", () => {
  it("says a missing field is required, in the words of the schemas that give their own", () => {
    expect(() => checked(signIn, { email: "owner@localhost" }, "body")).toThrow(
      new ValidationError("password: is required"),
    );
  });

  it("names the type a value must be, and a string's bounds, without the library's wording", () => {
    expect(() => checked(signIn, { email: 7, password: "" }, "body")).toThrow(
      new ValidationError("email: must be a string; password: must not be empty"),
    );
    expect(() => checked(signIn, { email: "ab", password: "p".repeat(65) }, "body")).toThrow(
      new ValidationError(
        "email: must be at least 3 characters; password: must be at most 64 characters",
      ),
    );
    expect(() => checked(signIn, { email: "a@b", password: "p", tags: "x" }, "body")).toThrow(
      new ValidationError("tags: must be an array"),
    );
    expect(() => checked(signIn, null, "body")).toThrow(
      new ValidationError("body: must be an object"),
    );
  });

  it("keeps a schema's own words", () => {
    expect(() => checked(signIn, { email: "a@b", password: "p", day: "today" }, "body")).toThrow(
      new ValidationError("day: must be a UTC day, YYYY-MM-DD"),
    );
  });
});

describe("joinProblems", () => {
  it("gives the first five problems in full, each once, and counts the rest", () => {
    const problems = ["a: 1", "a: 1", "b: 2", "c: 3", "d: 4", "e: 5", "f: 6", "g: 7"];
    expect(joinProblems(problems)).toBe("a: 1; b: 2; c: 3; d: 4; e: 5; and 2 more");
    expect(joinProblems(problems.slice(0, 6))).toBe("a: 1; b: 2; c: 3; d: 4; e: 5");
  });
});

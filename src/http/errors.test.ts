import { describe, expect, it } from "vitest";
import {
  ConflictError,
  NotFoundError,
  ServiceError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
} from "../domain/errors.ts";
import { INTERNAL_ERROR_DETAIL, statusName, toErrorResponse } from "./errors.ts";

describe("toErrorResponse", () => {
  it.each([
    [new UnauthorizedError(), 401, "Unauthorized"],
    [new NotFoundError("No such request."), 404, "Not Found"],
    [new ConflictError("Taken."), 409, "Conflict"],
    [new ValidationError("limit: must be an integer from 1 to 10000"), 422, "Unprocessable Entity"],
  ])("shows a typed error under 500 as itself: %s", (error, status, name) => {
    expect(toErrorResponse(error)).toEqual({
      statusCode: status,
      body: { error: name, detail: error.message },
    });
  });

  it("hides everything else behind a plain 500, a typed 5xx included", () => {
    for (const error of [
      new Error("connect ECONNREFUSED 127.0.0.1:8000"),
      new ServiceError(503, "the store at 10.0.0.3 is down"),
      "a string",
      undefined,
    ]) {
      expect(toErrorResponse(error)).toEqual({
        statusCode: 500,
        body: { error: "Internal Server Error", detail: INTERNAL_ERROR_DETAIL },
      });
    }
  });

  it("shows a 503 that says when to come back as itself, with Retry-After", () => {
    expect(toErrorResponse(new UnavailableError("The service is stopping.", 2))).toEqual({
      statusCode: 503,
      body: { error: "Service Unavailable", detail: "The service is stopping." },
      headers: { "retry-after": "2" },
    });
  });

  it("names statuses as HTTP does", () => {
    expect(statusName(413)).toBe("Payload Too Large");
    expect(statusName(599)).toBe("Internal Server Error");
  });
});

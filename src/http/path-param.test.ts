import { describe, expect, it } from "vitest";
import * as z from "zod";
import { ValidationError } from "../domain/errors.ts";
import { apiEvent } from "./api-event.test-support.ts";
import { pathParam } from "./path-param.ts";

describe("a path parameter", () => {
  const id = z.string().regex(/^[a-z]+$/);

  it("is read by its schema, and a bad or missing one is a 422 naming it", () => {
    expect(pathParam(apiEvent({ params: { deeplink_id: "abc" } }), "deeplink_id", id)).toBe("abc");
    for (const event of [apiEvent({ params: { deeplink_id: "A1" } }), apiEvent()]) {
      expect(() => pathParam(event, "deeplink_id", id)).toThrow(ValidationError);
      expect(() => pathParam(event, "deeplink_id", id)).toThrow(/deeplink_id/);
    }
  });
});

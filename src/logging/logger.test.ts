import { describe, expect, it } from "vitest";
import { requestKeys } from "./logger.ts";

describe("requestKeys", () => {
  it("names the request by its id, its app and its path, and nothing else of the event", () => {
    const keys = requestKeys({
      path: "/v1/events",
      requestContext: {
        requestId: "req-1",
        authorizer: { appId: "com.example.game", keyId: "k1", principalId: "k1" },
      },
    });
    expect(keys).toEqual({ requestId: "req-1", appId: "com.example.game", path: "/v1/events" });
  });

  it("leaves out what a public or malformed request does not carry", () => {
    expect(requestKeys({ path: "/v1/openapi.json", requestContext: { requestId: "r" } })).toEqual({
      requestId: "r",
      path: "/v1/openapi.json",
    });
    expect(requestKeys({ requestContext: { authorizer: { appId: 42 } } })).toEqual({});
    expect(requestKeys({ requestContext: null })).toEqual({});
  });
});

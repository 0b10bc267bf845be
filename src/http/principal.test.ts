import { describe, expect, it } from "vitest";
import * as z from "zod";
import { NotFoundError, UnauthorizedError } from "../domain/errors.ts";
import { apiEvent, principal } from "./api-event.test-support.ts";
import { appQuery, principalOf, sessionOf, toAuthorizerContext, UNKNOWN_APP } from "./principal.ts";

const withAuthorizer = (authorizer: Record<string, string> | undefined) => ({
  requestContext: { authorizer },
});

describe("the principal a handler reads", () => {
  it("is the authorizer's verdict, its scopes split on any run of spaces", () => {
    const read = principalOf(
      withAuthorizer({ ...principal("app1", []), scopes: " links  export " }),
      "export",
    );
    expect(read).toEqual({
      keyId: "k1",
      appId: "app1",
      appName: "App app1",
      scopes: ["links", "export"],
    });
  });

  it("round-trips through the context the authorizer passes, a session's user with it", () => {
    const session = {
      keyId: "s1",
      appId: "app1",
      appName: "App app1",
      scopes: ["links" as const, "costs" as const],
      user: "ana@example.com",
    };
    const context = toAuthorizerContext(session);
    expect(principalOf(withAuthorizer(context), "costs")).toEqual(session);
    expect(sessionOf(withAuthorizer(context), "costs")).toEqual(session);
  });

  it("refuses a request without the route's scope, without a verdict, or naming no app", () => {
    const refused = (event: Parameters<typeof principalOf>[0]) => {
      try {
        principalOf(event, "links");
      } catch (error) {
        expect(error).toBeInstanceOf(UnauthorizedError);
        return (error as Error).message;
      }
      throw new Error("not refused");
    };
    refused(withAuthorizer(principal("app1", ["export"])));
    refused(withAuthorizer(undefined));
    refused({});
    refused({ requestContext: null });
    refused(withAuthorizer({ ...principal("app1", ["links"]), scopes: "links unknown-scope" }));
    expect(refused(withAuthorizer(principal("", ["links"])))).toMatch(/names no app/);
  });

  it("gives the dashboard's routes a signed-in person only: a key is refused", () => {
    expect(() => sessionOf(withAuthorizer(principal("app1", ["links"])), "links")).toThrow(
      /Sign in to the dashboard/,
    );
    // A session's request may name no app, for the routes about no app.
    const session = { ...principal("", ["links"]), user: "ana@example.com" };
    expect(sessionOf(withAuthorizer(session), "links").user).toBe("ana@example.com");
  });

  it("takes a query's app_id only when it names the caller's app: any other is not found", () => {
    const schema = z.object({ app_id: z.string().optional(), limit: z.coerce.number() });
    const event = (query: Record<string, string>) =>
      apiEvent({ query, authorizer: principal("app1", ["links"]) });
    expect(appQuery(event({ limit: "5" }), "links", schema)).toEqual({
      appId: "app1",
      query: { limit: 5 },
    });
    expect(appQuery(event({ app_id: "app1", limit: "5" }), "links", schema).appId).toBe("app1");
    expect(() => appQuery(event({ app_id: "app2", limit: "5" }), "links", schema)).toThrow(
      new NotFoundError(UNKNOWN_APP),
    );
    // The key is checked before the query: a bad key is a 401 whatever it asks.
    expect(() => appQuery(apiEvent({ query: { limit: "x" } }), "links", schema)).toThrow(
      UnauthorizedError,
    );
  });
});

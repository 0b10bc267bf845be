import type {
  APIGatewayRequestAuthorizerEvent,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from "aws-lambda";
import { describe, expect, it } from "vitest";
import { readGate } from "../adapters/cache/read-gate.test-support.ts";
import { cacheAuthorizerAnswers } from "./authorizer-cache.ts";
import type { Authorizer } from "./gateway.ts";

const METHOD_ARN = "arn:aws:execute-api:local:000000000000:embedded/local/POST/v1/events";
const request = (token: string): APIGatewayTokenAuthorizerEvent => ({
  type: "TOKEN",
  authorizationToken: token,
  methodArn: METHOD_ARN,
});
const context = {} as Context;

// An authorizer that lets in the tokens of a set another process may change, counting its calls.
const countingAuthorizer = () => {
  const valid = new Set(["good"]);
  const calls = { count: 0 };
  const gate = readGate();
  const authorizer: Authorizer = async (event) => {
    calls.count += 1;
    if (event.type !== "TOKEN") throw new Error("Unauthorized");
    const allowed = valid.has(event.authorizationToken);
    await gate.passed();
    if (!allowed) throw new Error("Unauthorized");
    return {
      principalId: event.authorizationToken,
      policyDocument: { Version: "2012-10-17", Statement: [] },
    };
  };
  return { authorizer, valid, calls, holdCalls: gate.hold };
};

describe("authorizer answers cache", () => {
  it("asks once per token while the revision stands", async () => {
    const { authorizer, calls } = countingAuthorizer();
    const cached = cacheAuthorizerAnswers(authorizer, { revision: () => "r1" });
    const first = await cached(request("good"), context);
    expect(await cached(request("good"), context)).toBe(first);
    expect(calls.count).toBe(1);
  });

  it("asks again as soon as the revision moves: a revoked key stops at once", async () => {
    const { authorizer, valid } = countingAuthorizer();
    let revision = "r1";
    const cached = cacheAuthorizerAnswers(authorizer, { revision: () => revision });
    await cached(request("good"), context);
    valid.delete("good");
    revision = "r2";
    await expect(cached(request("good"), context)).rejects.toThrow("Unauthorized");
  });

  it("never keeps a refusal: a key made later is let in", async () => {
    const { authorizer, valid, calls } = countingAuthorizer();
    const cached = cacheAuthorizerAnswers(authorizer, { revision: () => "r1" });
    await expect(cached(request("new"), context)).rejects.toThrow("Unauthorized");
    valid.add("new");
    await expect(cached(request("new"), context)).resolves.toMatchObject({ principalId: "new" });
    expect(calls.count).toBe(2);
  });

  it("asks again once an answer is older than the maximum age", async () => {
    const { authorizer, calls } = countingAuthorizer();
    let clock = 0;
    const cached = cacheAuthorizerAnswers(authorizer, {
      revision: () => "r1",
      maxAgeMs: 1_000,
      now: () => clock,
    });
    await cached(request("good"), context);
    clock = 999;
    await cached(request("good"), context);
    expect(calls.count).toBe(1);
    clock = 1_000;
    await cached(request("good"), context);
    expect(calls.count).toBe(2);
  });

  it("keeps nothing decided across a revision change", async () => {
    const { authorizer, valid, calls, holdCalls } = countingAuthorizer();
    let revision = "r1";
    const cached = cacheAuthorizerAnswers(authorizer, { revision: () => revision });
    const release = holdCalls();
    const pending = cached(request("good"), context);
    // Revoked while the first answer is being worked out from what was read before.
    valid.delete("good");
    revision = "r2";
    release();
    await pending;
    await expect(cached(request("good"), context)).rejects.toThrow("Unauthorized");
    expect(calls.count).toBe(2);
  });

  it("keeps no answer read before a change that another request saw first", async () => {
    const { authorizer, valid, calls, holdCalls } = countingAuthorizer();
    valid.add("other");
    let revision = "r1";
    const cached = cacheAuthorizerAnswers(authorizer, { revision: () => revision });
    const release = holdCalls();
    const pending = cached(request("good"), context);
    valid.delete("good");
    revision = "r2";
    // Another request arrives after the change, and is the one to see it.
    const other = cached(request("other"), context);
    release();
    await pending;
    await other;
    await expect(cached(request("good"), context)).rejects.toThrow("Unauthorized");
    expect(calls.count).toBe(3);
  });

  it("asks again after ten seconds when no maximum age is given", async () => {
    const { authorizer, calls } = countingAuthorizer();
    let clock = 0;
    const cached = cacheAuthorizerAnswers(authorizer, { revision: () => "r1", now: () => clock });
    await cached(request("good"), context);
    clock = 9_999;
    await cached(request("good"), context);
    expect(calls.count).toBe(1);
    clock = 10_000;
    await cached(request("good"), context);
    expect(calls.count).toBe(2);
  });

  it("asks about every dashboard session, as API Gateway asks a REQUEST authorizer uncached", async () => {
    const asked: string[] = [];
    const sessions: Authorizer = async (event) => {
      asked.push(event.type === "REQUEST" ? String(event.headers?.cookie) : "token");
      return { principalId: "user", policyDocument: { Version: "2012-10-17", Statement: [] } };
    };
    const cached = cacheAuthorizerAnswers(sessions, { revision: () => "r1" });
    const session = (cookie: string): APIGatewayRequestAuthorizerEvent => ({
      type: "REQUEST",
      methodArn: METHOD_ARN,
      resource: "/v1/events",
      path: "/v1/events",
      httpMethod: "POST",
      headers: { cookie },
      multiValueHeaders: null,
      pathParameters: null,
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      stageVariables: null,
      requestContext: null as unknown as APIGatewayRequestAuthorizerEvent["requestContext"],
    });
    await cached(session("s=1"), context);
    await cached(session("s=1"), context);
    await cached(session("s=2"), context);
    expect(asked).toEqual(["s=1", "s=1", "s=2"]);
  });
});

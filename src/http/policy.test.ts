import { describe, expect, it } from "vitest";
import { SCOPES } from "../domain/keys.ts";
import { isAllowed, policyFor, routeArn } from "./policy.ts";
import { methodsOf, ROUTES } from "./routes.ts";

const arn = "arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/api/v1/export";

describe("authorizer policy", () => {
  it("allows the routes of the key's scopes on the same API and stage", () => {
    const policy = policyFor(arn, ["export"]);
    expect(policy.Statement).toEqual([
      {
        Action: "execute-api:Invoke",
        Effect: "Allow",
        Resource: [
          "arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/api/v1/export",
          "arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/HEAD/api/v1/export",
        ],
      },
    ]);
    expect(isAllowed(policy, arn)).toBe(true);
  });

  it("never names a public route: it has no authorizer to consult a policy", () => {
    const everything = policyFor(arn, [...SCOPES]);
    const resources = everything.Statement.flatMap((s) => s.Resource);
    // Each keyed route, a GET route's HEAD too.
    expect(resources).toHaveLength(
      ROUTES.filter((r) => r.scope !== null).flatMap((r) => methodsOf(r)).length,
    );
    for (const route of ROUTES.filter((r) => r.scope === null)) {
      expect(resources).not.toContain(routeArn(arn, route.method, route.path));
    }
  });

  it("denies everything to a key whose scopes reach no route", () => {
    const policy = policyFor(arn, []);
    expect(policy.Statement[0]?.Effect).toBe("Deny");
    // Every method and path of the stage, whatever the key asks for.
    expect(policy.Statement[0]?.Resource).toEqual([
      "arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/*",
    ]);
    expect(isAllowed(policy, arn)).toBe(false);
  });

  it("does not allow another API, stage or method", () => {
    const policy = policyFor(arn, ["export"]);
    expect(isAllowed(policy, arn.replace("abc123", "zzz999"))).toBe(false);
    expect(isAllowed(policy, arn.replace("/prod/", "/dev/"))).toBe(false);
    expect(isAllowed(policy, arn.replace("/GET/", "/POST/"))).toBe(false);
  });

  it("matches a resource whole: no longer path, no other prefix, no pattern in its characters", () => {
    const policy = policyFor(arn, ["export"]);
    expect(isAllowed(policy, `${arn}/more`)).toBe(false);
    expect(isAllowed(policy, `${arn}x`)).toBe(false);
    expect(isAllowed(policy, `x${arn}`)).toBe(false);
    expect(isAllowed(policy, arn.replace("arn:aws:", "arn:aws-cn:arn:aws:"))).toBe(false);
    // A resource's own characters are literal: `.` and `+` are no regular expression's.
    const dotted = {
      Version: "2012-10-17" as const,
      Statement: [
        {
          Action: "execute-api:Invoke" as const,
          Effect: "Allow" as const,
          Resource: [`${arn.split("/GET")[0]}/GET/v1/a.b+`],
        },
      ],
    };
    expect(isAllowed(dotted, `${arn.split("/GET")[0]}/GET/v1/a.b+`)).toBe(true);
    expect(isAllowed(dotted, `${arn.split("/GET")[0]}/GET/v1/aXb+`)).toBe(false);
    expect(isAllowed(dotted, `${arn.split("/GET")[0]}/GET/v1/a.bb`)).toBe(false);
    // A path parameter's wildcard stands for the parameter.
    const linking = policyFor(arn, ["links"]);
    expect(isAllowed(linking, `${arn.split("/GET")[0]}/GET/v1/links/Ab3dE`)).toBe(true);
  });

  it("writes path parameters as wildcards, and an explicit deny wins", () => {
    expect(routeArn(arn, "DELETE", "/v1/installs/{service_id}")).toBe(
      "arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/DELETE/v1/installs/*",
    );
    const both = {
      Version: "2012-10-17" as const,
      Statement: [
        {
          Action: "execute-api:Invoke" as const,
          Effect: "Allow" as const,
          Resource: [`${arn.split("/GET")[0]}/*`],
        },
        { Action: "execute-api:Invoke" as const, Effect: "Deny" as const, Resource: [arn] },
      ],
    };
    expect(isAllowed(both, arn)).toBe(false);
  });
});

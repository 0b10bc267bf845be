/**
 * IAM policies of the Lambda authorizer. API Gateway caches a policy per key, so the policy
 * allows every route the key's scopes reach, not only the route being called.
 */
import type { Scope } from "../domain/keys.ts";
import { methodsOf, ROUTES } from "./routes.ts";

export interface PolicyDocument {
  Version: "2012-10-17";
  Statement: { Action: "execute-api:Invoke"; Effect: "Allow" | "Deny"; Resource: string[] }[];
}

/** `arn:…:apiId/stage/METHOD/path` → `arn:…:apiId/stage`. */
const apiStagePrefix = (methodArn: string): string => {
  const [arnWithApiId, stage] = methodArn.split("/");
  if (!arnWithApiId || !stage) throw new Error(`Unexpected method ARN: ${methodArn}`);
  return `${arnWithApiId}/${stage}`;
};

export const routeArn = (methodArn: string, method: string, path: string): string =>
  `${apiStagePrefix(methodArn)}/${method}${path.replace(/\{[^}]+\}/g, "*")}`;

export const policyFor = (methodArn: string, scopes: readonly Scope[]): PolicyDocument => {
  // A public route (null scope) has no authorizer, so no key's policy needs to name it.
  const allowed = ROUTES.filter(
    (route) => route.scope !== null && scopes.includes(route.scope),
  ).flatMap((route) => methodsOf(route).map((method) => routeArn(methodArn, method, route.path)));
  return {
    Version: "2012-10-17",
    Statement: [
      allowed.length > 0
        ? { Action: "execute-api:Invoke", Effect: "Allow", Resource: allowed }
        : {
            Action: "execute-api:Invoke",
            Effect: "Deny",
            Resource: [`${apiStagePrefix(methodArn)}/*`],
          },
    ],
  };
};

// Compiled once per resource pattern: the embedded gateway checks a policy on every request,
// and the patterns are the routes' ARNs, a handful.
const patterns = new Map<string, RegExp>();

const matches = (pattern: string, value: string): boolean => {
  let regex = patterns.get(pattern);
  if (!regex) {
    const source = pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    regex = new RegExp(`^${source}$`);
    patterns.set(pattern, regex);
  }
  return regex.test(value);
};

/** API Gateway's evaluation: an explicit Deny wins, then any Allow, else denied. */
export const isAllowed = (policy: PolicyDocument, methodArn: string): boolean => {
  const hit = (effect: "Allow" | "Deny") =>
    policy.Statement.some(
      (s) => s.Effect === effect && s.Resource.some((r) => matches(r, methodArn)),
    );
  return !hit("Deny") && hit("Allow");
};

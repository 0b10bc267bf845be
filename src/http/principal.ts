/**
 * Who is calling: the authorizer's verdict, passed to handlers in the API Gateway request
 * context (`requestContext.authorizer`), where every value is a string.
 */
import * as z from "zod";
import type { Principal } from "../apps/authenticate.ts";
import { UnauthorizedError } from "../domain/errors.ts";
import { SCOPES, type Scope } from "../domain/keys.ts";

const contextSchema = z.object({
  keyId: z.string(),
  appId: z.string(),
  appName: z.string(),
  scopes: z
    .string()
    .transform((s) => s.split(" ").filter(Boolean))
    .pipe(z.array(z.enum(SCOPES))),
});

export const toAuthorizerContext = (principal: Principal): Record<string, string> => ({
  keyId: principal.keyId,
  appId: principal.appId,
  appName: principal.appName,
  scopes: principal.scopes.join(" "),
});

/** The principal of a request, checked again here so a handler never trusts a missing scope. */
export const principalOf = (
  event: { requestContext?: { authorizer?: unknown } | null },
  scope: Scope,
): Principal => {
  const parsed = contextSchema.safeParse(event.requestContext?.authorizer);
  if (!parsed.success || !parsed.data.scopes.includes(scope)) throw new UnauthorizedError();
  return parsed.data;
};

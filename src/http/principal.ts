/**
 * Who is calling: the authorizer's verdict, passed to handlers in the API Gateway request
 * context (`requestContext.authorizer`), where every value is a string.
 */
import * as z from "zod";
import type { Principal } from "../apps/authenticate.ts";
import { NotFoundError, UnauthorizedError } from "../domain/errors.ts";
import { SCOPES, type Scope } from "../domain/keys.ts";
import { checked } from "../validation/issues.ts";
import { type QueryEvent, queryOnce } from "./query-once.ts";

const contextSchema = z.object({
  keyId: z.string(),
  appId: z.string(),
  appName: z.string(),
  scopes: z
    .string()
    .transform((s) => s.split(" ").filter(Boolean))
    .pipe(z.array(z.enum(SCOPES))),
  user: z
    .string()
    .optional()
    .transform((user) => user || undefined),
});

export const toAuthorizerContext = (principal: Principal): Record<string, string> => ({
  keyId: principal.keyId,
  appId: principal.appId,
  appName: principal.appName,
  scopes: principal.scopes.join(" "),
  user: principal.user ?? "",
});

/**
 * The principal of a request, checked again here so a handler never trusts a missing scope;
 * it names an app (a session's request without one is only for the app-less routes, which read
 * `sessionOf`).
 */
export const principalOf = (
  event: { requestContext?: { authorizer?: unknown } | null },
  scope: Scope,
): Principal => {
  const principal = anyPrincipal(event, scope);
  if (!principal.appId) throw new UnauthorizedError("The request names no app (app_id).");
  return principal;
};

/** What a route about an app answers when its `app_id` names an app the caller may not see. */
export const UNKNOWN_APP = "No such app.";

/**
 * The caller's app, checked before the query (a bad key is a 401 whatever it asks), and the
 * route's query, whose `app_id`, when given, must name that app: any other is not found, as an
 * app the caller may not see is (a session's authorizer has checked it already; a key's has not).
 */
export const appQuery = <T extends { readonly app_id?: string | undefined }>(
  event: { requestContext?: { authorizer?: unknown } | null } & QueryEvent,
  scope: Scope,
  schema: z.ZodType<T>,
): { readonly appId: string; readonly query: T } => {
  const { appId } = principalOf(event, scope);
  const query = checked(schema, queryOnce(event), "query");
  if (query.app_id !== undefined && query.app_id !== appId) throw new NotFoundError(UNKNOWN_APP);
  return { appId, query };
};

const anyPrincipal = (
  event: { requestContext?: { authorizer?: unknown } | null },
  scope: Scope,
): Principal => {
  const parsed = contextSchema.safeParse(event.requestContext?.authorizer);
  if (!parsed.success || !parsed.data.scopes.includes(scope)) throw new UnauthorizedError();
  const { user, ...rest } = parsed.data;
  return user ? { ...rest, user } : rest;
};

/** The signed-in person of a dashboard request (a key has none: refused). */
export const sessionOf = (
  event: { requestContext?: { authorizer?: unknown } | null },
  scope: Scope,
): Principal & { readonly user: string } => {
  const principal = anyPrincipal(event, scope);
  if (!principal.user) throw new UnauthorizedError("Sign in to the dashboard for this.");
  return { ...principal, user: principal.user };
};

/**
 * Every function's composition, found from its row's `handler` (./handler-ref.ts): what the
 * embedded runtime maps the route, link-host and worker tables and the jobs over. AWS entries
 * import theirs statically (lambdas/entries.ts writes them), so a bundle holds one.
 */
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import type { HttpResponse } from "../http/middleware.ts";
import type { AllAdapters, Runtime } from "./adapters.ts";
import { importCompositionModule } from "./composition-modules.ts";
import { type HandlerRef, parseHandlerRef } from "./handler-ref.ts";

/** An HTTP handler as both the Lambda runtime and the embedded gateway call it. */
export type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<HttpResponse>;

/** A composition as a runtime that holds every adapter calls it. */
export interface Composed<H> {
  readonly row: { readonly id: string };
  readonly compose: (adapters: AllAdapters, runtime: Runtime) => H;
}

/**
 * The composition a row names. It must be one, and composed for that very row: a row that
 * names another row's handler would run with the other's environment and grants.
 */
export const loadComposition = async <H>(row: {
  readonly id: string;
  readonly handler: HandlerRef;
}): Promise<Composed<H>> => {
  const { path, name } = parseHandlerRef(row.handler);
  const module = await importCompositionModule(path);
  const found = module[name] as Partial<Composed<H>> | undefined;
  if (typeof found?.compose !== "function" || typeof found.row?.id !== "string") {
    throw new Error(`${row.id}: ${row.handler} is not a composition`);
  }
  if (found.row.id !== row.id) {
    throw new Error(`${row.id}: ${row.handler} is composed for ${found.row.id}`);
  }
  return found as Composed<H>;
};

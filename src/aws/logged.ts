/**
 * Every Lambda entry's handler goes through this: Powertools' middleware adds the invocation's
 * context (function name, request id, cold start) to each log line the invocation writes. It is
 * not part of the shared middy chains, because the embedded runtime runs requests side by side
 * in one process, where one invocation's context would stamp another's lines.
 */
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import type { MiddyfiedHandler } from "@middy/core";
import { logger } from "../logging/logger.ts";

export const logged = <E, R>(handler: MiddyfiedHandler<E, R>): MiddyfiedHandler<E, R> => {
  handler.use(injectLambdaContext(logger, { resetKeys: true }));
  return handler;
};

/**
 * The service's one logger, Powertools for AWS Lambda's, on both runtimes: one JSON object a
 * line, which Lambda's JSON log format keeps as it is (a JSON string built by hand would be
 * escaped into its `message`). Request-scoped keys (`requestId`, `appId`) go with each call
 * and are never appended to this shared instance: the embedded runtime serves many requests at
 * once in one process, where appended keys would carry one request's ids into another's lines.
 * Never log an API key, an Authorization header or a sealed value.
 */
import { Logger } from "@aws-lambda-powertools/logger";

export const logger = new Logger({ serviceName: "attribution" });

/** The keys that name a request in a log line, from an API Gateway-shaped event. */
export const requestKeys = (event: {
  path?: string;
  requestContext?: { requestId?: string; authorizer?: unknown } | null;
}): Record<string, string> => {
  const keys: Record<string, string> = {};
  const context = event.requestContext;
  if (context?.requestId) keys.requestId = context.requestId;
  const authorizer = context?.authorizer;
  if (typeof authorizer === "object" && authorizer !== null && "appId" in authorizer) {
    if (typeof authorizer.appId === "string") keys.appId = authorizer.appId;
  }
  if (event.path) keys.path = event.path;
  return keys;
};

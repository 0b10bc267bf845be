/**
 * Middy middleware shared by the HTTP handlers: errors become `{ error, detail }` JSON, shown
 * to the caller under 500 and hidden above it (as middy's http-error-handler does).
 */
import middy, { type MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { logger, requestKeys } from "../logging/logger.ts";
import { toErrorResponse } from "./errors.ts";

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string | NodeJS.ReadableStream;
}

export const jsonResponse = (statusCode: number, body: unknown): HttpResponse => ({
  statusCode,
  headers: { "content-type": "application/json; charset=utf-8" },
  body: JSON.stringify(body),
});

export const errorResponses = (): MiddlewareObj<APIGatewayProxyEvent, HttpResponse> => ({
  onError: async (request) => {
    const { statusCode, body, headers } = toErrorResponse(request.error);
    if (statusCode >= 500) {
      // Logged for the operator with the request id, never returned to the caller.
      logger.error("request failed", { ...requestKeys(request.event), error: request.error });
    }
    const response = jsonResponse(statusCode, body);
    request.response = { ...response, headers: { ...response.headers, ...headers } };
  },
});

/** A route's middy chain: its errors answered as `errorResponses` says, then one call. */
export const httpRoute = (handle: (event: APIGatewayProxyEvent) => Promise<HttpResponse>) =>
  middy<APIGatewayProxyEvent, HttpResponse>().use(errorResponses()).handler(handle);

/** Request headers by lower-case name: HTTP names are case-insensitive, API Gateway's keys not. */
export const lowerCaseHeaders = (
  headers: APIGatewayProxyEvent["headers"] | null | undefined,
): Record<string, string | undefined> =>
  Object.fromEntries(
    Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );

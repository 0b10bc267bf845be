/**
 * Errors API Gateway answers itself (before or instead of a handler) in the service's one error
 * shape, `{"error":"<status name>","detail":"<message>"}`, with names and the 500 detail taken
 * from src/http/errors.ts so that gateway and handlers speak alike.
 *
 * Gateway response templates are not VTL, only variable substitution, so each response type
 * gets its status and name spelled out here; DEFAULT_4XX and DEFAULT_5XX catch the rest.
 */
import { ResponseType, type RestApi } from "aws-cdk-lib/aws-apigateway";
import { UnauthorizedError } from "../src/domain/errors.ts";
import { INTERNAL_ERROR_DETAIL, statusName } from "../src/http/errors.ts";

/** Use API Gateway's own message (already a quoted JSON string) as the detail. */
const GATEWAY_MESSAGE = Symbol("gateway message");

interface GatewayError {
  readonly type: ResponseType;
  readonly status: number;
  readonly detail: string | typeof GATEWAY_MESSAGE;
}

const UNAUTHORIZED_DETAIL = new UnauthorizedError().message;

export const GATEWAY_ERRORS: readonly GatewayError[] = [
  { type: ResponseType.UNAUTHORIZED, status: 401, detail: UNAUTHORIZED_DETAIL },
  // The authorizer denies a key that lacks the route's scope; the spec answers that with 401.
  { type: ResponseType.ACCESS_DENIED, status: 401, detail: UNAUTHORIZED_DETAIL },
  // API Gateway's answer to a method or path that does not exist.
  {
    type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
    status: 404,
    detail: "No endpoint matches this method and path.",
  },
  { type: ResponseType.RESOURCE_NOT_FOUND, status: 404, detail: GATEWAY_MESSAGE },
  { type: ResponseType.BAD_REQUEST_PARAMETERS, status: 400, detail: GATEWAY_MESSAGE },
  { type: ResponseType.BAD_REQUEST_BODY, status: 400, detail: GATEWAY_MESSAGE },
  { type: ResponseType.REQUEST_TOO_LARGE, status: 413, detail: GATEWAY_MESSAGE },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, status: 415, detail: GATEWAY_MESSAGE },
  { type: ResponseType.THROTTLED, status: 429, detail: "Too many requests. Retry later." },
  { type: ResponseType.QUOTA_EXCEEDED, status: 429, detail: "Request quota exceeded." },
  { type: ResponseType.WAF_FILTERED, status: 403, detail: GATEWAY_MESSAGE },
  { type: ResponseType.EXPIRED_TOKEN, status: 403, detail: GATEWAY_MESSAGE },
  { type: ResponseType.INVALID_SIGNATURE, status: 403, detail: GATEWAY_MESSAGE },
  { type: ResponseType.INVALID_API_KEY, status: 403, detail: GATEWAY_MESSAGE },
  { type: ResponseType.DEFAULT_4XX, status: 400, detail: GATEWAY_MESSAGE },
  // Every 5XX (authorizer failure, integration timeout, ...) is the spec's plain 500, and never
  // shows API Gateway's message, which can name internals.
  { type: ResponseType.AUTHORIZER_FAILURE, status: 500, detail: INTERNAL_ERROR_DETAIL },
  {
    type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR,
    status: 500,
    detail: INTERNAL_ERROR_DETAIL,
  },
  { type: ResponseType.API_CONFIGURATION_ERROR, status: 500, detail: INTERNAL_ERROR_DETAIL },
  { type: ResponseType.INTEGRATION_FAILURE, status: 500, detail: INTERNAL_ERROR_DETAIL },
  { type: ResponseType.INTEGRATION_TIMEOUT, status: 500, detail: INTERNAL_ERROR_DETAIL },
  { type: ResponseType.DEFAULT_5XX, status: 500, detail: INTERNAL_ERROR_DETAIL },
];

export const errorTemplate = (error: GatewayError): string => {
  const detail =
    error.detail === GATEWAY_MESSAGE
      ? "$context.error.messageString"
      : JSON.stringify(error.detail);
  return `{"error":${JSON.stringify(statusName(error.status))},"detail":${detail}}`;
};

export const addGatewayErrors = (api: RestApi): void => {
  for (const error of GATEWAY_ERRORS) {
    api.addGatewayResponse(`${error.type.responseType}Response`, {
      type: error.type,
      statusCode: String(error.status),
      templates: { "application/json": errorTemplate(error) },
    });
  }
};

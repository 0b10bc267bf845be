/**
 * Errors API Gateway answers itself (before or instead of a handler) in the service's one error
 * shape, `{"error":"<status name>","detail":"<message>"}`, with the details the embedded gateway
 * also gives (src/http/gateway-errors.ts), so both runtimes and the handlers speak alike.
 *
 * Gateway response templates are not VTL, only variable substitution, so each response type
 * gets its status and name spelled out here; DEFAULT_4XX and DEFAULT_5XX catch the rest.
 */
import { type GatewayResponse, ResponseType, type RestApi } from "aws-cdk-lib/aws-apigateway";
import { statusName } from "../src/http/errors.ts";
import { GATEWAY_ERRORS } from "../src/http/gateway-errors.ts";

/** Use API Gateway's own message (already a quoted JSON string) as the detail. */
const GATEWAY_MESSAGE = Symbol("gateway message");

interface GatewayError {
  readonly type: ResponseType;
  readonly status: number;
  readonly detail: string | typeof GATEWAY_MESSAGE;
}

const { noRoute, unauthorized, throttled, quotaExceeded, internal } = GATEWAY_ERRORS;

export const GATEWAY_RESPONSES: readonly GatewayError[] = [
  { type: ResponseType.UNAUTHORIZED, ...unauthorized },
  // The authorizer denies a key that lacks the route's scope; the spec answers that with 401.
  { type: ResponseType.ACCESS_DENIED, ...unauthorized },
  // API Gateway's answer to a method or path that does not exist.
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, ...noRoute },
  { type: ResponseType.RESOURCE_NOT_FOUND, status: 404, detail: GATEWAY_MESSAGE },
  { type: ResponseType.BAD_REQUEST_PARAMETERS, status: 400, detail: GATEWAY_MESSAGE },
  { type: ResponseType.BAD_REQUEST_BODY, status: 400, detail: GATEWAY_MESSAGE },
  { type: ResponseType.REQUEST_TOO_LARGE, status: 413, detail: GATEWAY_MESSAGE },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, status: 415, detail: GATEWAY_MESSAGE },
  { type: ResponseType.THROTTLED, ...throttled },
  { type: ResponseType.QUOTA_EXCEEDED, ...quotaExceeded },
  { type: ResponseType.WAF_FILTERED, status: 403, detail: GATEWAY_MESSAGE },
  { type: ResponseType.EXPIRED_TOKEN, status: 403, detail: GATEWAY_MESSAGE },
  { type: ResponseType.INVALID_SIGNATURE, status: 403, detail: GATEWAY_MESSAGE },
  { type: ResponseType.INVALID_API_KEY, status: 403, detail: GATEWAY_MESSAGE },
  { type: ResponseType.DEFAULT_4XX, status: 400, detail: GATEWAY_MESSAGE },
  // Every 5XX (authorizer failure, integration timeout, ...) is the spec's plain 500, and never
  // shows API Gateway's message, which can name internals.
  { type: ResponseType.AUTHORIZER_FAILURE, ...internal },
  { type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR, ...internal },
  { type: ResponseType.API_CONFIGURATION_ERROR, ...internal },
  { type: ResponseType.INTEGRATION_FAILURE, ...internal },
  { type: ResponseType.INTEGRATION_TIMEOUT, ...internal },
  { type: ResponseType.DEFAULT_5XX, ...internal },
];

export const errorTemplate = (error: GatewayError): string => {
  const detail =
    error.detail === GATEWAY_MESSAGE
      ? "$context.error.messageString"
      : JSON.stringify(error.detail);
  return `{"error":${JSON.stringify(statusName(error.status))},"detail":${detail}}`;
};

/** The responses, made on the API; its deployment is hashed from them (lib/api.ts). */
export const addGatewayErrors = (api: RestApi): GatewayResponse[] =>
  GATEWAY_RESPONSES.map((error) =>
    api.addGatewayResponse(`${error.type.responseType}Response`, {
      type: error.type,
      statusCode: String(error.status),
      templates: { "application/json": errorTemplate(error) },
    }),
  );

/**
 * The one mapping of the service's typed errors (src/domain/errors.ts) to HTTP. Bodies are `{ error, detail }` everywhere, as the
 * spec sets for the export. Errors under 500 are shown to the caller; others never are.
 */
import { STATUS_CODES } from "node:http";
import { ServiceError, UnavailableError } from "../domain/errors.ts";

export interface ErrorBody {
  readonly error: string;
  readonly detail: string;
}

export const statusName = (statusCode: number): string =>
  STATUS_CODES[statusCode] ?? "Internal Server Error";

export const INTERNAL_ERROR_DETAIL = "An unexpected error occurred. Try again later.";

/**
 * The status, body and extra headers an error is shown as. Anything not typed is a 500 with no
 * internals; a typed refusal (under 500, or a 503 saying when to come back) shows its message.
 */
export const toErrorResponse = (
  error: unknown,
): { statusCode: number; body: ErrorBody; headers?: Record<string, string> } => {
  if (error instanceof UnavailableError) {
    return {
      statusCode: 503,
      body: { error: statusName(503), detail: error.message },
      headers: { "retry-after": String(error.retryAfterSeconds) },
    };
  }
  if (error instanceof ServiceError && error.statusCode < 500) {
    return {
      statusCode: error.statusCode,
      body: { error: statusName(error.statusCode), detail: error.message },
    };
  }
  return { statusCode: 500, body: { error: statusName(500), detail: INTERNAL_ERROR_DETAIL } };
};

/**
 * The one mapping of the service's typed errors (src/domain/errors.ts) to HTTP. Bodies are `{ error, detail }` everywhere, as the
 * spec sets for the export. Errors under 500 are shown to the caller; others never are.
 */
import { STATUS_CODES } from "node:http";
import { ServiceError } from "../domain/errors.ts";

export interface ErrorBody {
  readonly error: string;
  readonly detail: string;
}

export const statusName = (statusCode: number): string =>
  STATUS_CODES[statusCode] ?? "Internal Server Error";

export const INTERNAL_ERROR_DETAIL = "An unexpected error occurred. Try again later.";

/** The status and body an error is shown as. Anything not typed is a 500 with no internals. */
export const toErrorResponse = (error: unknown): { statusCode: number; body: ErrorBody } => {
  if (error instanceof ServiceError && error.statusCode < 500) {
    return {
      statusCode: error.statusCode,
      body: { error: statusName(error.statusCode), detail: error.message },
    };
  }
  return { statusCode: 500, body: { error: statusName(500), detail: INTERNAL_ERROR_DETAIL } };
};

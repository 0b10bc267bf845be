/**
 * Typed errors and their one mapping to HTTP. Bodies are `{ error, detail }` everywhere, as the
 * spec sets for the export. Errors under 500 are shown to the caller; others never are.
 */
import { STATUS_CODES } from "node:http";

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends HttpError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message = "A valid API key is required in the Authorization header.") {
    super(401, message);
  }
}

export class NotFoundError extends HttpError {
  constructor(message: string) {
    super(404, message);
  }
}

export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, message);
  }
}

export class ValidationError extends HttpError {
  constructor(message: string) {
    super(422, message);
  }
}

export interface ErrorBody {
  readonly error: string;
  readonly detail: string;
}

export const statusName = (statusCode: number): string =>
  STATUS_CODES[statusCode] ?? "Internal Server Error";

export const INTERNAL_ERROR_DETAIL = "An unexpected error occurred. Try again later.";

/** The status and body an error is shown as. Anything not typed is a 500 with no internals. */
export const toErrorResponse = (error: unknown): { statusCode: number; body: ErrorBody } => {
  if (error instanceof HttpError && error.statusCode < 500) {
    return {
      statusCode: error.statusCode,
      body: { error: statusName(error.statusCode), detail: error.message },
    };
  }
  return { statusCode: 500, body: { error: statusName(500), detail: INTERNAL_ERROR_DETAIL } };
};

export class PayloadTooLargeError extends HttpError {
  constructor(message: string) {
    super(413, message);
  }
}

/**
 * The service's typed errors. Each carries the HTTP status it is shown as, so the HTTP layer
 * maps them in one place (src/http/errors.ts); domain code throws them without knowing HTTP.
 */

export class ServiceError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends ServiceError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends ServiceError {
  // The gateway's one answer (API Gateway tells none of these apart), so it names each cause.
  constructor(
    message = "A valid API key with access to this endpoint is required in the Authorization header (or a dashboard session granted this app, with its X-CSRF-Token header on a change; a viewer's session changes nothing).",
  ) {
    super(401, message);
  }
}

export class NotFoundError extends ServiceError {
  constructor(message: string) {
    super(404, message);
  }
}

export class ConflictError extends ServiceError {
  constructor(message: string) {
    super(409, message);
  }
}

export class ValidationError extends ServiceError {
  constructor(message: string) {
    super(422, message);
  }
}

export class PayloadTooLargeError extends ServiceError {
  constructor(message: string) {
    super(413, message);
  }
}

/**
 * The service cannot take this request now but will later (a resource it budgets is spent):
 * shown as 503 with `Retry-After`, and with its message, which says what to wait for.
 */
export class UnavailableError extends ServiceError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(503, message);
  }
}

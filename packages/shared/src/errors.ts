/** One entry of SPEC's Error body. */
export interface ErrorItem {
  field: string;
  message: string;
  code: string;
}

/** SPEC's Error body: every error answer of every service has this shape. */
export interface ErrorBody {
  description: string;
  errors: ErrorItem[];
}

/**
 * Base of every error that should reach a client. `status` is the HTTP status and
 * `code` a stable machine-readable string; `items` name the offending fields.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly items: ErrorItem[];
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, description: string, items: ErrorItem[] = [], headers: Record<string, string> = {}) {
    super(description);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.items = items.length > 0 ? items : [{ field: '', message: description, code }];
    this.headers = headers;
  }

  toBody(): ErrorBody {
    return { description: this.message, errors: this.items };
  }
}

export class BadRequestError extends AppError {
  constructor(description = 'Bad request', items: ErrorItem[] = [], code = 'bad_request') {
    super(400, code, description, items);
  }
}

export class ValidationError extends AppError {
  constructor(description = 'Validation failed', items: ErrorItem[] = []) {
    super(422, 'validation_failed', description, items);
  }

  /** Shorthand for a single offending field. */
  static field(field: string, message: string, code = 'invalid'): ValidationError {
    return new ValidationError(`${field} ${message}`, [{ field, message, code }]);
  }
}

export class UnauthorizedError extends AppError {
  constructor(description = 'You need a valid api_access_token to do this', code = 'unauthorized') {
    super(401, code, description);
  }
}

export class ForbiddenError extends AppError {
  constructor(description = 'You are not authorized to do this action', code = 'forbidden') {
    super(403, code, description);
  }
}

export class NotFoundError extends AppError {
  constructor(resource = 'Resource', field = '') {
    super(404, 'not_found', `${resource} could not be found`, [{ field, message: `${resource} could not be found`, code: 'not_found' }]);
  }
}

export class ConflictError extends AppError {
  constructor(field: string, message = 'has already been taken') {
    super(409, 'conflict', `${field} ${message}`, [{ field, message, code: 'taken' }]);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(description = 'Request body is too large') {
    super(413, 'payload_too_large', description);
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, 'rate_limited', 'Too many requests, retry later', [], { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

export class UnavailableError extends AppError {
  constructor(description = 'Service temporarily unavailable') {
    super(503, 'unavailable', description);
  }
}

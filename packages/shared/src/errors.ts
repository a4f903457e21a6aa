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

/** Seconds a client is told to wait before retrying during an outage. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export class UnavailableError extends AppError {
  constructor(description = 'Service temporarily unavailable', retryAfterSeconds = UNAVAILABLE_RETRY_AFTER_SECONDS) {
    super(503, 'unavailable', description, [], { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** Postgres SQLSTATEs of a server that is away or refusing work for now (not of a bad query). */
const PG_OUTAGE = /^(08\d{3}|08P01|57P0[1-4]|53300)$/;
/** Socket errors of a dependency that cannot be reached. */
const NET_OUTAGE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);
/**
 * What pg, pg-pool, amqplib and ioredis say when the server is away, in words rather than
 * codes: a terminated connection, a pool that could not connect in time, a closed channel,
 * a Redis command refused while disconnected.
 */
const OUTAGE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|the database system is (starting up|shutting down|in recovery)|Channel (closed|ended)|Connection closed|Connection is closed|enableOfflineQueue|max retries per request|Socket closed unexpectedly/i;

/**
 * True when `err` says a dependency (Postgres, RabbitMQ, Redis, a socket to a peer) is
 * unreachable rather than that the request or the code is wrong: such a failure is an
 * outage, answered `503 unavailable` with `Retry-After`, and a consumer retries it without
 * counting an attempt. Looks through `cause` and AggregateError's `errors` (Node's
 * happy-eyeballs connect reports ECONNREFUSED per address).
 */
export function isOutageError(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (PG_OUTAGE.test(e.code) || NET_OUTAGE.has(e.code))) return true;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  if (typeof e.message === 'string' && OUTAGE_MESSAGE.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isOutageError(x, depth + 1))) return true;
  return isOutageError(e.cause, depth + 1);
}

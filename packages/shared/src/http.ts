import { randomUUID } from 'node:crypto';
import http from 'node:http';
import express, { type ErrorRequestHandler, type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import qs from 'qs';
import { z, ZodError } from 'zod';
import type { Logger } from './logger';
import { AppError, BadRequestError, ForbiddenError, isOutageError, NotFoundError, UnauthorizedError, UnavailableError, ValidationError, type ErrorItem } from './errors';
import { verifyContext, type RequestContext, type Role } from './context';
import { routeLabel, type ServiceMetrics } from './metrics';
import { serverSpan, tracingEnabled } from './tracing';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      ctx: RequestContext;
      log: Logger;
      requestId: string;
    }
  }
}

export function zodIssuesToItems(error: ZodError): ErrorItem[] {
  return error.issues.map((issue) => ({
    field: issue.path.map(String).join('.'),
    message: issue.message,
    code: issue.code,
  }));
}

function describe(items: ErrorItem[], fallback: string): string {
  const first = items[0];
  if (!first) return fallback;
  const more = items.length > 1 ? ` (and ${items.length - 1} more)` : '';
  return `${first.field ? `${first.field}: ` : ''}${first.message}${more}`;
}

/** Parses a request body; failures are 422 with each offending field named. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const r = schema.safeParse(body ?? {});
  if (!r.success) {
    const items = zodIssuesToItems(r.error);
    throw new ValidationError(describe(items, 'Validation failed'), items);
  }
  return r.data;
}

/** Parses query parameters; failures are 400 (SPEC: a bad list query is a bad request). */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
  const r = schema.safeParse(query ?? {});
  if (!r.success) {
    const items = zodIssuesToItems(r.error).map((i) => ({ ...i, code: i.code === 'unrecognized_keys' ? 'unknown_parameter' : 'invalid_parameter' }));
    throw new BadRequestError(describe(items, 'Invalid query parameters'), items, 'invalid_parameter');
  }
  return r.data;
}

/** A positive integer path parameter; anything else names no record, so 404. */
export function idParam(req: Request, name: string, resource = 'Resource'): number {
  const raw = req.params[name];
  if (typeof raw !== 'string' || !/^[0-9]{1,15}$/.test(raw)) throw new NotFoundError(resource, name);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0 || n > 2_147_483_647) throw new NotFoundError(resource, name);
  return n;
}

/** Query/body value that may arrive as `x`, `x[]`, or repeated: always an array of strings. */
export const stringList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v === '' ? [] : v.split(',').map((s) => s.trim()).filter(Boolean)));

/** Accepts `x=1` from a query string as a positive integer. */
export const queryInt = z.coerce.number().int().positive().max(2_147_483_647);

export function requestIdMiddleware(logger: Logger, metrics?: ServiceMetrics): RequestHandler {
  const histogram = metrics?.httpDuration;
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    req.requestId = id;
    req.log = logger.child({ requestId: id });
    res.setHeader('x-request-id', id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      histogram?.observe({ method: req.method, route: routeLabel(req), status: res.statusCode }, ms / 1000);
      // An outage (503) is the dependency's fault, said once where it is noticed; a probe is
      // the orchestrator's business (the health router logs its state changes).
      const level = res.locals['probe'] ? 'debug' : res.statusCode === 503 ? 'warn' : res.statusCode >= 500 ? 'error' : 'info';
      // The line's fields are built only when the level is on (LOG_LEVEL=warn: never, for a 2xx).
      if (req.log.isLevelEnabled(level)) req.log[level]({ method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}

/** Refuses any request that does not carry a context signed by the gateway (or a peer service). */
export function requireInternalContext(secret: string): RequestHandler {
  return (req, res, next) => {
    const ctx = verifyContext(req.headers, secret);
    if (!ctx) return next(new UnauthorizedError('Request did not come through the gateway', 'unauthorized'));
    req.ctx = ctx;
    // The trace goes on from the signed context (unless the http instrumentation already
    // continued it from the same trace's header).
    if (tracingEnabled()) return traced(req, res, ctx.traceparent, next);
    next();
  };
}

function traced(req: Request, res: Response, parent: string | undefined, next: NextFunction): void {
  const span = serverSpan(req.method, parent);
  if (!span) return next();
  res.once('finish', () => span.end(`${req.method} ${routeLabel(req)}`, { 'http.request.method': req.method, 'http.route': routeLabel(req), 'http.response.status_code': res.statusCode }, res.statusCode >= 500));
  span.run(next);
}

/**
 * At the edge (the gateway): a server span for each request, continuing a trace the client
 * sent in `traceparent`. Nothing at all when tracing is off.
 */
export function traceIncoming(): RequestHandler {
  return (req, res, next) => {
    if (!tracingEnabled()) return next();
    const header = req.headers['traceparent'];
    traced(req, res, typeof header === 'string' ? header : undefined, next);
  };
}

/**
 * For `/api/v1/accounts/:account_id/...`: the path's account must be the one the gateway
 * resolved. The gateway already checks membership; this keeps a service honest on its own.
 */
export const requireAccount: RequestHandler = (req, _res, next) => {
  const raw = req.params['account_id'];
  if (typeof raw !== 'string' || !/^[0-9]{1,10}$/.test(raw)) return next(new NotFoundError('Account', 'account_id'));
  if (req.ctx.accountId !== Number(raw)) return next(new ForbiddenError('You are not authorized to access this account'));
  next();
};

/** Only a user with one of these roles (bots and other actors are refused). */
export function requireRole(...roles: Role[]): RequestHandler {
  return (req, _res, next) => {
    if (req.ctx.actor.type !== 'user' || !req.ctx.role || !roles.includes(req.ctx.role)) {
      return next(new ForbiddenError('You are not authorized to do this action'));
    }
    next();
  };
}

export function accountIdOf(req: Request): number {
  const id = req.ctx.accountId;
  if (id === null) throw new ForbiddenError('This action needs an account');
  return id;
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Request bodies: JSON (malformed JSON is a 400 with the Error body; an empty body is `{}`).
 * Also what real clients send besides: form-encoded bodies as Rails reads them
 * (`contact[name]=x`), and JSON sent with curl's default form content type. Multipart is left
 * to the routes that take files. Any other body is a 415, never silently read as `{}`.
 */
export function jsonBody(limit = '1mb'): RequestHandler {
  const json = express.json({ limit, type: ['application/json', 'application/*+json'] });
  const form = express.text({ limit, type: 'application/x-www-form-urlencoded' });
  return (req, res, next) => {
    // No body at all (a GET, most DELETEs): what the parsers conclude too, without running them.
    if (req.headers['transfer-encoding'] === undefined && req.headers['content-length'] === undefined) {
      req.body ??= {};
      return next();
    }
    json(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (req.body !== undefined || !hasBody(req) || req.is('multipart/form-data')) {
        req.body ??= {};
        return next();
      }
      if (!req.is('application/x-www-form-urlencoded')) {
        return next(new AppError(415, 'unsupported_media_type', 'Send the body as JSON (content-type: application/json)', [{ field: 'content-type', message: 'is not supported', code: 'unsupported_media_type' }]));
      }
      form(req, res, (formErr?: unknown) => {
        if (formErr) return next(formErr);
        const text = typeof req.body === 'string' ? req.body.trim() : '';
        if (text.startsWith('{') || text.startsWith('[')) {
          try {
            req.body = JSON.parse(text);
          } catch {
            return next(new BadRequestError('Malformed JSON in request body', [{ field: 'body', message: 'is not valid JSON', code: 'malformed_json' }], 'malformed_json'));
          }
        } else {
          req.body = qs.parse(text, { depth: 5, arrayLimit: 100, parameterLimit: 1000 });
        }
        next();
      });
    });
  };
}

/** The 404 for a path no route serves (`route_not_found`), the same from the gateway and every service. */
export function routeNotFound(req: Request): AppError {
  const p = (req.originalUrl || req.path).split('?')[0];
  return new AppError(404, 'not_found', `No route for ${req.method} ${p}`, [{ field: '', message: 'Route not found', code: 'route_not_found' }]);
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(routeNotFound(req));
};

interface PgLikeError {
  code?: string;
  constraint?: string;
  column?: string;
  detail?: string;
}

function fieldFromConstraint(constraint: string | undefined): string {
  if (!constraint) return '';
  const m = /__([a-z_]+)$/.exec(constraint);
  return m?.[1] ?? constraint;
}

/**
 * Maps anything thrown in a route to SPEC's Error body. A dependency that is away (Postgres,
 * RabbitMQ, Redis, a peer: see isOutageError) is 503 `unavailable` with Retry-After;
 * unexpected errors are logged and answered 500.
 */
export function errorMiddleware(): ErrorRequestHandler {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    let appError: AppError;
    const anyErr = err as { type?: string; status?: number; statusCode?: number } & PgLikeError;
    if (err instanceof AppError) {
      appError = err;
    } else if (err instanceof ZodError) {
      const items = zodIssuesToItems(err);
      appError = new ValidationError(describe(items, 'Validation failed'), items);
    } else if (anyErr?.type === 'entity.parse.failed') {
      appError = new BadRequestError('Malformed JSON in request body', [{ field: 'body', message: 'is not valid JSON', code: 'malformed_json' }], 'malformed_json');
    } else if (anyErr?.type === 'entity.too.large') {
      appError = new AppError(413, 'payload_too_large', 'Request body is too large');
    } else if (anyErr?.type === 'encoding.unsupported' || anyErr?.type === 'charset.unsupported') {
      appError = new AppError(415, 'unsupported_media_type', 'Unsupported body encoding');
    } else if (anyErr?.code === '23505') {
      const field = fieldFromConstraint(anyErr.constraint);
      appError = new AppError(409, 'conflict', `${field || 'value'} has already been taken`, [{ field, message: 'has already been taken', code: 'taken' }]);
    } else if (anyErr?.code === '23503') {
      const field = fieldFromConstraint(anyErr.constraint);
      appError = new ValidationError(`${field || 'reference'} does not exist`, [{ field, message: 'does not exist', code: 'not_found' }]);
    } else if (anyErr?.code === '22021' || anyErr?.code === '22P05') {
      // A NUL byte (or another character Postgres cannot store in text) in any input.
      appError = new ValidationError('A value contains a character that cannot be stored', [{ field: anyErr.column ?? '', message: 'contains an invalid character (such as NUL)', code: 'invalid_character' }]);
    } else if (anyErr?.code === '22P02' || anyErr?.code === '22003' || anyErr?.code === '22001' || anyErr?.code === '22007' || anyErr?.code === '22008') {
      appError = new ValidationError('A value is out of range or malformed', [{ field: anyErr.column ?? '', message: 'is out of range or malformed', code: 'invalid' }]);
    } else if (typeof anyErr?.status === 'number' && anyErr.status >= 400 && anyErr.status < 500) {
      appError = new AppError(anyErr.status, 'bad_request', err instanceof Error ? err.message : 'Bad request');
    } else if (isOutageError(err)) {
      req.log?.warn({ err: (err as Error).message, code: anyErr?.code }, 'dependency unavailable');
      appError = new UnavailableError('A service this request needs is unavailable, retry later');
    } else {
      req.log?.error({ err }, 'unhandled error');
      appError = new AppError(500, 'internal_error', 'Internal server error');
    }
    if (res.headersSent) return;
    for (const [k, v] of Object.entries(appError.headers)) res.setHeader(k, v);
    res.status(appError.status).json(appError.toBody());
  };
}

/**
 * An express app with the plumbing every service needs: request ids, JSON logs,
 * qs-style query parsing (`labels[]=a`), strict routing off (trailing slashes accepted), and
 * (given the service's metrics) the request histogram.
 */
export function createBaseApp(logger: Logger, metrics?: ServiceMetrics): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('trust proxy', true);
  app.use(requestIdMiddleware(logger, metrics));
  return app;
}

/**
 * The HTTP server of an express app whose requests and responses are born with the app's
 * prototypes (`app.request`, `app.response`). Express otherwise swaps the prototype of every
 * request and response as they enter the app (`Object.setPrototypeOf` in `app.handle`), which V8
 * makes costly there and for every later access to the two objects: about 60 µs of CPU a request
 * on the benchmark machine, more than the rest of express and the kernel's middleware together
 * (docs/architecture.md, Runtime). With the prototype already in place express's swap
 * changes nothing: same objects, same express, same behaviour.
 */
export function createAppServer(app: Express): http.Server {
  const { IncomingMessage, ServerResponse } = http;
  // Node's two are plain constructor functions, called on an object made with the app's
  // prototype (a `class` could not be: then the server is express's own, swap included).
  if ([IncomingMessage, ServerResponse].some((f) => /^class\b/.test(Function.prototype.toString.call(f)))) return http.createServer(app);
  function AppRequest(this: http.IncomingMessage, socket: import('node:net').Socket): void {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: http.ServerResponse, req: http.IncomingMessage, options?: unknown): void {
    (ServerResponse as unknown as (this: http.ServerResponse, req: http.IncomingMessage, options?: unknown) => void).call(this, req, options);
  }
  AppResponse.prototype = app.response;
  return http.createServer({ IncomingMessage: AppRequest as unknown as typeof IncomingMessage, ServerResponse: AppResponse as unknown as typeof ServerResponse }, app);
}

/** Finishes an app: 404 for unknown routes and the error middleware. */
export function finishApp(app: Express): Express {
  app.use(notFoundHandler);
  app.use(errorMiddleware());
  return app;
}

/**
 * Chatwoot wraps JSON params (`{"agent": {...}}`) and also reads them flat (Rails'
 * wrap_parameters): accept both, the wrapped object winning when it is present.
 * With `siblings`, keys beside the wrapper are kept too (the wrapped ones win), for
 * bodies that wrap the record but send other parameters flat, as Rails forms do
 * (`contact[name]=..&inbox_id=..`).
 */
export function unwrap(body: unknown, key: string, opts: { siblings?: boolean } = {}): unknown {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    const inner = b[key];
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
      if (!opts.siblings) return inner;
      const rest = { ...b };
      delete rest[key];
      return { ...rest, ...(inner as Record<string, unknown>) };
    }
  }
  return body;
}

import { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { RequestContext, Role } from './context';
import { NotFoundError } from './errors';
import { accountIdOf, parseBody, parseQuery, requireAccount, requireRole, unwrap } from './http';
import type { HttpMethod, OperationSpec, ResponseSpec, SecurityScheme } from './openapi';

/**
 * The route kit: one `route({...})` call declares an HTTP operation (method, public path,
 * operationId, role, params, query, body, response, errors) and its handler. The same
 * declaration registers the express handler with parsed, typed input (`routesRouter`) and
 * describes the operation for the API document (`operationsOf`), so the two cannot drift.
 * Declarations are plain module-level values: the document is built from them without
 * starting anything (the handler gets the service's deps only when mounted).
 */

const MAX_ID = 2_147_483_647;
/** Paths below an account (the v1 API and the v2 reports). */
const ACCOUNT_PREFIX = /^\/api\/v[12]\/accounts\/\{account_id\}(\/|$)/;

/** A path parameter's schema parses the raw string; a failure means the path names no record (404). */
export type PathParamSchema<T = unknown> = z.ZodType<T, string>;
export type ParamsShape = Record<string, PathParamSchema>;

interface ParamInfo {
  resource: string;
  doc: z.ZodType;
}
const paramInfo = new WeakMap<z.ZodType, ParamInfo>();

/**
 * A path parameter that names a record by numeric id: a positive 32-bit integer, documented as
 * one. Anything else answers 404 "<resource> could not be found" (what `idParam` did).
 */
export function pathId(resource: string, description?: string): PathParamSchema<number> {
  const schema = z
    .string()
    .regex(/^[0-9]{1,15}$/)
    .transform(Number)
    .pipe(z.number().int().positive().max(MAX_ID));
  const doc = z.number().int().min(1).max(MAX_ID);
  paramInfo.set(schema, { resource, doc: description ? doc.describe(description) : doc });
  return schema;
}

/** A path parameter kept as a string (slug, identifier, token); `schema` checks it and is what the document shows. A failure is a 404. */
export function pathParam<T = string>(resource: string, schema: PathParamSchema<T> = z.string() as unknown as PathParamSchema<T>): PathParamSchema<T> {
  paramInfo.set(schema, { resource, doc: schema });
  return schema;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler receives: every declared part parsed by its schema, and the request context. */
export interface RouteInput<P extends ParamsShape, Q, B> {
  params: { [K in keyof P]: z.output<P[K]> };
  /** The parsed query (`{}` when the route declares none: an undeclared query is ignored). */
  query: Q extends z.ZodType ? z.output<Q> : Record<string, never>;
  /** The parsed body (after `wrap`); undefined when the route declares none. */
  body: Out<B>;
  ctx: RequestContext;
  /** The account of the request context (403 when there is none). */
  readonly accountId: number;
  /** For what the declaration cannot say: uploaded files, streaming a download. */
  req: Request;
  res: Response;
}

export interface RouteSpec<D, P extends ParamsShape, Q extends z.ZodType | undefined, B extends z.ZodType | undefined> {
  /** Two methods (`['patch', 'put']`, Chatwoot's update twins) share one handler; the second gets `<operationId>Put` and `(PUT)`. */
  method: HttpMethod | readonly HttpMethod[];
  /** The public path in OpenAPI form: `/api/v1/accounts/{account_id}/conversations/{conversation_id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Schemes any one of which opens the operation (documentation; the gateway authenticates); `[]` for public routes. */
  security: SecurityScheme[];
  /** Only users with one of these roles (403 for anyone else, bots included). */
  role?: Role | readonly Role[];
  /** Every path parameter but `account_id`, by name (`pathId`, `pathParam`). A failure is 404. */
  params?: P;
  /** A failure is 400 `invalid_parameter` (`unknown_parameter` for a key the object does not allow). */
  query?: Q;
  /** A failure is 422 with one item per field. */
  body?: B;
  /**
   * The body schema as the deps configure it, when a setting changes what is valid (e.g. whether
   * a URL may be private); it must have `body`'s output type. `body` is then what the document shows.
   */
  bodyOf?: (deps: D) => NonNullable<B>;
  /**
   * Rails' wrap_parameters: the body may come as `{"<key>": {...}}` or flat (`unwrap`).
   * `siblings` keeps keys beside the wrapper too.
   */
  wrap?: string | { key: string; siblings: true };
  /** The body may be multipart/form-data: the middleware (from the deps) that parses it and its files. */
  multipart?: (deps: D) => RequestHandler;
  /** Middleware run before anything else (e.g. loading the record a path names, so a 404 comes before a 403). */
  use?: (deps: D) => RequestHandler | RequestHandler[];
  /** The 200 answer: a schema (described "OK") or a full response spec; omit for a body that is not JSON. */
  response?: z.ZodType | ResponseSpec;
  /** Error statuses besides those implied (the builder adds 401/403/404/400/413/422/429 as they apply). */
  errors?: number[];
  requestExample?: unknown;
  /** Answers with what it returns (sent as JSON), or sends the answer itself through `res` and returns nothing. */
  handler: (input: RouteInput<P, Q, B>, deps: D) => unknown;
}

/** A declared route, ready to be listed for the document and mounted with a service's deps. */
export interface Route<D> {
  readonly spec: RouteSpec<D, ParamsShape, z.ZodType | undefined, z.ZodType | undefined>;
}

function pathParamNamesOf(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

/**
 * The `route` function of one service, typed by the deps its handlers get:
 * `export const route = routeKit<AppDeps>();` then `route({ method, path, ..., handler })`.
 * Throws at declaration when the path's parameters and `params` disagree.
 */
export function routeKit<D>() {
  return function route<P extends ParamsShape = Record<never, never>, Q extends z.ZodType | undefined = undefined, B extends z.ZodType | undefined = undefined>(
    spec: RouteSpec<D, P, Q, B>,
  ): Route<D> {
    const declared = Object.keys(spec.params ?? {}).sort();
    const inPath = pathParamNamesOf(spec.path).filter((n) => n !== 'account_id').sort();
    if (declared.join() !== inPath.join()) {
      throw new Error(`route ${spec.operationId}: params [${declared.join(', ')}] do not match the path parameters [${inPath.join(', ')}] of ${spec.path}`);
    }
    return { spec: spec as unknown as Route<D>['spec'] };
  };
}

function methodsOf(spec: { method: HttpMethod | readonly HttpMethod[] }): HttpMethod[] {
  return (Array.isArray(spec.method) ? [...spec.method] : [spec.method]) as HttpMethod[];
}

function responseOf(response: z.ZodType | ResponseSpec | undefined): ResponseSpec {
  if (response === undefined) return { description: 'OK' };
  if (response instanceof z.ZodType) return { description: 'OK', schema: response };
  return response;
}

/** The operations the routes answer, for the API document (twins as two operations). */
export function operationsOf(routes: ReadonlyArray<Route<any>>): OperationSpec[] {
  return routes.flatMap(({ spec }) => {
    const params = spec.params && Object.keys(spec.params).length > 0
      ? z.object(Object.fromEntries(Object.entries(spec.params).map(([name, schema]) => [name, paramInfo.get(schema)?.doc ?? schema])))
      : undefined;
    return methodsOf(spec).map((method, i): OperationSpec => ({
      method,
      path: spec.path,
      operationId: i === 0 ? spec.operationId : `${spec.operationId}${method[0]!.toUpperCase()}${method.slice(1)}`,
      summary: i === 0 ? spec.summary : `${spec.summary} (${method.toUpperCase()})`,
      ...(spec.description ? { description: spec.description } : {}),
      tags: spec.tags,
      security: spec.security,
      ...(params ? { params } : {}),
      ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
      ...(spec.body ? { body: spec.body } : {}),
      ...(spec.multipart ? { multipart: true } : {}),
      responses: { 200: responseOf(spec.response) },
      ...(spec.errors ? { errors: spec.errors } : {}),
      ...(spec.requestExample !== undefined ? { requestExample: spec.requestExample } : {}),
    }));
  });
}

function parseParams(shape: ParamsShape | undefined, req: Request): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(shape ?? {})) {
    const r = schema.safeParse(req.params[name]);
    if (!r.success) throw new NotFoundError(paramInfo.get(schema)?.resource ?? 'Resource', name);
    out[name] = r.data;
  }
  return out;
}

/** OpenAPI path to express path: `{id}` -> `:id`. */
function expressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/**
 * An express router serving the routes with the deps, each in order: the account check
 * (`requireAccount`, for paths below `/api/v1/accounts/{account_id}`), `use`, role (403),
 * multipart, params (404), query (400), body (422), handler. `base` is the public prefix the
 * router is mounted at (OpenAPI form, e.g. `/api/v1/accounts/{account_id}`); every route's
 * path must start with it. Routes are registered in the order given (a literal segment such as
 * `/conversations/meta` goes before `/conversations/{conversation_id}`).
 */
export function routesRouter<D>(routes: ReadonlyArray<Route<D>>, deps: D, base = ''): Router {
  const router = Router({ mergeParams: true });
  for (const { spec } of routes) {
    if (!spec.path.startsWith(base)) throw new Error(`route ${spec.operationId}: ${spec.path} is not below ${base}`);
    const chain: RequestHandler[] = [];
    if (ACCOUNT_PREFIX.test(spec.path)) chain.push(requireAccount);
    if (spec.use) chain.push(...[spec.use(deps)].flat());
    if (spec.role) chain.push(requireRole(...(Array.isArray(spec.role) ? spec.role : [spec.role as Role])));
    if (spec.multipart) chain.push(spec.multipart(deps));
    const wrap = typeof spec.wrap === 'string' ? { key: spec.wrap, siblings: false } : spec.wrap;
    const bodySchema = spec.bodyOf ? spec.bodyOf(deps) : spec.body;
    chain.push(async (req, res) => {
      const params = parseParams(spec.params, req);
      const query = spec.query ? parseQuery(spec.query, req.query) : {};
      const body = bodySchema ? parseBody(bodySchema, wrap ? unwrap(req.body, wrap.key, { siblings: wrap.siblings }) : req.body) : undefined;
      const input: RouteInput<ParamsShape, z.ZodType | undefined, z.ZodType | undefined> = {
        params,
        query: query as never,
        body,
        ctx: req.ctx,
        get accountId() {
          return accountIdOf(req);
        },
        req,
        res,
      };
      const answer = await spec.handler(input, deps);
      if (res.headersSent) return;
      if (answer === undefined) throw new Error(`route ${spec.operationId} neither returned an answer nor sent one`);
      res.json(answer);
    });
    const path = expressPath(spec.path.slice(base.length)) || '/';
    for (const method of methodsOf(spec)) router[method](path, ...chain);
  }
  return router;
}

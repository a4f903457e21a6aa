import { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type SecurityScheme = 'userApiKey' | 'agentBotApiKey' | 'platformAppApiKey';

export interface ResponseSpec {
  description: string;
  /** The body the route answers with; omit for an empty body. */
  schema?: z.ZodType;
  example?: unknown;
  /** A body that is not JSON (a download): its media type, documented as text. */
  mediaType?: string;
}

/**
 * One HTTP operation as integrators see it through the gateway. Each service lists its
 * operations (in `src/openapi.ts`) with the same zod schemas its routes parse requests with
 * and shape answers by; the gateway merges them into `/openapi.json`.
 */
export interface OperationSpec {
  method: HttpMethod;
  /** Public path in OpenAPI form: `/api/v1/accounts/{account_id}/conversations/{conversation_id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Schemes any one of which opens the operation; `[]` for the public client API. */
  security: SecurityScheme[];
  /** Path parameters other than `account_id` (which every account route has). */
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The body may also come as multipart/form-data (messages with attachments, avatars). */
  multipart?: boolean;
  /** Success answers by status; error answers (Error body) are added for `errors`. */
  responses: Record<number, ResponseSpec>;
  /** Error statuses this operation can answer with (each with the Error body). */
  errors?: number[];
  requestExample?: unknown;
}

/** Identity helper so service files get type checking on their operation lists. */
export function defineOperations(ops: OperationSpec[]): OperationSpec[] {
  return ops;
}

// ---------------------------------------------------------------------------------------------
// The document builder: operation lists in, one OpenAPI 3.1 document out.

/** SPEC "Versioning": the document's own version. */
export const OPENAPI_DOCUMENT_VERSION = '1.1.0';

export type JsonSchema = Record<string, unknown>;

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Array<Record<string, string[]>>;
  parameters?: Array<Record<string, unknown>>;
  requestBody?: Record<string, unknown>;
  responses: Record<string, Record<string, unknown>>;
  /** The service that answers the operation. */
  'x-parley-service': string;
  /** The number of the operation under SPEC's "Endpoints", for the 15 SPEC lists. */
  'x-spec-operation'?: number;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  servers: Array<{ url: string; description?: string }>;
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Partial<Record<HttpMethod, OpenApiOperation>>>;
  components: {
    securitySchemes: Record<SecurityScheme, Record<string, unknown>>;
    schemas: Record<string, JsonSchema>;
    responses: Record<string, Record<string, unknown>>;
  };
}

/** One service's operations as the gateway gathers them. */
export interface OperationSource {
  service: string;
  operations: OperationSpec[];
  /** Error statuses every operation of this source can answer besides its own (503/504 behind the proxy). */
  errors?: number[];
}

export interface OpenApiDocumentOptions {
  title?: string;
  /** Markdown shown at the top of the rendered docs. */
  description?: string;
  servers?: Array<{ url: string; description?: string }>;
  /** Tag descriptions, in the order the docs list them; tags used but not named here follow, sorted. */
  tags?: Array<{ name: string; description?: string }>;
}

const METHOD_ORDER: HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

const ERROR_RESPONSES: Record<number, { name: string; description: string; code: string; message: string; field?: string }> = {
  400: { name: 'BadRequest', description: 'Bad request: malformed JSON body or invalid query parameters', code: 'invalid_parameter', message: 'is invalid', field: 'page' },
  401: { name: 'Unauthorized', description: 'Missing or unknown `api_access_token`', code: 'invalid_token', message: 'Invalid Access Token' },
  403: { name: 'Forbidden', description: 'A known token without the right: role, account membership, bot endpoint or inactive account', code: 'forbidden', message: 'You are not authorized to do this action' },
  404: { name: 'NotFound', description: 'No such record in this account (another tenant\'s records are not found either)', code: 'not_found', message: 'Resource could not be found' },
  409: { name: 'Conflict', description: 'A unique value is already taken', code: 'taken', message: 'has already been taken', field: 'name' },
  413: { name: 'PayloadTooLarge', description: 'The request body is too large', code: 'payload_too_large', message: 'Request body is too large' },
  415: { name: 'UnsupportedMediaType', description: 'The body encoding is not supported', code: 'unsupported_media_type', message: 'Unsupported body encoding' },
  426: { name: 'UpgradeRequired', description: 'A WebSocket endpoint asked without the upgrade', code: 'upgrade_required', message: 'Upgrade to a WebSocket' },
  422: { name: 'UnprocessableEntity', description: 'Validation failed: one item per offending field', code: 'invalid_type', message: 'Invalid input: expected string, received number', field: 'name' },
  429: { name: 'TooManyRequests', description: 'Rate limited (per client IP and per token); retry after `Retry-After` seconds', code: 'rate_limited', message: 'Too many requests' },
  500: { name: 'InternalError', description: 'Unexpected server error', code: 'internal_error', message: 'Internal server error' },
  502: { name: 'BadGateway', description: 'The owning service answered badly', code: 'bad_gateway', message: 'Bad gateway' },
  503: { name: 'ServiceUnavailable', description: 'The owning service is unavailable', code: 'unavailable', message: 'Service unavailable' },
  504: { name: 'GatewayTimeout', description: 'The owning service did not answer in time', code: 'timeout', message: 'Gateway timeout' },
};

function errorResponseName(status: number): string {
  return ERROR_RESPONSES[status]?.name ?? `Error${status}`;
}

function errorResponse(status: number): Record<string, unknown> {
  const known = ERROR_RESPONSES[status];
  const description = known?.description ?? `Error ${status}`;
  const item = { field: known?.field ?? '', message: known?.message ?? description, code: known?.code ?? `error_${status}` };
  const response: Record<string, unknown> = {
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { description: item.field ? `${item.field} ${item.message}` : item.message, errors: [item] } } },
  };
  if (status === 429) response['headers'] = { 'Retry-After': { description: 'Seconds until the limit resets', schema: { type: 'integer' } } };
  return response;
}

/** SPEC's Error body. */
const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Every error answer has this body.',
  properties: {
    description: { type: 'string', description: 'Human-readable summary' },
    errors: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          field: { type: 'string', description: 'The offending field (dotted path), or empty' },
          message: { type: 'string' },
          code: { type: 'string', description: 'Stable machine-readable code, e.g. `validation_failed`, `not_found`' },
        },
        required: ['field', 'message', 'code'],
        additionalProperties: false,
      },
    },
  },
  required: ['description', 'errors'],
  additionalProperties: false,
};

const SECURITY_SCHEMES: OpenApiDocument['components']['securitySchemes'] = {
  userApiKey: { type: 'apiKey', in: 'header', name: 'api_access_token', description: "A user's access token (profile page, or saved when the user was created through the Platform API). Acts for that user, with the user's role in the account." },
  agentBotApiKey: { type: 'apiKey', in: 'header', name: 'api_access_token', description: "An agent bot's access token; opens only the operations bots may call." },
  platformAppApiKey: { type: 'apiKey', in: 'header', name: 'api_access_token', description: 'The platform app token (`PLATFORM_API_TOKEN`); opens the Platform API (`/platform/api/v1`) only.' },
};

/**
 * Error statuses an operation can answer because of what it is, whatever its own list says:
 * every request passes the gateway's rate limit (429); a credential can be missing or lack
 * the right (401, 403); a path parameter can name nothing (404); a body can be malformed,
 * too large or invalid (400, 413, 422); a query can be invalid (400).
 */
export function impliedErrorStatuses(op: OperationSpec): number[] {
  const s = new Set<number>([429]);
  if (op.security.length > 0) [401, 403].forEach((x) => s.add(x));
  if (/\{[^}]+\}/.test(op.path)) s.add(404);
  if (op.body || op.multipart) [400, 413, 422].forEach((x) => s.add(x));
  if (op.query || op.method === 'post' || op.method === 'put' || op.method === 'patch') s.add(400);
  return [...s];
}

/** Path parameter names in template order: `/a/{x}/b/{y}` -> `['x', 'y']`. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

type Io = 'input' | 'output';

/**
 * zod -> JSON Schema 2020-12 (what OpenAPI 3.1 uses), with the `$defs` zod emits for schemas
 * that carry a registry id (`.meta({ id })`) or recurse hoisted into `components.schemas`,
 * so the same shape is one named component. Requests are converted as input (defaults
 * optional, unknown keys allowed), responses as output (what the route actually sends).
 */
class SchemaConverter {
  /** Seeded with SPEC's Error body, so a service schema claiming that name is caught. */
  readonly schemas: Record<string, JsonSchema> = { Error: ERROR_SCHEMA };
  private readonly outputShapes = new Map<string, string>();

  constructor(private readonly problems: string[]) {}

  convert(schema: z.ZodType, io: Io, context: string): JsonSchema {
    let json: JsonSchema;
    try {
      json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
    } catch (err) {
      this.problems.push(`${context}: cannot convert schema to JSON Schema (${(err as Error).message})`);
      return {};
    }
    const { $schema: _ignored, $defs, ...root } = json;
    const defs = ($defs ?? {}) as Record<string, JsonSchema>;
    const names = new Map<string, string>();
    for (const key of Object.keys(defs)) names.set(key, this.nameFor(key, io, context, defs[key] as JsonSchema));
    const selfRef = JSON.stringify(root).includes('"$ref":"#"');
    const rootName = selfRef ? this.anonymousName(context, io, 'self') : '';
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (node === null || typeof node !== 'object') return node;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
        if (k === '$ref' && typeof v === 'string') {
          if (v === '#') out[k] = `#/components/schemas/${rootName}`;
          else if (v.startsWith('#/$defs/')) out[k] = `#/components/schemas/${names.get(v.slice('#/$defs/'.length)) ?? v}`;
          else out[k] = v;
        } else out[k] = rewrite(v);
      }
      return out;
    };
    for (const [key, def] of Object.entries(defs)) this.register(names.get(key) as string, rewrite(def) as JsonSchema, io, key, context);
    const rewritten = rewrite(root) as JsonSchema;
    if (!selfRef) return rewritten;
    this.register(rootName, rewritten, io, rootName, context);
    return { $ref: `#/components/schemas/${rootName}` };
  }

  private anonymousName(context: string, io: Io, key: string): string {
    const base = context.replace(/[^A-Za-z0-9]+/g, '_');
    return `${base}_${io}_${key.replace(/[^A-Za-z0-9]+/g, '')}`;
  }

  private nameFor(key: string, io: Io, context: string, def: JsonSchema): string {
    if (key.startsWith('__')) return this.anonymousName(context, io, key);
    if (io === 'output') return key;
    // An input shape shares the output's name when both are the same JSON Schema.
    const out = this.outputShapes.get(key);
    if (out === undefined && !(key in this.schemas)) return key;
    return out === JSON.stringify(def) ? key : `${key}Input`;
  }

  private register(name: string, def: JsonSchema, io: Io, key: string, context: string): void {
    const text = JSON.stringify(def);
    if (io === 'output') this.outputShapes.set(key, text);
    const existing = this.schemas[name];
    if (existing === undefined) {
      this.schemas[name] = def;
    } else if (JSON.stringify(existing) !== text) {
      this.problems.push(`${context}: two different schemas share the registry id "${key}" (component ${name}); give them distinct ids`);
    }
  }
}

function withExample<T extends Record<string, unknown>>(media: T, example: unknown): T {
  return example === undefined ? media : { ...media, example };
}

function objectProperties(json: JsonSchema): { properties: Record<string, JsonSchema>; required: string[] } | null {
  if (json['type'] !== 'object' || typeof json['properties'] !== 'object') return null;
  return { properties: json['properties'] as Record<string, JsonSchema>, required: (json['required'] as string[] | undefined) ?? [] };
}

/** Lifts a property's description and examples to the parameter, where renderers show them. */
function parameter(name: string, where: 'path' | 'query', required: boolean, schema: JsonSchema): Record<string, unknown> {
  const p: Record<string, unknown> = { name, in: where, required, schema };
  if (typeof schema['description'] === 'string') p['description'] = schema['description'];
  const examples = schema['examples'];
  if (Array.isArray(examples) && examples.length > 0) p['example'] = examples[0];
  else if (schema['example'] !== undefined) p['example'] = schema['example'];
  if (where === 'query' && JSON.stringify(schema).includes('"type":"array"')) {
    p['style'] = 'form';
    p['explode'] = true;
  }
  return p;
}

const ACCOUNT_ID_SCHEMA: JsonSchema = { type: 'integer', minimum: 1, description: 'Numeric id of the account' };

/**
 * Builds the OpenAPI 3.1.0 document from the services' operation lists. Throws one error
 * naming every problem found (duplicate operation ids or method+path pairs, path
 * parameters without a template slot, an operation without a summary or a tag, schemas
 * that cannot be converted or clash).
 */
export function buildOpenApiDocument(sources: OperationSource[], options: OpenApiDocumentOptions = {}): OpenApiDocument {
  const problems: string[] = [];
  const converter = new SchemaConverter(problems);
  const all = sources.flatMap((s) => s.operations.map((op) => ({ op, source: s })));
  const seenIds = new Map<string, string>();
  const seenRoutes = new Map<string, string>();
  for (const { op, source } of all) {
    const where = `${source.service} ${op.operationId}`;
    if (seenIds.has(op.operationId)) problems.push(`${where}: operationId also used by ${seenIds.get(op.operationId)}`);
    seenIds.set(op.operationId, where);
    const route = `${op.method.toUpperCase()} ${op.path}`;
    if (seenRoutes.has(route)) problems.push(`${where}: ${route} also documented by ${seenRoutes.get(route)}`);
    seenRoutes.set(route, where);
    if (!op.path.startsWith('/')) problems.push(`${where}: path "${op.path}" must start with /`);
    // A reader of the rendered docs finds an operation by its summary under its tag.
    if (typeof op.summary !== 'string' || op.summary.trim() === '') problems.push(`${where}: no summary`);
    if (!Array.isArray(op.tags) || op.tags.length === 0 || op.tags.some((t) => typeof t !== 'string' || t.trim() === '')) problems.push(`${where}: no tag (or a blank one)`);
    if (!METHOD_ORDER.includes(op.method)) problems.push(`${where}: unknown method ${op.method}`);
  }

  // Responses first, so a request schema identical to a response schema shares its component name.
  const responsesOf = new Map<OperationSpec, Record<string, Record<string, unknown>>>();
  for (const { op, source } of all) {
    const responses: Record<string, Record<string, unknown>> = {};
    for (const [status, spec] of Object.entries(op.responses)) {
      const r: Record<string, unknown> = { description: spec.description };
      if (spec.schema) r['content'] = { 'application/json': withExample({ schema: converter.convert(spec.schema, 'output', `${op.operationId} ${status}`) }, spec.example) };
      else if (spec.mediaType) r['content'] = { [spec.mediaType]: withExample({ schema: { type: 'string' } }, spec.example) };
      responses[status] = r;
    }
    for (const status of new Set([...(op.errors ?? []), ...(source.errors ?? []), ...impliedErrorStatuses(op)])) {
      if (!(String(status) in responses)) responses[String(status)] = { $ref: `#/components/responses/${errorResponseName(status)}` };
    }
    responsesOf.set(op, Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))));
  }

  const errorStatuses = new Set<number>();
  const paths: OpenApiDocument['paths'] = {};
  for (const { op, source } of all) {
    const ctx = op.operationId;
    const parameters: Array<Record<string, unknown>> = [];
    const templateNames = pathParamNames(op.path);
    const params = op.params ? objectProperties(converter.convert(op.params, 'input', `${ctx} params`)) : null;
    if (op.params && !params) problems.push(`${ctx}: params must be a z.object`);
    for (const name of templateNames) {
      const schema = params?.properties[name] ?? (name === 'account_id' ? ACCOUNT_ID_SCHEMA : { type: 'string' });
      parameters.push(parameter(name, 'path', true, schema));
    }
    for (const name of Object.keys(params?.properties ?? {})) {
      if (!templateNames.includes(name)) problems.push(`${ctx}: path parameter "${name}" is not in the path ${op.path}`);
    }
    if (op.query) {
      const query = objectProperties(converter.convert(op.query, 'input', `${ctx} query`));
      if (!query) problems.push(`${ctx}: query must be a z.object`);
      for (const [name, schema] of Object.entries(query?.properties ?? {})) parameters.push(parameter(name, 'query', query?.required.includes(name) ?? false, schema));
    }
    const operation: OpenApiOperation = {
      operationId: op.operationId,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: op.tags,
      security: op.security.map((s) => ({ [s]: [] })),
      ...(parameters.length > 0 ? { parameters } : {}),
      responses: responsesOf.get(op) ?? {},
      'x-parley-service': source.service,
    };
    if (op.body || op.multipart) {
      const schema = op.body ? converter.convert(op.body, 'input', `${ctx} body`) : { type: 'object' };
      const content: Record<string, unknown> = { 'application/json': withExample({ schema }, op.requestExample) };
      if (op.multipart) content['multipart/form-data'] = { schema };
      const required = Array.isArray(schema['required']) && (schema['required'] as unknown[]).length > 0;
      operation.requestBody = { required, content };
    }
    for (const [status, r] of Object.entries(operation.responses)) {
      if (typeof r['$ref'] === 'string') errorStatuses.add(Number(status));
    }
    (paths[op.path] ??= {})[op.method] = operation;
  }
  if (problems.length > 0) throw new Error(`The OpenAPI document cannot be built:\n- ${problems.join('\n- ')}`);

  const sortedPaths: OpenApiDocument['paths'] = {};
  for (const p of Object.keys(paths).sort()) {
    const byMethod = paths[p] as Partial<Record<HttpMethod, OpenApiOperation>>;
    sortedPaths[p] = Object.fromEntries(METHOD_ORDER.filter((m) => byMethod[m]).map((m) => [m, byMethod[m]]));
  }
  const used = new Set(all.flatMap(({ op }) => op.tags));
  const named = (options.tags ?? []).filter((t) => used.has(t.name));
  const tags = [...named, ...[...used].filter((t) => !named.some((n) => n.name === t)).sort().map((name) => ({ name }))];
  const responses: Record<string, Record<string, unknown>> = {};
  for (const status of [...errorStatuses].sort((a, b) => a - b)) responses[errorResponseName(status)] = errorResponse(status);

  return {
    openapi: '3.1.0',
    info: { title: options.title ?? 'Parley API', version: OPENAPI_DOCUMENT_VERSION, ...(options.description ? { description: options.description } : {}) },
    servers: options.servers ?? [{ url: '/', description: 'The gateway serving this document' }],
    tags,
    paths: sortedPaths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: Object.fromEntries(Object.entries(converter.schemas).sort(([a], [b]) => (a === 'Error' ? -1 : b === 'Error' ? 1 : a.localeCompare(b)))),
      responses,
    },
  };
}

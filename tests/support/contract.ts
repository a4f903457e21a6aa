import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { HttpMethod, OpenApiDocument, OpenApiOperation } from '@parley/shared';
import fs from 'node:fs';
import { DOCUMENT_FILES } from '@parley/openapi';

/**
 * Contract checks: every answer the gateway gives in the integration tests must be one the
 * OpenAPI document promises (a documented status for that operation, and a body that
 * conforms to that status's schema). The document is the one the gateway serves, the
 * committed packages/openapi/openapi.json (a test keeps it equal to the code); the validators are compiled lazily, once per operation
 * and status, and kept for the rest of the test file (jest gives every test file its own
 * module registry, so "once per worker" is once per file here).
 */

const DOC_ID = 'https://parley.invalid/openapi.json';

interface Route {
  method: HttpMethod;
  template: string;
  regex: RegExp;
  literalSegments: number;
  operation: OpenApiOperation;
}

interface State {
  doc: OpenApiDocument;
  ajv: Ajv2020;
  routes: Route[];
  validators: Map<string, ValidateFunction>;
}

let state: State | null = null;

function load(): State {
  if (state) return state;
  const doc = JSON.parse(fs.readFileSync(DOCUMENT_FILES.json, 'utf8')) as OpenApiDocument;
  // strict: false because the document carries OpenAPI keywords (example, x-*) that are
  // not JSON Schema; formats are checked (zod emits email, uri, date-time, uuid).
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: DOC_ID } as object);
  const routes: Route[] = [];
  for (const [template, byMethod] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(byMethod)) {
      const segments = template.split('/');
      const source = segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/');
      routes.push({
        method: method as HttpMethod,
        template,
        regex: new RegExp(`^${source}$`),
        literalSegments: segments.filter((s) => !s.startsWith('{')).length,
        operation: operation as OpenApiOperation,
      });
    }
  }
  // Most literal first: `/conversations/meta` wins over `/conversations/{id}`.
  routes.sort((a, b) => b.literalSegments - a.literalSegments);
  state = { doc, ajv, routes, validators: new Map() };
  return state;
}

/** The document the checks use (the one the gateway serves). */
export function contractDocument(): OpenApiDocument {
  return load().doc;
}

/** The documented operation a request lands on, or null when the document has none. */
export function findOperation(method: string, rawPath: string): { template: string; operation: OpenApiOperation } | null {
  const { routes } = load();
  let path = rawPath.split('?')[0] ?? '';
  if (path.length > 1) path = path.replace(/\/+$/, '');
  const m = method.toLowerCase();
  const hit = routes.find((r) => r.method === m && r.regex.test(path));
  return hit ? { template: hit.template, operation: hit.operation } : null;
}

function pointer(parts: string[]): string {
  return '#/' + parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
}

function validatorFor(key: string, schemaPointer: string): ValidateFunction {
  const s = load();
  let v = s.validators.get(key);
  if (!v) {
    v = s.ajv.compile({ $ref: DOC_ID + schemaPointer });
    s.validators.set(key, v);
  }
  return v;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  const all = errors ?? [];
  const shown = all.slice(0, 20).map((e) => {
    const where = e.instancePath || '(body)';
    const extra = e.keyword === 'additionalProperties' ? ` "${(e.params as { additionalProperty?: string }).additionalProperty}"` : e.keyword === 'enum' ? ` ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)}` : '';
    return `${where}: ${e.message}${extra}`;
  });
  return all.length > shown.length ? [...shown, `(and ${all.length - shown.length} more)`] : shown;
}

export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  text: string;
  body: unknown;
  contentType: string | null;
}

/**
 * What is wrong with this answer according to the document: [] when it conforms, null when
 * the document has no operation for the request and the answer is not an error (such routes
 * are the coverage test's job; an error answer must still be the Error body).
 */
export function contractViolations(r: ObservedResponse): string[] | null {
  const found = findOperation(r.method, r.path);
  if (!found) return r.status >= 400 && r.method.toUpperCase() !== 'HEAD' ? errorBodyViolations(r) : null;
  const { doc } = load();
  const { template, operation } = found;
  const method = r.method.toLowerCase();
  const status = String(r.status);
  let response = operation.responses[status];
  if (!response) {
    return [`status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`];
  }
  let schemaParts = ['paths', template, method, 'responses', status];
  const ref = response['$ref'];
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/responses/', '');
    response = doc.components.responses[name] ?? {};
    schemaParts = ['components', 'responses', name];
  }
  const content = response['content'] as Record<string, unknown> | undefined;
  // A download documented with its media type (a CSV): the answer must carry that type.
  const other = Object.keys(content ?? {}).find((t) => t !== 'application/json');
  if (other && !content?.['application/json']) return r.contentType?.startsWith(other) ? [] : [`documented as ${other}, but content-type is ${r.contentType ?? 'missing'}`];
  const media = content?.['application/json'] as { schema?: unknown } | undefined;
  if (!media?.schema) {
    return r.text === '' ? [] : [`documented with an empty body, but the answer has one: ${r.text.slice(0, 300)}`];
  }
  if (!r.contentType?.includes('json')) return [`documented as application/json, but content-type is ${r.contentType ?? 'missing'}`];
  if (r.text === '') return ['documented with a JSON body, but the answer is empty'];
  const validate = validatorFor(`${method} ${template} ${status}`, pointer([...schemaParts, 'content', 'application/json', 'schema']));
  return validate(r.body) ? [] : describeErrors(validate.errors);
}

/**
 * Every error answer, documented route or not (an unknown path, a method the path does not
 * have), is SPEC's Error body (ARCHITECTURE, compatibility policy point 4).
 */
function errorBodyViolations(r: ObservedResponse): string[] {
  if (!r.contentType?.includes('json')) return [`error answer ${r.status} is not the Error body: content-type is ${r.contentType ?? 'missing'}`];
  if (r.text === '') return [`error answer ${r.status} is not the Error body: the answer is empty`];
  const validate = validatorFor('Error', pointer(['components', 'schemas', 'Error']));
  return validate(r.body) ? [] : describeErrors(validate.errors).map((e) => `error answer ${r.status} is not the Error body: ${e}`);
}

/** Throws (failing the calling test) when the answer breaks the document. */
export function assertContract(r: ObservedResponse): void {
  if (process.env['PARLEY_CONTRACT_CHECK'] === '0') return;
  const problems = contractViolations(r);
  if (!problems || problems.length === 0) return;
  const op = findOperation(r.method, r.path)?.operation;
  const body = r.text.length > 1500 ? `${r.text.slice(0, 1500)}...` : r.text;
  throw new Error(
    `Contract violation: ${r.method.toUpperCase()} ${r.path} answered ${r.status}, which does not match the OpenAPI document ` +
      `(operation ${op?.operationId}, service ${op?.['x-parley-service']}):\n  - ${problems.join('\n  - ')}\nbody: ${body}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Route coverage: what a service's express app really registers, read from its router.

/** Whether a base URL is a gateway (only a gateway's answers are checked), asked once per URL. */
const gateways = new Map<string, Promise<boolean>>();
function isGateway(baseUrl: string): Promise<boolean> {
  let known = gateways.get(baseUrl);
  if (!known) {
    known = fetch(`${baseUrl}/healthz`)
      .then(async (r) => ((await r.json()) as { service?: string }).service === 'gateway')
      .catch(() => false);
    gateways.set(baseUrl, known);
  }
  return known;
}

/** The hook of the tests' HTTP client: checks a gateway's answer, ignores a service's own port. */
export async function checkContract(baseUrl: string, r: ObservedResponse): Promise<void> {
  if (await isGateway(baseUrl)) assertContract(r);
}

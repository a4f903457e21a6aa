import { z } from 'zod';
import { buildOpenApiDocument, defineOperations, type OpenApiOperation, type OperationSpec } from '@parley/shared';

// The builder on small operation lists of its own: what each kind of zod schema becomes.

const Item = z.object({ id: z.number().int(), name: z.string(), note: z.string().nullable() }).meta({ id: 'BuilderTestItem', description: 'an item' });
const listQuery = z.object({ page: z.coerce.number().int().positive().default(1), labels: z.array(z.string()).optional() });
const createBody = z.object({ name: z.string().min(1), position: z.number().int().default(0) });

const ops = defineOperations([
  {
    method: 'get',
    path: '/api/v1/accounts/{account_id}/items',
    operationId: 'builderListItems',
    summary: 'List items',
    tags: ['Items'],
    security: ['userApiKey', 'agentBotApiKey'],
    query: listQuery,
    responses: { 200: { description: 'OK', schema: z.object({ payload: z.array(Item) }), example: { payload: [{ id: 1, name: 'a', note: null }] } } },
  },
  {
    method: 'post',
    path: '/api/v1/accounts/{account_id}/items',
    operationId: 'builderCreateItem',
    summary: 'Create an item',
    tags: ['Items'],
    security: ['userApiKey'],
    body: createBody,
    multipart: true,
    requestExample: { name: 'a' },
    responses: { 200: { description: 'OK', schema: Item } },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/public/api/v1/things/{thing_slug}',
    operationId: 'builderDeleteThing',
    summary: 'Delete a thing',
    tags: ['Things'],
    security: [],
    params: z.object({ thing_slug: z.string().min(2).describe('Slug of the thing') }),
    responses: { 200: { description: 'Deleted', schema: z.object({}) } },
  },
]);

function op(doc: ReturnType<typeof buildOpenApiDocument>, path: string, method: 'get' | 'post' | 'delete'): OpenApiOperation {
  return doc.paths[path]?.[method] as OpenApiOperation;
}

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument([{ service: 'items', operations: ops, errors: [503] }], { tags: [{ name: 'Things', description: 'Things first' }] });
  const list = op(doc, '/api/v1/accounts/{account_id}/items', 'get');
  const create = op(doc, '/api/v1/accounts/{account_id}/items', 'post');
  const del = op(doc, '/public/api/v1/things/{thing_slug}', 'delete');

  it('when a response schema carries a registry id, then it becomes one component referenced wherever it is used', () => {
    expect(doc.components.schemas['BuilderTestItem']).toMatchObject({ type: 'object', description: 'an item', required: ['id', 'name', 'note'], additionalProperties: false });
    const listSchema = (list.responses['200'] as any).content['application/json'].schema;
    expect(listSchema.properties.payload.items).toEqual({ $ref: '#/components/schemas/BuilderTestItem' });
    expect((create.responses['200'] as any).content['application/json'].schema).toEqual({ $ref: '#/components/schemas/BuilderTestItem' });
    expect(JSON.stringify(doc)).not.toContain('$defs');
  });

  it('when a request has defaults, then it is documented as input (defaulted fields optional) while answers are output', () => {
    const body = (create.requestBody as any).content['application/json'];
    expect(body.schema.required).toEqual(['name']);
    expect(body.example).toEqual({ name: 'a' });
    expect((create.requestBody as any).content['multipart/form-data'].schema).toEqual(body.schema);
    const page = list.parameters?.find((p) => p['name'] === 'page');
    expect(page).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', default: 1 } });
    expect(list.parameters?.find((p) => p['name'] === 'labels')).toMatchObject({ in: 'query', style: 'form', explode: true });
  });

  it('when a path has parameters, then they come from the template, account_id as an integer and others from params', () => {
    expect(list.parameters?.find((p) => p['name'] === 'account_id')).toMatchObject({ in: 'path', required: true, schema: { type: 'integer', minimum: 1 } });
    expect(del.parameters).toEqual([{ name: 'thing_slug', in: 'path', required: true, description: 'Slug of the thing', schema: { type: 'string', minLength: 2, description: 'Slug of the thing' } }]);
  });

  it('when errors are listed or implied, then each is a response referencing the shared Error body', () => {
    expect(Object.keys(create.responses)).toEqual(['200', '400', '401', '403', '404', '409', '413', '422', '429', '503']);
    expect(Object.keys(del.responses)).toEqual(['200', '404', '429', '503']);
    expect(create.responses['409']).toEqual({ $ref: '#/components/responses/Conflict' });
    expect(doc.components.responses['TooManyRequests']).toMatchObject({ headers: { 'Retry-After': expect.any(Object) }, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
  });

  it('when operations name schemes, then security lists each as an alternative; a public operation has none', () => {
    expect(list.security).toEqual([{ userApiKey: [] }, { agentBotApiKey: [] }]);
    expect(del.security).toEqual([]);
    expect(list['x-parley-service']).toBe('items');
  });

  it('when tags are described, then they come first and the rest follow sorted', () => {
    expect(doc.tags).toEqual([{ name: 'Things', description: 'Things first' }, { name: 'Items' }]);
  });

  it('when a schema recurses, then the recursion points at a component, not at the document root', () => {
    const Node: z.ZodType<{ name: string; children: unknown[] }> = z.object({ name: z.string(), get children() { return z.array(Node); } });
    const tree = buildOpenApiDocument([{ service: 's', operations: [{ ...(ops[2] as OperationSpec), responses: { 200: { description: 'OK', schema: Node } } }] }]);
    const text = JSON.stringify(tree);
    expect(text).not.toContain('"$ref":"#"');
    const ref = (op(tree, '/public/api/v1/things/{thing_slug}', 'delete').responses['200'] as any).content['application/json'].schema.$ref as string;
    expect(tree.components.schemas[ref.split('/').pop() as string]).toMatchObject({ properties: { children: { items: { $ref: ref } } } });
  });

  it('when two operations clash, then building fails naming every problem', () => {
    const dup = { ...(ops[0] as OperationSpec) };
    const stray = { ...(ops[2] as OperationSpec), operationId: 'builderStray', path: '/public/api/v1/others', method: 'get' as const };
    expect(() => buildOpenApiDocument([{ service: 'a', operations: [ops[0] as OperationSpec] }, { service: 'b', operations: [dup, stray] }])).toThrow(
      /operationId also used by a builderListItems[\s\S]*GET \/api\/v1\/accounts\/\{account_id\}\/items also documented[\s\S]*path parameter "thing_slug" is not in the path/,
    );
  });

  it('when an operation has no summary or no tag, then building fails naming it', () => {
    const bare = { ...(ops[0] as OperationSpec), operationId: 'builderBare', path: '/api/v1/accounts/{account_id}/bare', summary: ' ', tags: [] };
    const blankTag = { ...(ops[0] as OperationSpec), operationId: 'builderBlankTag', path: '/api/v1/accounts/{account_id}/blank', tags: [''] };
    expect(() => buildOpenApiDocument([{ service: 'c', operations: [bare, blankTag] }])).toThrow(/c builderBare: no summary[\s\S]*c builderBare: no tag[\s\S]*c builderBlankTag: no tag/);
  });
});

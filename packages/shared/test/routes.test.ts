import request from 'supertest';
import { z } from 'zod';
import type { RequestHandler } from 'express';
import { createBaseApp, finishApp, jsonBody } from '../src/http';
import { createLogger } from '../src/logger';
import { operationsOf, pathId, pathParam, routeKit, routesRouter } from '../src/routes';
import type { RequestContext } from '../src/context';

// The route kit on a small app of its own: one declaration, parsed input, the error statuses
// the services had before (404 for a bad id, 400 for a bad query, 422 for a bad body), and the
// operations it records for the document.

interface Deps {
  calls: string[];
}

const route = routeKit<Deps>();
const A = '/api/v1/accounts/{account_id}';

const itemBody = z.object({ name: z.string().min(1), position: z.coerce.number().int().default(0) }).strict();

const routes = [
  route({
    method: 'get',
    path: `${A}/items`,
    operationId: 'listItems',
    summary: 'List items',
    tags: ['Items'],
    security: ['userApiKey'],
    query: z.object({ page: z.coerce.number().int().positive().default(1) }).strict(),
    response: z.object({ page: z.number(), account: z.number() }),
    handler: ({ query, accountId }) => ({ page: query.page, account: accountId }),
  }),
  route({
    method: ['patch', 'put'],
    path: `${A}/items/{id}`,
    operationId: 'updateItem',
    summary: 'Update an item',
    tags: ['Items'],
    security: ['userApiKey'],
    role: 'administrator',
    params: { id: pathId('Item') },
    body: itemBody,
    wrap: 'item',
    errors: [409],
    handler: ({ params, body }, deps) => {
      deps.calls.push(`update ${params.id}`);
      return { id: params.id, ...body };
    },
  }),
  route({
    method: 'get',
    path: '/public/api/v1/things/{slug}/raw',
    operationId: 'rawThing',
    summary: 'A thing as text',
    tags: ['Things'],
    security: [],
    params: { slug: pathParam('Thing', z.string().regex(/^[a-z]+$/).describe('The thing')) },
    use: (deps) => (req, _res, next) => {
      deps.calls.push(`use ${req.params['slug']}`);
      next();
    },
    handler: ({ params, res }) => {
      res.type('text/plain').send(`thing ${params.slug}`);
    },
  }),
];

function app(deps: Deps, ctx: Partial<RequestContext> = {}) {
  const a = createBaseApp(createLogger('routes-test', 'silent'));
  const withCtx: RequestHandler = (req, _res, next) => {
    req.ctx = { requestId: 'r', accountId: 7, actor: { type: 'user', id: 1 }, role: 'administrator', features: {}, ip: null, issuedAt: Date.now(), ...ctx } as RequestContext;
    next();
  };
  a.use(withCtx, jsonBody());
  a.use(routesRouter(routes, deps));
  return finishApp(a);
}

describe('the route kit', () => {
  it('when a route is called with good input, then the handler gets it parsed and typed and its answer is sent as JSON', async () => {
    const res = await request(app({ calls: [] })).get('/api/v1/accounts/7/items?page=3');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ page: 3, account: 7 });
  });

  it('when the query is bad, then the answer is 400 invalid_parameter (unknown_parameter for an unknown key)', async () => {
    const bad = await request(app({ calls: [] })).get('/api/v1/accounts/7/items?page=0');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ field: 'page', code: 'invalid_parameter' });
    const unknown = await request(app({ calls: [] })).get('/api/v1/accounts/7/items?color=red');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ code: 'unknown_parameter' });
  });

  it('when the path account is not the context account, then the answer is 403', async () => {
    const res = await request(app({ calls: [] })).get('/api/v1/accounts/8/items');
    expect(res.status).toBe(403);
  });

  it('when PATCH or PUT is sent to a twin route, then both reach the one handler, wrapped or flat', async () => {
    const deps = { calls: [] as string[] };
    const patched = await request(app(deps)).patch('/api/v1/accounts/7/items/5').send({ item: { name: 'A' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ id: 5, name: 'A', position: 0 });
    const put = await request(app(deps)).put('/api/v1/accounts/7/items/5').send({ name: 'B', position: '2' });
    expect(put.body).toEqual({ id: 5, name: 'B', position: 2 });
    expect(deps.calls).toEqual(['update 5', 'update 5']);
  });

  it('when the id is not a positive 32-bit integer, then the answer is 404 naming the resource', async () => {
    for (const id of ['abc', '0', '2147483648', '1e3']) {
      const res = await request(app({ calls: [] })).patch(`/api/v1/accounts/7/items/${id}`).send({ name: 'A' });
      expect({ id, status: res.status, body: res.body }).toEqual({ id, status: 404, body: { description: 'Item could not be found', errors: [{ field: 'id', message: 'Item could not be found', code: 'not_found' }] } });
    }
  });

  it('when the body is invalid, then the answer is 422 naming each field, and the handler does not run', async () => {
    const deps = { calls: [] as string[] };
    const res = await request(app(deps)).patch('/api/v1/accounts/7/items/5').send({ name: 5, extra: true });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['', 'name']);
    expect(deps.calls).toEqual([]);
  });

  it('when the caller lacks the role, then the answer is 403 before the input is read', async () => {
    const res = await request(app({ calls: [] }, { role: 'agent' })).patch('/api/v1/accounts/7/items/abc').send({ name: 5 });
    expect(res.status).toBe(403);
  });

  it('when a handler sends the answer itself, then that is the answer; `use` runs first; a bad string parameter is 404', async () => {
    const deps = { calls: [] as string[] };
    const res = await request(app(deps)).get('/public/api/v1/things/abc/raw');
    expect(res.status).toBe(200);
    expect(res.text).toBe('thing abc');
    expect(deps.calls).toEqual(['use abc']);
    const bad = await request(app(deps)).get('/public/api/v1/things/ABC/raw');
    expect(bad.status).toBe(404);
    expect(bad.body.description).toBe('Thing could not be found');
  });

  it('when the operations are listed, then twins are two operations and path ids are documented as integers', () => {
    const ops = operationsOf(routes);
    expect(ops.map((o) => `${o.method} ${o.operationId} ${o.summary}`)).toEqual([
      'get listItems List items',
      'patch updateItem Update an item',
      'put updateItemPut Update an item (PUT)',
      'get rawThing A thing as text',
    ]);
    const patch = ops[1]!;
    expect(z.toJSONSchema(patch.params!, { io: 'input' })).toMatchObject({ properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647 } } });
    expect(patch.body).toBe(itemBody);
    expect(patch.errors).toEqual([409]);
    expect(patch.responses).toEqual({ 200: { description: 'OK' } });
    expect(z.toJSONSchema(ops[3]!.params!, { io: 'input' })).toMatchObject({ properties: { slug: { type: 'string', description: 'The thing' } } });
  });

  it('when the body schema depends on the deps (bodyOf), then requests are parsed with the configured one and the document shows `body`', async () => {
    const strict = z.object({ name: z.string().max(3) });
    const configured = routeKit<{ maxName: number }>()({
      method: 'post', path: '/things', operationId: 'createThing', summary: 'Create a thing', tags: ['Things'], security: [],
      body: strict, bodyOf: (deps) => z.object({ name: z.string().max(deps.maxName) }),
      handler: ({ body }) => ({ name: body.name }),
    });
    const serve = (maxName: number) => {
      const a = createBaseApp(createLogger('routes-test', 'silent'));
      a.use(jsonBody(), routesRouter([configured], { maxName }));
      return finishApp(a);
    };
    expect((await request(serve(10)).post('/things').send({ name: 'longer' })).status).toBe(200);
    expect((await request(serve(3)).post('/things').send({ name: 'longer' })).status).toBe(422);
    expect(operationsOf([configured])[0]!.body).toBe(strict);
  });

  it('when params do not match the path, then the declaration throws', () => {
    expect(() => route({ method: 'get', path: '/x/{id}', operationId: 'bad', summary: 's', tags: ['t'], security: [], handler: () => ({}) })).toThrow(/params \[\] do not match the path parameters \[id\]/);
  });
});

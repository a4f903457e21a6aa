import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createAppServer, createBaseApp, createLogger, finishApp } from '../src';

describe('createAppServer (express without its per-request prototype swap)', () => {
  const app = createBaseApp(createLogger('app-server-test', 'silent'));
  app.get('/echo/:id', (req, res) => {
    res.setHeader('x-seen', 'yes');
    res.json({ id: req.params['id'], query: req.query, path: req.path, app: req.app === app, requestId: req.requestId });
  });
  finishApp(app);
  const server = createAppServer(app);
  const arrived: Array<{ req: unknown; res: unknown }> = [];
  // First, before express's own listener can swap anything.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => arrived.push({ req: Object.getPrototypeOf(req), res: Object.getPrototypeOf(res) }));
  let base = '';

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('when a request arrives, then it and its response already have the app\'s prototypes (express has nothing to swap)', async () => {
    await fetch(`${base}/echo/1`).then((r) => r.arrayBuffer());
    expect(arrived.at(-1)).toEqual({ req: app.request, res: app.response });
  });

  it('when a route answers, then express behaves as it does on its own server (params, qs query, headers, JSON, ETag)', async () => {
    const r = await fetch(`${base}/echo/42?labels[]=a&labels[]=b`, { headers: { 'x-request-id': 'req-42' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('x-seen')).toBe('yes');
    expect(r.headers.get('x-request-id')).toBe('req-42');
    expect(r.headers.get('etag')).toMatch(/^W\/"/);
    expect(await r.json()).toEqual({ id: '42', query: { labels: ['a', 'b'] }, path: '/echo/42', app: true, requestId: 'req-42' });
  });

  it('when no route matches, then the answer is the kernel\'s 404 Error body', async () => {
    const r = await fetch(`${base}/nowhere`);
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ errors: [{ code: 'route_not_found' }] });
  });
});

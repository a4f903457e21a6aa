import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { verifyContext } from '@parley/shared';
import { waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { scrape, total } from '../../support/metrics';
import { seedAccount, type SeededAccount } from '../../support/factories';

/**
 * The gateway's proxy hop (services/gateway/src/proxy.ts) against a scripted upstream standing
 * in for the contacts service: what the service receives (the signed context, no token, the
 * forwarded-for chain, the body as sent), what the client gets back (status, repeated headers,
 * streamed bodies), and each way an upstream can fail: refused (503 with Retry-After), hanging
 * past PROXY_TIMEOUT_MS (504), dropping the connection (502), breaking off mid-answer; a small
 * body read whole before it leaves (one broken off never reaches the service), a large or chunked
 * one streamed.
 */
describe('the gateway proxy', () => {
  let stack: Stack;
  let acc: SeededAccount;
  let upstream: http.Server;
  let seen: { method?: string; url?: string; headers?: http.IncomingHttpHeaders; body?: string } = {};
  const hung: http.ServerResponse[] = [];

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() };
        const path = (req.url ?? '').replace(/^\/api\/v1\/accounts\/\d+\/contacts/, '').split('?')[0];
        if (path === '/hang') return void hung.push(res);
        if (path === '/drop') return void req.socket.destroy();
        if (path === '/cookies') {
          res.writeHead(201, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'], 'x-custom': 'kept' });
          return void res.end('{"ok":true}');
        }
        if (path === '/stream') {
          res.writeHead(200, { 'content-type': 'text/plain' }); // no length: chunked
          res.write('one,');
          setTimeout(() => res.end('two'), 50);
          return;
        }
        if (path === '/break') {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
          res.write('partial');
          setTimeout(() => req.socket.destroy(), 50);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ echo: true }));
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = (upstream.address() as AddressInfo).port;
    stack = await startStack({
      only: [],
      gateway: {
        CONTACTS_URL: `http://127.0.0.1:${port}`,
        HELPCENTER_URL: 'http://127.0.0.1:9', // nothing listens: refused
        PROXY_TIMEOUT_MS: 1_000,
        RATE_LIMIT_PER_IP: 1_000_000,
        RATE_LIMIT_PER_TOKEN: 1_000_000,
      },
    });
    acc = await seedAccount(stack);
  });
  afterAll(async () => {
    for (const res of hung) res.destroy();
    await stack?.stop();
    await new Promise((r) => upstream.close(r));
  });

  const url = (path: string) => `${stack.gatewayUrl}/api/v1/accounts/${acc.accountId}${path}`;
  const headers = () => ({ api_access_token: acc.admin.token });

  it('when a request is proxied, then the service gets the signed context, the body and forwarded-for, and never the token', async () => {
    const res = await fetch(url('/contacts/echo?x=1&labels[]=a'), {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.7', 'x-parley-context': 'forged' },
      body: JSON.stringify({ name: 'Ada' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ echo: true });
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe(`/api/v1/accounts/${acc.accountId}/contacts/echo?x=1&labels[]=a`);
    expect(seen.body).toBe('{"name":"Ada"}');
    expect(seen.headers?.['api_access_token']).toBeUndefined();
    expect(seen.headers?.['content-type']).toBe('application/json');
    expect(seen.headers?.['x-forwarded-for']).toMatch(/^198\.51\.100\.7,\s*(::ffff:)?127\.0\.0\.1$/);
    expect(seen.headers?.['x-forwarded-host']).toBe(new URL(stack.gatewayUrl).host);
    const ctx = verifyContext(seen.headers ?? {}, stack.gateway.deps.config.INTERNAL_SECRET);
    expect(ctx?.accountId).toBe(acc.accountId);
    expect(ctx?.actor).toMatchObject({ type: 'user', id: acc.admin.userId });
  });

  it('when a body is larger than the gateway reads whole, or comes chunked, then the service gets it whole, streamed', async () => {
    const big = JSON.stringify({ content: 'x'.repeat(200_000) });
    const res = await fetch(url('/contacts/echo'), { method: 'POST', headers: { ...headers(), 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(200);
    expect(seen.body).toBe(big);
    expect(seen.headers?.['content-length']).toBe(String(big.length));
    const parts = ['{"a":', '"chunked"}'];
    const chunked = await fetch(url('/contacts/echo'), {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/json' },
      body: new ReadableStream({ pull: (c) => void (parts.length ? c.enqueue(new TextEncoder().encode(parts.shift())) : c.close()) }),
      duplex: 'half',
    } as RequestInit & { duplex: 'half' });
    expect(chunked.status).toBe(200);
    expect(seen.body).toBe('{"a":"chunked"}');
  });

  it('when the service answers with repeated headers or streams its body, then the client gets them as sent', async () => {
    const res = await fetch(url('/contacts/cookies'), { headers: headers() });
    expect(res.status).toBe(201);
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(res.headers.get('x-custom')).toBe('kept');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await res.text()).toBe('{"ok":true}');
    const streamed = await fetch(url('/contacts/stream'), { headers: headers() });
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toBe('one,two');
  });

  it('when the service is not listening, then 503 unavailable with Retry-After and the Error body', async () => {
    const res = await fetch(url('/portals'), { headers: headers() });
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await res.json()) as { errors: Array<{ code: string }> }).errors[0]?.code).toBe('unavailable');
  });

  it('when the service hangs past PROXY_TIMEOUT_MS, then 504 upstream_timeout', async () => {
    const res = await fetch(url('/contacts/hang'), { headers: headers() });
    expect(res.status).toBe(504);
    expect(((await res.json()) as { errors: Array<{ code: string }> }).errors[0]?.code).toBe('upstream_timeout');
  });

  it('when the service drops the connection before answering, then 502 bad_gateway', async () => {
    const res = await fetch(url('/contacts/drop'), { headers: headers() });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { errors: Array<{ code: string }> }).errors[0]?.code).toBe('bad_gateway');
  });

  it('when the service breaks off mid-answer, then the client sees a broken answer, never a complete-looking one', async () => {
    const res = await fetch(url('/contacts/break'), { headers: headers() });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it('when the client goes away before the answer, then the upstream request ends and no upstream error is counted', async () => {
    const errors = async () => total(await scrape(stack.gateway.metricsUrl), 'parley_gateway_upstream_errors_total', {});
    const before = await errors();
    const waiting = hung.length;
    const abort = new AbortController();
    const call = fetch(url('/contacts/hang'), { headers: headers(), signal: abort.signal });
    await waitFor(() => hung.length > waiting, { what: 'the request at the service' });
    const atService = hung[hung.length - 1]!;
    abort.abort();
    await expect(call).rejects.toThrow();
    // The gateway ended its request to the service...
    await waitFor(() => atService.req.socket.destroyed || atService.req.destroyed, { what: 'the upstream request ended' });
    // ...and counted nothing (before the fix: one bad_gateway and a warning for every client that left).
    await new Promise((r) => setTimeout(r, 300));
    expect(await errors()).toBe(before);
  });

  it('after every failure, then the gateway still proxies', async () => {
    const res = await fetch(url('/contacts/echo'), { headers: headers() });
    expect(res.status).toBe(200);
  });
});

/** PROXY_MAX_IN_FLIGHT: the gateway proxies a bounded number of requests at once and refuses the next with 503. */
describe('the gateway proxy at its limit of requests in flight', () => {
  let stack: Stack;
  let acc: SeededAccount;
  let upstream: http.Server;
  const held = new Map<string, http.ServerResponse>();
  const arrived: string[] = [];

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      arrived.push(req.url ?? '');
      const hold = /\/(hold-\d)$/.exec(req.url ?? '')?.[1];
      if (hold) return void held.set(hold, res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    stack = await startStack({
      only: [],
      gateway: {
        CONTACTS_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        PROXY_MAX_IN_FLIGHT: 2,
        RATE_LIMIT_PER_IP: 1_000_000,
        RATE_LIMIT_PER_TOKEN: 1_000_000,
      },
    });
    acc = await seedAccount(stack);
  });
  afterAll(async () => {
    for (const res of held.values()) res.destroy();
    await stack?.stop();
    await new Promise((r) => upstream.close(r));
  });

  const url = (path: string) => `${stack.gatewayUrl}/api/v1/accounts/${acc.accountId}${path}`;
  const get = (path: string) => fetch(url(path), { headers: { api_access_token: acc.admin.token } });

  it('when as many requests as the limit are in flight, then the next is answered 503 unavailable with Retry-After and never reaches the service, and once one ends the next goes through', async () => {
    const first = get('/contacts/hold-1');
    const second = get('/contacts/hold-2');
    await waitFor(() => held.size === 2, { what: 'two requests held by the service' });

    const refused = await get('/contacts/refused');
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await refused.json()) as { description: string; errors: Array<{ field: string; message: string; code: string }> };
    expect(body.description).toMatch(/in flight/);
    expect(body.errors).toEqual([{ field: '', message: body.description, code: 'unavailable' }]);
    expect(arrived.some((u) => u.includes('/refused'))).toBe(false);

    held.get('hold-1')?.end('{"held":1}');
    expect((await first).status).toBe(200);
    const after = await get('/contacts/after');
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ ok: true });

    held.get('hold-2')?.end('{"held":2}');
    expect((await second).status).toBe(200);
  });

  it('when clients break off a small body, then the service never gets their requests and their places are given back', async () => {
    const { port } = new URL(stack.gatewayUrl);
    // More broken-off requests than the limit: a place each kept would refuse the request after them.
    for (let i = 0; i < 3; i++) {
      const socket = net.connect(Number(port), '127.0.0.1');
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write(
        `POST /api/v1/accounts/${acc.accountId}/contacts/broken-${i} HTTP/1.1\r\nHost: x\r\napi_access_token: ${acc.admin.token}\r\n` +
          'content-type: application/json\r\ncontent-length: 100\r\n\r\n{"name":',
      );
      await new Promise((r) => setTimeout(r, 100));
      socket.destroy();
    }
    await waitFor(async () => (await get('/contacts/after-broken')).status === 200, { what: 'a request through after the broken ones' });
    expect(arrived.some((u) => u.includes('/broken-'))).toBe(false);
  });
});

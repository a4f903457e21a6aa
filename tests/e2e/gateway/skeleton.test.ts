import { startStack, type Stack } from '../../support/stack';
import { client, expectErrorBody } from '../../support/http';

describe('walking skeleton through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;

  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
  });
  afterAll(() => stack?.stop());

  it('when the servers are up, then the gateway and every service are healthy and ready', async () => {
    expect((await call('GET', '/healthz')).body).toMatchObject({ status: 'ok', service: 'gateway' });
    expect((await call('GET', '/readyz')).status).toBe(200);
    for (const [name, svc] of Object.entries(stack.services)) {
      const h = await client(svc.url)('GET', '/healthz');
      expect(h.body).toMatchObject({ status: 'ok', service: name });
      const r = await client(svc.url)('GET', '/readyz');
      expect(r.status).toBe(200);
      expect(r.body.checks).toEqual({ postgres: 'ok', redis: 'ok', rabbitmq: 'ok' });
    }
  });

  it('when a request bypasses the gateway, then the service refuses it with 401', async () => {
    for (const svc of Object.values(stack.services)) {
      const res = await client(svc.url)('GET', '/api/v1/accounts/1/anything');
      expect(res.status).toBe(401);
      expectErrorBody(res.body, 'unauthorized');
    }
  });

  it('when a client forges the internal context headers, then the service still refuses them', async () => {
    const svc = stack.services['conversations']!;
    const res = await client(svc.url)('GET', '/api/v1/accounts/1/conversations', {
      headers: { 'x-parley-context': Buffer.from('{"accountId":1}').toString('base64url'), 'x-parley-signature': 'ab'.repeat(32) },
    });
    expect(res.status).toBe(401);
  });

  it('when no token is sent, then the account API answers 401 with the Error body', async () => {
    const res = await call('GET', '/api/v1/accounts/1/conversations');
    expect(res.status).toBe(401);
    expectErrorBody(res.body, 'unauthorized');
  });

  it('when an unknown token is sent, then 401 invalid_token', async () => {
    const res = await call('GET', '/api/v1/profile', { token: 'not-a-real-token' });
    expect(res.status).toBe(401);
    expectErrorBody(res.body, 'invalid_token');
  });

  it('when an unknown route is called, then 404 with the Error body', async () => {
    const res = await call('GET', '/nope');
    expect(res.status).toBe(404);
    expectErrorBody(res.body, 'route_not_found');
  });
});

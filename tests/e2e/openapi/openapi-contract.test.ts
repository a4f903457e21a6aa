import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack, type Stack } from '../../support/stack';
import { client } from '../../support/http';
import { seedAccount } from '../../support/factories';
import { contractDocument, contractViolations, findOperation } from '../../support/contract';

// The contract hook itself: what it accepts, what it catches, and that the tests' client runs it.

describe('contract checks of gateway answers', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ only: [] });
  });
  afterAll(() => stack?.stop());

  it('when the profile is fetched through the gateway, then the real answer conforms to the document', async () => {
    const account = await seedAccount(stack);
    const res = await client(stack.gatewayUrl)('GET', '/api/v1/profile', { token: account.admin.token });
    expect(res.status).toBe(200);
    // The client already checked it; asking again shows the check found nothing.
    expect(contractViolations({ method: 'GET', path: '/api/v1/profile', status: 200, text: res.text, body: res.body, contentType: res.headers.get('content-type') })).toEqual([]);
  });

  it('when an answer drifts from its schema, then the violation names the field', async () => {
    const account = await seedAccount(stack);
    const res = await client(stack.gatewayUrl)('GET', '/api/v1/profile', { token: account.admin.token });
    const drifted = { ...res.body, id: String(res.body.id), surprise: true };
    const problems = contractViolations({ method: 'GET', path: '/api/v1/profile', status: 200, text: JSON.stringify(drifted), body: drifted, contentType: 'application/json' });
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^\/id: must be/), expect.stringMatching(/must NOT have additional properties "surprise"/)]));
  });

  it('when an operation answers a status it does not document, then that is a violation', () => {
    const problems = contractViolations({ method: 'GET', path: '/api/v1/profile', status: 418, text: '{}', body: {}, contentType: 'application/json' });
    expect(problems).toEqual([expect.stringMatching(/^status 418 is not documented \(documented: 200, .*401/)]);
  });

  it('when an error answer is not the Error body, then that is a violation', () => {
    const problems = contractViolations({ method: 'GET', path: '/api/v1/profile', status: 401, text: '{"error":"nope"}', body: { error: 'nope' }, contentType: 'application/json' });
    expect(problems?.length).toBeGreaterThan(0);
  });

  it('when a request matches no documented operation, then a success is not checked (the coverage test reports such routes) but an error must be the Error body', () => {
    expect(findOperation('GET', '/api/v1/nowhere/at/all')).toBeNull();
    expect(contractViolations({ method: 'GET', path: '/api/v1/nowhere/at/all', status: 200, text: '{"x":1}', body: { x: 1 }, contentType: 'application/json' })).toBeNull();
    expect(contractViolations({ method: 'GET', path: '/api/v1/nowhere/at/all', status: 404, text: '', body: undefined, contentType: null })).toEqual([expect.stringMatching(/^error answer 404 is not the Error body/)]);
    expect(contractViolations({ method: 'GET', path: '/api/v1/nowhere/at/all', status: 404, text: '{"error":"x"}', body: { error: 'x' }, contentType: 'application/json' })?.length).toBeGreaterThan(0);
    const ok = { description: 'Not found', errors: [{ field: '', message: 'Not found', code: 'not_found' }] };
    expect(contractViolations({ method: 'GET', path: '/api/v1/nowhere/at/all', status: 404, text: JSON.stringify(ok), body: ok, contentType: 'application/json' })).toEqual([]);
  });

  it('when the real gateway is asked for an unknown path or a method a path does not have, then the answer is the Error body', async () => {
    const account = await seedAccount(stack);
    const call = client(stack.gatewayUrl);
    // The client checks these answers; an answer other than the Error body fails the call.
    const unknown = await call('GET', '/api/v1/nowhere/at/all', { token: account.admin.token });
    expect(unknown.status).toBeGreaterThanOrEqual(400);
    const wrongMethod = await call('DELETE', '/api/v1/profile', { token: account.admin.token });
    expect(wrongMethod.status).toBeGreaterThanOrEqual(400);
    const outside = await call('GET', '/no/such/thing');
    expect(outside.status).toBe(404);
  });

  it('when a path has a query or a trailing slash, then it still finds its operation', () => {
    const profile = findOperation('GET', '/api/v1/profile/?x=1');
    expect(profile?.operation.operationId).toBe(contractDocument().paths['/api/v1/profile']?.get?.operationId);
  });

  it('when a gateway answers against its document, then the tests\' client fails the call', async () => {
    // A stand-in gateway: says it is the gateway, then answers the profile with a wrong body.
    const server = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(req.url === '/healthz' ? JSON.stringify({ status: 'ok', service: 'gateway' }) : JSON.stringify({ id: 'not-a-number' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await expect(client(url)('GET', '/api/v1/profile', { token: 'x' })).rejects.toThrow(/Contract violation: GET \/api\/v1\/profile answered 200[\s\S]*must have required property 'access_token'/);
    } finally {
      server.close();
    }
  });

  it('when a service is called on its own port, then its answers are not checked', async () => {
    const server = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: 'ok', service: 'conversations', id: 'not-a-number' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect((await client(url)('GET', '/api/v1/profile')).status).toBe(200);
    } finally {
      server.close();
    }
  });
});

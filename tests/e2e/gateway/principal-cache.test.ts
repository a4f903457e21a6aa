import { bootService, type RunningService } from '@parley/shared';
import { gatewayService, type GatewayConfig } from '@parley/gateway';
import { PrivateRedis, TcpGate, waitFor } from '@parley/testkit';
import { PLATFORM_TOKEN, startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';

/**
 * Each gateway replica caches principals, accounts and profiles in its own process; changes
 * made through one replica reach the others' caches through Redis pub/sub. Two gateways here
 * (the stack's, A, and a second one, B, sharing nothing but Postgres and Redis), against a
 * Redis of this file's own behind a gate, so the test can stop it, hang it and bring it back.
 */
describe('principal cache across gateway replicas', () => {
  let redis: PrivateRedis;
  let gate: TcpGate;
  let stack: Stack;
  let second: RunningService<GatewayConfig>;
  let acc: SeededAccount;
  let a: ReturnType<typeof client>;
  let b: ReturnType<typeof client>;
  const platform = { headers: { api_access_token: PLATFORM_TOKEN } };

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    gate = await TcpGate.to(redis.url);
    stack = await startStack({ all: { REDIS_URL: gate.url(redis.url) }, gateway: { RATE_LIMIT_PER_IP: 1_000_000, RATE_LIMIT_PER_TOKEN: 1_000_000 } });
    second = (await bootService(gatewayService, { ...stack.gateway.deps.config, METRICS_PORT: 0 }, { port: 0, host: '127.0.0.1', migrate: false })) as RunningService<GatewayConfig>;
    a = client(stack.gatewayUrl);
    b = client(second.url);
    acc = await seedAccount(stack);
    await waitFor(async () => (await liveOn(stack.gateway)) && (await liveOn(second)), { what: 'both replicas to use their caches' });
  });
  afterAll(async () => {
    gate.thaw();
    await redis.start().catch(() => undefined);
    await second?.stop();
    await stack?.stop();
    await gate.close();
    await redis.stop();
  });

  /** The replica's `parley_gateway_principal_cache_live` gauge. */
  async function liveOn(gw: RunningService<GatewayConfig>): Promise<boolean> {
    const text = await (await fetch(gw.metricsUrl)).text();
    return /^parley_gateway_principal_cache_live\{[^}]*\} 1$/m.test(text);
  }
  const agents = (call: ReturnType<typeof client>, token: string) => call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token });

  it('when an agent is removed through one replica, then the other, which had the token cached, refuses it at once', async () => {
    const u = await acc.addUser('agent');
    expect((await agents(b, u.token)).status).toBe(200);
    expect((await agents(b, u.token)).status).toBe(200); // served from B's cache
    expect((await a('DELETE', `/api/v1/accounts/${acc.accountId}/agents/${u.userId}`, { token: acc.admin.token })).status).toBe(200);
    expect((await agents(b, u.token)).status).toBe(401); // the user had no other account: user and token are gone
  });

  it('when a token is reset through one replica, then the old token is unknown on the other at once and the new one works', async () => {
    const u = await acc.addUser('agent');
    expect((await b('GET', '/api/v1/profile', { token: u.token })).status).toBe(200);
    const reset = await a('POST', '/api/v1/profile/reset_access_token', { token: u.token });
    expect(reset.status).toBe(200);
    const old = await b('GET', '/api/v1/profile', { token: u.token });
    expect(old.status).toBe(401);
    expectErrorBody(old.body, 'invalid_token');
    expect((await b('GET', '/api/v1/profile', { token: reset.body.access_token })).body.access_token).toBe(reset.body.access_token);
  });

  it('when a user is deleted through the Platform API, then no replica takes the token any more', async () => {
    const u = await acc.addUser('agent');
    for (const call of [a, b]) expect((await call('GET', '/api/v1/profile', { token: u.token })).status).toBe(200);
    expect((await a('DELETE', `/platform/api/v1/users/${u.userId}`, platform)).status).toBe(200);
    for (const call of [a, b]) expect((await call('GET', '/api/v1/profile', { token: u.token })).status).toBe(401);
  });

  it('when what a cached profile shows changes through one replica, then the other answers the change at once', async () => {
    const u = await acc.addUser('administrator');
    expect((await b('GET', '/api/v1/profile', { token: u.token })).body.name).toBe(u.name);
    expect((await a('PUT', '/api/v1/profile', { token: u.token, body: { name: 'Renamed On A' } })).status).toBe(200);
    expect((await b('GET', '/api/v1/profile', { token: u.token })).body.name).toBe('Renamed On A');
    expect((await a('POST', '/api/v1/profile/availability', { token: u.token, body: { availability: 'busy' } })).status).toBe(200);
    expect((await b('GET', '/api/v1/profile', { token: u.token })).body.accounts[0].availability).toBe('busy');
    expect((await a('PATCH', `/platform/api/v1/accounts/${acc.accountId}`, { ...platform, body: { name: 'Renamed Account' } })).status).toBe(200);
    expect((await b('GET', '/api/v1/profile', { token: u.token })).body.accounts[0].name).toBe('Renamed Account');
  });

  it('when Redis stops, then every replica reads principals from Postgres, so a removal through one holds on the other at once, and after Redis is back', async () => {
    const u = await acc.addUser('agent');
    expect((await agents(b, u.token)).status).toBe(200);
    await gate.cut();
    try {
      await waitFor(async () => !(await liveOn(second)) || undefined, { what: 'B to stop using its cache' });
      expect((await a('DELETE', `/api/v1/accounts/${acc.accountId}/agents/${u.userId}`, { token: acc.admin.token })).status).toBe(200);
      expect((await agents(b, u.token)).status).toBe(401);
    } finally {
      await gate.restore();
    }
    await waitFor(async () => (await liveOn(second)) || undefined, { what: 'B to use its cache again' });
    expect((await agents(b, u.token)).status).toBe(401);
  });

  it('when Redis hangs (connections open, nothing answers), then within the heartbeat the replicas stop trusting their caches, and a removal holds on the other replica', async () => {
    const u = await acc.addUser('agent');
    await a('POST', `/platform/api/v1/accounts/${(await seedAccount(stack)).accountId}/account_users`, { ...platform, body: { user_id: u.userId, role: 'agent' } });
    expect((await agents(b, u.token)).status).toBe(200);
    gate.freeze();
    try {
      // The bound documented in docs/architecture.md: a missed heartbeat (1 s) plus the command timeout (1 s).
      await waitFor(async () => !(await liveOn(second)) || undefined, { what: 'B to notice that Redis hangs' });
      expect((await a('DELETE', `/api/v1/accounts/${acc.accountId}/agents/${u.userId}`, { token: acc.admin.token })).status).toBe(200);
      const refused = await agents(b, u.token);
      expect(refused.status).toBe(403);
      expectErrorBody(refused.body, 'not_account_member');
    } finally {
      gate.thaw();
    }
    await waitFor(async () => (await liveOn(second)) || undefined, { what: 'B to use its cache again' });
    expect((await agents(b, u.token)).status).toBe(403);
  });
});

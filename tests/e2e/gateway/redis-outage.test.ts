import { PrivateRedis, TcpGate, waitFor } from '@parley/testkit';
import { createLogger } from '@parley/shared';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';

/**
 * Redis is a cache and a rate-limit store, not a dependency: with it stopped, requests go on
 * at normal speed with correct answers (principals from Postgres, in-process limits), the
 * gateway says once that Redis is down and once that it is back, and an invalidation lost
 * during the outage still takes effect afterwards. Against a Redis of this file's own.
 */
describe('when Redis stops under traffic', () => {
  let redis: PrivateRedis;
  /** Between every service and the private Redis: cutting it is a partition (Redis keeps its data). */
  let gate: TcpGate;
  let stack: Stack;
  let acc: SeededAccount;
  const gatewayLines: Array<{ level: number; msg: string }> = [];

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    gate = await TcpGate.to(redis.url);
    const sink = { write: (line: string) => void gatewayLines.push(JSON.parse(line)) };
    stack = await startStack({
      all: { REDIS_URL: gate.url(redis.url) },
      gateway: { RATE_LIMIT_PER_IP: 1_000_000, RATE_LIMIT_PER_TOKEN: 1_000_000 },
      log: (service) => (service === 'gateway' ? createLogger('gateway', 'info', sink) : undefined),
    });
    acc = await seedAccount(stack);
  });
  afterAll(async () => {
    await redis.start().catch(() => undefined);
    await stack?.stop();
    await gate.close();
    await redis.stop();
  });

  /** One request, timed: the bound is generous (an outage used to cost 8-12 s a request). */
  async function call(method: string, path: string, token: string, body?: unknown) {
    const started = Date.now();
    const res = await fetch(`${stack.gatewayUrl}/api/v1/accounts/${acc.accountId}${path}`, {
      method,
      headers: { api_access_token: token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    return { status: res.status, json, ms: Date.now() - started, limit: res.headers.get('x-ratelimit-remaining') };
  }

  /** Creates a contact and reads it back; every answer right and none slow. */
  async function traffic(n: number, tag: string): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const created = await call('POST', '/contacts', acc.admin.token, { name: `${tag} ${i}`, email: `${tag}-${i}-${acc.accountId}@example.com` });
      expect({ i, status: created.status }).toEqual({ i, status: 200 });
      const id = created.json.payload?.contact?.id ?? created.json.id;
      expect(typeof id).toBe('number');
      ids.push(id);
      const read = await call('GET', `/contacts/${id}`, acc.agent.token);
      expect({ i, status: read.status }).toEqual({ i, status: 200 });
      expect(read.json.payload?.name ?? read.json.name).toBe(`${tag} ${i}`);
      expect(read.limit).not.toBeNull(); // the rate limit still applies (in-process)
      for (const r of [created, read]) expect({ i, slow: r.ms > 3000 }).toEqual({ i, slow: false });
    }
    return ids;
  }

  const logged = (msg: string) => gatewayLines.filter((l) => l.msg.startsWith(msg)).length;

  it('then requests keep answering correctly and quickly, and the gateway logs the outage once and the recovery once', async () => {
    await traffic(5, 'before');
    await redis.stop();
    try {
      expect(await traffic(15, 'during')).toHaveLength(15);
    } finally {
      await redis.start();
    }
    await waitFor(() => logged('redis available again') === 1, { timeoutMs: 15_000, what: 'the gateway to see Redis back' });
    await traffic(5, 'after');
    expect(logged('redis unavailable')).toBe(1);
    expect(logged('redis available again')).toBe(1);
    expect(gatewayLines.filter((l) => l.level >= 50)).toEqual([]); // nothing at error level
  });

  it('when an agent is removed while Redis is unreachable, then the principal cached before does not come back with Redis', async () => {
    const removed = await acc.addUser('agent');
    expect((await call('GET', '/contacts', removed.token)).status).toBe(200); // its principal is now cached
    await gate.cut();
    try {
      expect((await call('DELETE', `/agents/${removed.userId}`, acc.admin.token)).status).toBe(200);
      expect([401, 403]).toContain((await call('GET', '/contacts', removed.token)).status);
    } finally {
      await gate.restore();
    }
    await waitFor(() => logged('redis available again') === 2, { timeoutMs: 15_000, what: 'the gateway to see Redis back' });
    await traffic(2, 'partition');
    expect([401, 403]).toContain((await call('GET', '/contacts', removed.token)).status);
  });
});

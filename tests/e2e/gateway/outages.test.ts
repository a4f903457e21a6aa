import { TcpGate } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';

/**
 * An outage is a 503, never a 500: each service (and the gateway itself) reaches Postgres
 * through its own gate; cutting one gate is, for that service alone, Postgres stopped
 * (open connections reset, new ones refused). Its requests must answer 503 `unavailable` with
 * the Error body and Retry-After, the other services go on, and once the gate is open again
 * the service answers 200 without a restart.
 */
const SERVICES = ['conversations', 'contacts', 'helpcenter', 'automation', 'audit'] as const;

describe('when Postgres is unreachable for one service', () => {
  let stack: Stack;
  let acc: SeededAccount;
  const gates: Record<string, TcpGate> = {};

  beforeAll(async () => {
    const { infra } = await import('@parley/testkit');
    for (const name of [...SERVICES, 'gateway']) gates[name] = await TcpGate.to(infra().adminUrl);
    stack = await startStack({
      gateway: { RATE_LIMIT_PER_IP: 1_000_000, RATE_LIMIT_PER_TOKEN: 1_000_000 },
      // The gate rewrites host and port only; each service derives its role URL from this.
      // Services without HTTP requests of their own (realtime) connect directly.
      databaseUrl: (service, url) => gates[service]?.url(url) ?? url,
    });
    acc = await seedAccount(stack);
  });
  afterAll(async () => {
    for (const g of Object.values(gates)) await g.restore().catch(() => undefined);
    await stack?.stop();
    for (const g of Object.values(gates)) await g.close();
  });

  const get = async (path: string) => {
    const res = await fetch(`${stack.gatewayUrl}${path}`, { headers: { api_access_token: acc.admin.token } });
    const text = await res.text();
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: text ? JSON.parse(text) : undefined, text };
  };
  const account = () => `/api/v1/accounts/${acc.accountId}`;
  const paths: Record<(typeof SERVICES)[number], () => string> = {
    conversations: () => `${account()}/conversations`,
    contacts: () => `${account()}/contacts`,
    helpcenter: () => `${account()}/portals`,
    automation: () => `${account()}/automation_rules`,
    audit: () => `${account()}/audit_logs`,
  };

  async function expectOutage(path: string): Promise<void> {
    const res = await get(path);
    expect({ path, status: res.status }).toEqual({ path, status: 503 });
    expect(res.body.errors[0].code).toBe('unavailable');
    expect(typeof res.body.description).toBe('string');
    expect(Number(res.retryAfter)).toBeGreaterThan(0);
  }

  it.each(SERVICES)('when %s loses Postgres, then its requests answer 503 with Retry-After, the others 200, and it recovers by itself', async (name) => {
    for (const s of SERVICES) expect({ s, status: (await get(paths[s]())).status }).toEqual({ s, status: 200 });
    await gates[name]!.cut();
    try {
      await expectOutage(paths[name]());
      await expectOutage(paths[name]()); // a second time: nothing is left half-broken
      const other = SERVICES.find((s) => s !== name)!;
      expect((await get(paths[other]())).status).toBe(200);
    } finally {
      await gates[name]!.restore();
    }
    expect((await get(paths[name]())).status).toBe(200);
  });

  it('when the gateway loses Postgres, then its own routes and authentication of an uncached token answer 503 (a cached profile is still served), and it recovers by itself', async () => {
    expect((await get('/api/v1/profile')).status).toBe(200); // now cached with the admin's principal
    const fresh = await acc.addUser('agent'); // its token is in no cache yet
    await gates['gateway']!.cut();
    try {
      await expectOutage(`${account()}/agents`);
      // Nothing it shows can change while Postgres is away (every change is a Postgres write).
      expect((await get('/api/v1/profile')).status).toBe(200);
      const res = await fetch(`${stack.gatewayUrl}${account()}/contacts`, { headers: { api_access_token: fresh.token } });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { errors: Array<{ code: string }> }).errors[0]!.code).toBe('unavailable');
    } finally {
      await gates['gateway']!.restore();
    }
    expect((await get('/api/v1/profile')).status).toBe(200);
  });
});

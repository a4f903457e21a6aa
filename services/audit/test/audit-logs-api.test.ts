import type { RunningService } from '@parley/shared';
import { asCaller, createTestEnv, randomAccountId, startTestService, teamFixture, waitFor, type CtxInput, type TestEnv } from '@parley/testkit';
import { auditConfigSchema, auditService, type AuditConfig } from '../src';
import { createBus, envelope, type TestBus } from './bus';

describe('GET /api/v1/accounts/:account_id/audit_logs (service level)', () => {
  let env: TestEnv;
  let svc: RunningService<AuditConfig>;
  let bus: TestBus;

  beforeAll(async () => {
    env = await createTestEnv();
    // One attempt: a version clash would dead-letter at once instead of being hidden by a
    // retry, so the versions test checks the version reservation itself.
    svc = await startTestService(auditService, auditConfigSchema.parse({ ...env.config, CONSUMER_MAX_ATTEMPTS: 1 }));
    bus = createBus(env.namespace);
  });
  afterAll(async () => {
    await bus?.close();
    await svc?.stop();
    await env?.close();
  });

  async function get(accountId: number, query = '', caller: CtxInput = {}): Promise<{ status: number; body: any }> {
    const res = await fetch(`${svc.url}/api/v1/accounts/${accountId}/audit_logs${query}`, {
      headers: asCaller({ accountId, role: 'administrator', features: { audit_logs: true }, ...caller }),
    });
    return { status: res.status, body: await res.json() };
  }

  function expectError(res: { status: number; body: any }, status: number, code: string): void {
    expect(res.status).toBe(status);
    expect(typeof res.body.description).toBe('string');
    expect(res.body.errors.map((e: any) => e.code)).toContain(code);
  }

  // One account with 30 entries an hour apart: 27 label creations by user 7, then 3
  // webhook updates by user 8. Times are chosen so the range filters have known answers.
  const accountId = randomAccountId();
  const t0 = Date.UTC(2025, 0, 10, 0, 0, 0);
  const hour = 3_600_000;
  const admin8 = { type: 'user' as const, id: 8, name: 'Bo', email: 'bo@example.com' };

  beforeAll(async () => {
    const events = [];
    for (let i = 0; i < 27; i++) events.push(envelope({ type: 'label.created', accountId, data: { id: 100 + i, title: `l${i}` }, occurredAt: new Date(t0 + i * hour) }));
    for (let i = 0; i < 3; i++) {
      events.push(envelope({ type: 'webhook.updated', accountId, data: { id: 900, url: `https://h${i}.test` }, changes: { url: [`https://h${i - 1}.test`, `https://h${i}.test`] }, actor: admin8, occurredAt: new Date(t0 + (27 + i) * hour) }));
    }
    await bus.publish(...events);
    await waitFor(async () => (await get(accountId)).body.total_entries === 30, { what: '30 entries' });
  });

  it('when an administrator lists, then the newest 25 come first with the paging fields', async () => {
    const res = await get(accountId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ per_page: 25, total_entries: 30, current_page: 1 });
    expect(res.body.audit_logs).toHaveLength(25);
    const times = res.body.audit_logs.map((e: any) => e.created_at);
    expect(times[0]).toBe((t0 + 29 * hour) / 1000);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(res.body.audit_logs[0]).toMatchObject({ auditable_type: 'Webhook', action: 'update', user_id: 8, username: 'bo@example.com' });
  });

  it('when page 2 and a page past the end are asked for, then the rest and then nothing come back', async () => {
    const p1 = await get(accountId, '?page=1');
    const p2 = await get(accountId, '?page=2');
    expect(p2.body).toMatchObject({ per_page: 25, total_entries: 30, current_page: 2 });
    expect(p2.body.audit_logs).toHaveLength(5);
    expect(p2.body.audit_logs[4].created_at).toBe(t0 / 1000);
    const ids = new Set([...p1.body.audit_logs, ...p2.body.audit_logs].map((e: any) => e.id));
    expect(ids.size).toBe(30);
    const p9 = await get(accountId, '?page=9');
    expect(p9.status).toBe(200);
    expect(p9.body).toEqual({ per_page: 25, total_entries: 30, current_page: 9, audit_logs: [] });
  });

  it('when filtered by type, action or user, then only matching entries are counted and listed', async () => {
    const byType = await get(accountId, '?auditable_type=Webhook');
    expect(byType.body.total_entries).toBe(3);
    // Versions follow the order events were handled, which concurrent handling may shuffle.
    expect(byType.body.audit_logs.map((e: any) => e.version).sort()).toEqual([1, 2, 3]);
    const byAction = await get(accountId, '?action=create');
    expect(byAction.body.total_entries).toBe(27);
    expect(byAction.body.audit_logs.every((e: any) => e.action === 'create' && e.auditable_type === 'Label')).toBe(true);
    const byUser = await get(accountId, '?user_id=8');
    expect(byUser.body.total_entries).toBe(3);
    expect(byUser.body.audit_logs.every((e: any) => e.user_id === 8)).toBe(true);
    const none = await get(accountId, '?auditable_type=Webhook&action=create');
    expect(none.body).toMatchObject({ total_entries: 0, audit_logs: [] });
  });

  it('when filtered by user, then a user id means that user, not a bot or a rule with the same id; user_type picks another kind of actor', async () => {
    const acc = randomAccountId();
    await bus.publish(
      envelope({ type: 'label.created', accountId: acc, data: { id: 1, title: 'by user 8' }, actor: admin8 }),
      envelope({ type: 'label.created', accountId: acc, data: { id: 2, title: 'by bot 8' }, actor: { type: 'agent_bot', id: 8, name: 'Bot' } }),
      envelope({ type: 'label.updated', accountId: acc, data: { id: 1, title: 'by rule 8' }, changes: { title: ['by user 8', 'by rule 8'] }, actor: { type: 'automation_rule', id: 8, name: 'Rule' }, ip: null }),
    );
    await waitFor(async () => (await get(acc)).body.total_entries === 3, { what: '3 entries' });
    const byUser = await get(acc, '?user_id=8');
    expect(byUser.body.audit_logs.map((e: any) => [e.auditable_id, e.user_type])).toEqual([[1, 'User']]);
    const byBot = await get(acc, '?user_id=8&user_type=AgentBot');
    expect(byBot.body.audit_logs.map((e: any) => [e.auditable_id, e.user_type, e.username])).toEqual([[2, 'AgentBot', 'Bot']]);
    const byRules = await get(acc, '?user_type=automation_rule');
    expect(byRules.body).toMatchObject({ total_entries: 1, audit_logs: [{ action: 'update', user_id: 8, user_type: 'automation_rule', remote_address: '' }] });
  });

  it('when filtered by a time range, then since and until are inclusive in unix seconds and ISO', async () => {
    const since = (t0 + 10 * hour) / 1000;
    const until = (t0 + 12 * hour) / 1000;
    const unix = await get(accountId, `?since=${since}&until=${until}`);
    expect(unix.body.total_entries).toBe(3);
    expect(unix.body.audit_logs.map((e: any) => e.created_at)).toEqual([until, since + 3600, since]);
    const iso = await get(accountId, `?since=${new Date(since * 1000).toISOString()}&until=${encodeURIComponent(new Date(until * 1000).toISOString())}`);
    expect(iso.body.total_entries).toBe(3);
    const day = await get(accountId, '?until=2025-01-10');
    expect(day.body.total_entries).toBe(24);
    const open = await get(accountId, `?since=${(t0 + 28 * hour) / 1000}`);
    expect(open.body.total_entries).toBe(2);
  });

  it('when a query parameter is unknown or malformed, then 400 with the Error body', async () => {
    for (const q of ['?page=0', '?page=abc', '?page=-1', '?page=1.5', '?action=delete', '?auditable_type=Nope', '?auditable_type=webhook', '?user_id=x', '?user_type=no%20such', '?since=yesterday', '?until=2025-13-40', '?per_page=50', '?action[]=create']) {
      const res = await get(accountId, q);
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
      expect(typeof res.body.description).toBe('string');
      expect(res.body.errors.length).toBeGreaterThan(0);
    }
    expectError(await get(accountId, '?foo=1'), 400, 'unknown_parameter');
    expectError(await get(accountId, `?since=${t0 / 1000 + 100}&until=${t0 / 1000}`), 400, 'invalid_parameter');
  });

  it('when an agent or a bot asks, then 403 forbidden', async () => {
    expectError(await get(accountId, '', { role: 'agent' }), 403, 'forbidden');
    expectError(await get(accountId, '', { role: null, actor: { type: 'agent_bot', id: 3, name: 'Bot' } }), 403, 'forbidden');
  });

  it('when the audit_logs feature is off, then an administrator gets 403 feature_disabled', async () => {
    for (const features of [{}, { audit_logs: false }] as Array<Record<string, boolean>>) {
      const res = await get(accountId, '', { features });
      expectError(res, 403, 'feature_disabled');
      expect(res.body.description).toMatch(/disabled/);
    }
  });

  it('when another account asks, then it sees none of these entries', async () => {
    const other = await get(randomAccountId());
    expect(other.body).toEqual({ per_page: 25, total_entries: 0, current_page: 1, audit_logs: [] });
    const res = await fetch(`${svc.url}/api/v1/accounts/${accountId}/audit_logs`, { headers: asCaller({ accountId: accountId + 1, features: { audit_logs: true } }) });
    expect(res.status).toBe(403);
  });

  it('when many events for one auditable arrive together, then versions are 1..n without gaps or repeats', async () => {
    const acc = randomAccountId();
    const n = 15;
    const events = Array.from({ length: n }, (_, i) => envelope({ type: 'team.updated', accountId: acc, data: teamFixture(acc, 77, { name: `t${i}` }), changes: { name: [`t${i - 1}`, `t${i}`] } }));
    await bus.publish(...events);
    await waitFor(async () => (await get(acc)).body.total_entries === n, { what: `${n} entries` });
    const versions = (await get(acc)).body.audit_logs.map((e: any) => e.version).sort((a: number, b: number) => a - b);
    expect(versions).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  });
});

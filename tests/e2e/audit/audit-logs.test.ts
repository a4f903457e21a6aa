import { inboxFixture, waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccountDirectly as seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { createBus, envelope, type TestBus } from '../../../services/audit/test/bus';

describe('audit logs through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let bus: TestBus;
  let acc: SeededAccount;
  const t0 = Date.UTC(2025, 2, 1, 12, 0, 0);
  const minute = 60_000;

  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
    bus = createBus(stack.env.namespace);
    acc = await seedAccount(stack);
    // 28 entries a minute apart: 26 canned responses made by the admin, then two inbox
    // changes made by the agent (so user and type filters have known answers).
    const events = [];
    for (let i = 0; i < 26; i++) {
      events.push(envelope({ type: 'canned_response.created', accountId: acc.accountId, data: { id: 500 + i, short_code: `c${i}`, content: 'hi' }, actor: { type: 'user', id: acc.admin.userId, name: acc.admin.name, email: acc.admin.email }, occurredAt: new Date(t0 + i * minute) }));
    }
    for (let i = 0; i < 2; i++) {
      events.push(envelope({ type: 'inbox.updated', accountId: acc.accountId, data: inboxFixture(acc.accountId, 44, { name: `Inbox ${i}`, hmac_token: 'x' }), changes: { name: [`Inbox ${i - 1}`, `Inbox ${i}`] }, actor: { type: 'user', id: acc.agent.userId, name: acc.agent.name, email: acc.agent.email }, occurredAt: new Date(t0 + (26 + i) * minute) }));
    }
    await bus.publish(...events);
    await waitFor(async () => (await call('GET', `/api/v1/accounts/${acc.accountId}/audit_logs`, { token: acc.admin.token })).body?.total_entries === 28, { what: '28 entries' });
  });
  afterAll(async () => {
    await bus?.close();
    await stack?.stop();
  });

  const path = () => `/api/v1/accounts/${acc.accountId}/audit_logs`;

  it('when an administrator lists, then 25 entries newest first with SPEC fields and the paging fields', async () => {
    const res = await call('GET', path(), { token: acc.admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ per_page: 25, total_entries: 28, current_page: 1 });
    expect(res.body.audit_logs).toHaveLength(25);
    const first = res.body.audit_logs[0];
    expect(Object.keys(first).sort()).toEqual(
      ['id', 'auditable_id', 'auditable_type', 'auditable', 'associated_id', 'associated_type', 'user_id', 'user_type', 'username', 'action', 'audited_changes', 'version', 'comment', 'request_uuid', 'created_at', 'remote_address'].sort(),
    );
    expect(first).toMatchObject({
      auditable_type: 'Inbox',
      auditable_id: 44,
      associated_type: 'Account',
      associated_id: acc.accountId,
      action: 'update',
      audited_changes: { name: ['Inbox 0', 'Inbox 1'] },
      auditable: expect.objectContaining({ id: 44, name: 'Inbox 1', hmac_token: '[REDACTED]' }),
      user_id: acc.agent.userId,
      user_type: 'User',
      username: acc.agent.email,
      created_at: (t0 + 27 * minute) / 1000,
    });
    expect(typeof first.request_uuid).toBe('string');
  });

  it('when page 2 is asked for, then the oldest 3 come back', async () => {
    const res = await call('GET', `${path()}?page=2`, { token: acc.admin.token });
    expect(res.body).toMatchObject({ per_page: 25, total_entries: 28, current_page: 2 });
    expect(res.body.audit_logs.map((e: any) => e.auditable_id)).toEqual([502, 501, 500]);
  });

  it('when filtered by type, action, user and time, then only matching entries come back', async () => {
    const byType = await call('GET', `${path()}?auditable_type=Inbox`, { token: acc.admin.token });
    expect(byType.body.total_entries).toBe(2);
    const byAction = await call('GET', `${path()}?action=create`, { token: acc.admin.token });
    expect(byAction.body.total_entries).toBe(26);
    const byUser = await call('GET', `${path()}?user_id=${acc.agent.userId}`, { token: acc.admin.token });
    expect(byUser.body.total_entries).toBe(2);
    const since = new Date(t0 + 5 * minute).toISOString();
    const until = (t0 + 9 * minute) / 1000;
    const range = await call('GET', `${path()}?since=${since}&until=${until}&action=create`, { token: acc.admin.token });
    expect(range.body.audit_logs.map((e: any) => e.auditable_id)).toEqual([509, 508, 507, 506, 505]);
  });

  it('when a parameter is unknown or malformed, then 400 with the Error body', async () => {
    for (const q of ['?page=0', '?page=two', '?action=erase', '?auditable_type=Macro', '?since=soon', '?sort=id']) {
      const res = await call('GET', `${path()}${q}`, { token: acc.admin.token });
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
      expectErrorBody(res.body);
    }
  });

  it('when an agent asks, then 403 with the Error body', async () => {
    const res = await call('GET', path(), { token: acc.agent.token });
    expect(res.status).toBe(403);
    expectErrorBody(res.body, 'forbidden');
  });

  it('when a bot asks, then 403 with the Error body', async () => {
    const bot = await acc.addBot();
    const res = await call('GET', path(), { token: bot.token });
    expect(res.status).toBe(403);
    expectErrorBody(res.body);
  });

  it('when the account has the audit_logs feature off, then its administrator gets 403 feature_disabled', async () => {
    const off = await seedAccount(stack, { features: {} });
    const res = await call('GET', `/api/v1/accounts/${off.accountId}/audit_logs`, { token: off.admin.token });
    expect(res.status).toBe(403);
    expectErrorBody(res.body, 'feature_disabled');
    expect(res.body.description).toMatch(/audit_logs feature is disabled/);
  });

  it('when an administrator of another account asks for this account, then 403 and nothing leaks', async () => {
    const other = await seedAccount(stack);
    const res = await call('GET', path(), { token: other.admin.token });
    expect(res.status).toBe(403);
    expectErrorBody(res.body);
    const own = await call('GET', `/api/v1/accounts/${other.accountId}/audit_logs`, { token: other.admin.token });
    expect(own.body).toEqual({ per_page: 25, total_entries: 0, current_page: 1, audit_logs: [] });
  });
});

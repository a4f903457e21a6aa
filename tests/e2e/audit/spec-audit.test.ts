import { waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccountDirectly as seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody, type ApiResponse } from '../../support/http';
import { expectFields, type SpecFieldType } from '../../support/spec-fields';
import { createBus, envelope, type TestBus } from '../../../services/audit/test/bus';

/*
 * SPEC operation 10 (`GET /api/v1/accounts/{account_id}/audit_logs`) through the gateway: the
 * list answer and every field of SPEC's Audit log entry with its type (SPEC writes no `|null`
 * for any of them, `current_page` is a number here), 25 a page, and the error answers with
 * SPEC's Error body. Entries come from real API calls of other services, plus one change made
 * by a system actor (no user, no request address) published on the bus.
 */

/** SPEC "Audit log entry": the fields and their types (no `|null` anywhere). */
const ENTRY_FIELDS: Record<string, SpecFieldType> = {
  id: 'integer',
  auditable_id: 'integer',
  associated_id: 'integer',
  user_id: 'integer',
  version: 'integer',
  created_at: 'integer',
  auditable_type: 'string',
  associated_type: 'string',
  user_type: 'string',
  username: 'string',
  comment: 'string',
  request_uuid: 'string',
  remote_address: 'string',
  auditable: 'object',
  action: 'string',
  audited_changes: 'object',
};

function expectEntry(e: any): void {
  expectFields(e, ENTRY_FIELDS);
  expect(['create', 'update', 'destroy']).toContain(e.action);
}

describe('SPEC operation 10: list audit logs, through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let bus: TestBus;
  let acc: SeededAccount;
  const labelIds: number[] = [];
  let portalRes: ApiResponse;

  const path = (a: SeededAccount = acc) => `/api/v1/accounts/${a.accountId}/audit_logs`;
  const list = (query = '', token = acc.admin.token) => call('GET', `${path()}${query}`, { token });

  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
    bus = createBus(stack.env.namespace);
    acc = await seedAccount(stack);
    // 26 labels, a portal (with one change) made through the API, and a label the system
    // deletes: 29 entries.
    for (let i = 0; i < 26; i++) {
      const res = await call('POST', `/api/v1/accounts/${acc.accountId}/labels`, { token: acc.admin.token, body: { title: `spec-audit-${i}` } });
      if (res.status !== 200) throw new Error(`label: ${res.status} ${res.text}`);
      labelIds.push(res.body.id);
    }
    portalRes = await call('POST', `/api/v1/accounts/${acc.accountId}/portals`, { token: acc.admin.token, body: { name: 'Audited', slug: `audited-${acc.accountId}` } });
    if (portalRes.status !== 200) throw new Error(`portal: ${portalRes.status} ${portalRes.text}`);
    const renamed = await call('PATCH', `/api/v1/accounts/${acc.accountId}/portals/audited-${acc.accountId}`, { token: acc.admin.token, body: { name: 'Audited help' } });
    if (renamed.status !== 200) throw new Error(`portal update: ${renamed.status} ${renamed.text}`);
    await bus.publish(envelope({ type: 'label.deleted', accountId: acc.accountId, data: { id: 999_999, title: 'swept' }, actor: { type: 'system', id: null }, ip: null }));
    await waitFor(async () => (await list()).body?.total_entries === 29, { what: '29 entries' });
  });
  afterAll(async () => {
    await bus?.close();
    await stack?.stop();
  });

  it('when an administrator lists, then the answer has SPEC\'s four fields, 25 entries a page, newest first, every entry typed as SPEC says', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['audit_logs', 'current_page', 'per_page', 'total_entries']);
    expect(res.body).toMatchObject({ per_page: 25, total_entries: 29, current_page: 1 });
    expect(res.body.audit_logs).toHaveLength(25);
    for (const e of res.body.audit_logs) expectEntry(e);
    expect(Object.keys(res.body.audit_logs[0]).sort()).toEqual(Object.keys(ENTRY_FIELDS).sort());
    // Newest first (ties inside one second are ordered by the exact time, which seconds hide).
    const times = res.body.audit_logs.map((e: any) => e.created_at);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(res.body.audit_logs[0]).toMatchObject({ auditable_type: 'Label', action: 'destroy' });
  });

  it('when page 2 is asked for (a string in the query), then current_page is the number 2 and the rest come back', async () => {
    const res = await list('?page=2');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ per_page: 25, total_entries: 29, current_page: 2 });
    expect(typeof res.body.current_page).toBe('number');
    expect(res.body.audit_logs).toHaveLength(4);
    for (const e of res.body.audit_logs) expectEntry(e);
  });

  it('when a user changed something through the API, then the entry names the record, the account, the user, the request and the address', async () => {
    const created = (await list('?auditable_type=Label&action=create&page=2')).body.audit_logs.concat((await list('?auditable_type=Label&action=create')).body.audit_logs);
    const first = created.find((e: any) => e.auditable_id === labelIds[0]);
    expect(first).toMatchObject({
      auditable_type: 'Label',
      associated_type: 'Account',
      associated_id: acc.accountId,
      action: 'create',
      user_id: acc.admin.userId,
      user_type: 'User',
      username: acc.admin.email,
      version: 1,
      comment: '',
      auditable: { id: labelIds[0], title: 'spec-audit-0' },
      audited_changes: { id: labelIds[0], title: 'spec-audit-0' },
    });
    expect(first.request_uuid.length).toBeGreaterThan(0);
    expect(first.remote_address).toMatch(/127\.0\.0\.1|::1/);

    const portal = (await list('?auditable_type=Portal')).body.audit_logs;
    expect(portal.map((e: any) => [e.action, e.version])).toEqual([
      ['update', 2],
      ['create', 1],
    ]);
    expect(portal[0].audited_changes).toEqual({ name: ['Audited', 'Audited help'] });
    expect(portal[1].request_uuid).toBe(portalRes.headers.get('x-request-id'));
  });

  it('when no user made the change and no request carried it, then user_id is 0 and the strings are empty, never null', async () => {
    const res = await list('?auditable_type=Label&action=destroy');
    expect(res.body.audit_logs).toHaveLength(1);
    const e = res.body.audit_logs[0];
    expectEntry(e);
    expect(e).toMatchObject({ auditable_id: 999_999, user_id: 0, user_type: 'system', username: '', remote_address: '', comment: '' });
  });

  describe('errors, each with SPEC\'s Error body', () => {
    it('when an agent or a bot asks, then 403; an unknown token, 401', async () => {
      const agent = await list('', acc.agent.token);
      expect(agent.status).toBe(403);
      expectErrorBody(agent.body);
      const bot = await acc.addBot();
      const asBot = await list('', bot.token);
      expect(asBot.status).toBe(403);
      expectErrorBody(asBot.body);
      const unknown = await list('', 'no-such-token');
      expect(unknown.status).toBe(401);
      expectErrorBody(unknown.body);
    });

    it('when the account has the audit_logs feature off, then 403 feature_disabled', async () => {
      const off = await seedAccount(stack, { features: { audit_logs: false } });
      const res = await call('GET', path(off), { token: off.admin.token });
      expect(res.status).toBe(403);
      expectErrorBody(res.body, 'feature_disabled');
    });

    it('when another account\'s administrator asks for this account\'s log, then 403 and nothing leaks', async () => {
      const other = await seedAccount(stack);
      const res = await call('GET', path(), { token: other.admin.token });
      expect(res.status).toBe(403);
      expectErrorBody(res.body);
      expect(res.text).not.toContain('spec-audit-');
      const own = await call('GET', path(other), { token: other.admin.token });
      expect(own.body).toMatchObject({ total_entries: 0, audit_logs: [], current_page: 1 });
    });

    it('when the page is not a positive integer, then 400', async () => {
      for (const q of ['?page=0', '?page=x', '?page=1.5']) {
        const res = await list(q);
        expect({ q, status: res.status }).toEqual({ q, status: 400 });
        expectErrorBody(res.body);
      }
    });
  });
});

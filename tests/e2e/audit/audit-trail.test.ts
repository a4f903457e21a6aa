import { Client } from 'pg';
import { waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, type ApiResponse } from '../../support/http';
import { createBus, envelope, type TestBus } from '../../../services/audit/test/bus';

/*
 * The "done when": changes made through the real routes of other services land in
 * the audit log with their changes, user and request id. The audit service writes its
 * batches one after the other in arrival order, so once a marker event published last is
 * recorded, everything published before it was handled.
 */
describe('audit trail of webhooks, automation rules and agents through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let bus: TestBus;
  let acc: SeededAccount;

  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
    bus = createBus(stack.env.namespace);
    acc = await seedAccount(stack);
  });
  afterAll(async () => {
    await bus?.close();
    await stack?.stop();
  });

  const base = () => `/api/v1/accounts/${acc.accountId}`;

  async function entriesOf(auditableType: string, auditableId: number): Promise<any[]> {
    const res = await call('GET', `${base()}/audit_logs?auditable_type=${auditableType}`, { token: acc.admin.token });
    expect(res.status).toBe(200);
    return res.body.audit_logs.filter((e: any) => e.auditable_id === auditableId);
  }

  /** Waits for the entry `res` (the API call) caused, then checks who and which request. */
  async function entryFor(res: ApiResponse, auditableType: string, auditableId: number, action: string): Promise<any> {
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    const entry = await waitFor(async () => (await entriesOf(auditableType, auditableId)).find((e) => e.action === action), { what: `${auditableType} ${auditableId} ${action} entry` });
    expect(entry).toMatchObject({
      auditable_type: auditableType,
      auditable_id: auditableId,
      associated_type: 'Account',
      associated_id: acc.accountId,
      action,
      user_id: acc.admin.userId,
      user_type: 'User',
      username: acc.admin.email,
      request_uuid: requestId,
    });
    expect(entry.remote_address).toMatch(/127\.0\.0\.1|::1/);
    return entry;
  }

  function ok(res: ApiResponse, what: string): void {
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text}`);
  }

  it('when a webhook is created, changed and deleted, then three entries with versions 1-3, changes, user and request id', async () => {
    const url1 = `https://example.com/hooks/${Date.now()}-a`;
    const url2 = `https://example.com/hooks/${Date.now()}-b`;
    const created = await call('POST', `${base()}/webhooks`, { token: acc.admin.token, body: { url: url1, subscriptions: ['conversation_created'] } });
    ok(created, 'create webhook');
    const id = created.body.payload.webhook.id;
    expect(typeof id).toBe('number');
    const c = await entryFor(created, 'Webhook', id, 'create');
    expect(c.audited_changes).toMatchObject({ id, url: url1 });
    expect(c.version).toBe(1);

    const updated = await call('PATCH', `${base()}/webhooks/${id}`, { token: acc.admin.token, body: { url: url2 } });
    ok(updated, 'update webhook');
    const u = await entryFor(updated, 'Webhook', id, 'update');
    expect(u.audited_changes).toMatchObject({ url: [url1, url2] });
    expect(u.version).toBe(2);

    const deleted = await call('DELETE', `${base()}/webhooks/${id}`, { token: acc.admin.token });
    ok(deleted, 'delete webhook');
    const d = await entryFor(deleted, 'Webhook', id, 'destroy');
    expect(d.audited_changes).toMatchObject({ id });
    expect(d.version).toBe(3);
    // A webhook's signing secret (answered to the administrator) never reaches the log.
    const secret = created.body.payload.webhook.secret;
    expect(typeof secret).toBe('string');
    for (const e of [c, u, d]) {
      expect(JSON.stringify(e)).not.toContain(secret);
      expect(JSON.stringify(e)).not.toMatch(/"secret":"(?!\[REDACTED\])/);
    }
  });

  it('when an automation rule is created, changed and deleted, then three entries with its changes', async () => {
    const body = {
      name: 'Tag VIPs',
      description: 'adds a label',
      event_name: 'conversation_created',
      active: true,
      conditions: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'], query_operator: null }],
      actions: [{ action_name: 'add_label', action_params: ['vip'] }],
    };
    const created = await call('POST', `${base()}/automation_rules`, { token: acc.admin.token, body });
    ok(created, 'create rule');
    const id = created.body.payload[0].id; // SPEC op 2: {payload: [rule]}
    expect(typeof id).toBe('number');
    const c = await entryFor(created, 'AutomationRule', id, 'create');
    expect(c.audited_changes).toMatchObject({ id, name: 'Tag VIPs', event_name: 'conversation_created' });

    const updated = await call('PATCH', `${base()}/automation_rules/${id}`, { token: acc.admin.token, body: { name: 'Tag VIP customers' } });
    ok(updated, 'update rule');
    const u = await entryFor(updated, 'AutomationRule', id, 'update');
    expect(u.audited_changes).toMatchObject({ name: ['Tag VIPs', 'Tag VIP customers'] });

    const deleted = await call('DELETE', `${base()}/automation_rules/${id}`, { token: acc.admin.token });
    ok(deleted, 'delete rule');
    await entryFor(deleted, 'AutomationRule', id, 'destroy');
    expect((await entriesOf('AutomationRule', id)).map((e) => e.version).sort()).toEqual([1, 2, 3]);
  });

  it('when an agent is added, changed and removed, then AccountUser entries with its changes', async () => {
    const email = `audited-${Date.now()}@example.com`;
    const created = await call('POST', `${base()}/agents`, { token: acc.admin.token, body: { name: 'Audited Agent', email, role: 'agent' } });
    ok(created, 'create agent');
    const id = created.body.id;
    expect(typeof id).toBe('number');
    const c = await entryFor(created, 'AccountUser', id, 'create');
    expect(c.audited_changes).toMatchObject({ id, email, role: 'agent' });

    const updated = await call('PATCH', `${base()}/agents/${id}`, { token: acc.admin.token, body: { role: 'administrator' } });
    ok(updated, 'update agent');
    const u = await entryFor(updated, 'AccountUser', id, 'update');
    expect(u.audited_changes).toMatchObject({ role: ['agent', 'administrator'] });

    const deleted = await call('DELETE', `${base()}/agents/${id}`, { token: acc.admin.token });
    ok(deleted, 'delete agent');
    await entryFor(deleted, 'AccountUser', id, 'destroy');
  });

  it('when a custom attribute definition is created, changed and deleted, then CustomAttributeDefinition entries with its changes', async () => {
    const created = await call('POST', `${base()}/custom_attribute_definitions`, {
      token: acc.admin.token,
      body: { attribute_display_name: 'Order number', attribute_key: `order_${Date.now()}`, attribute_display_type: 'text', attribute_model: 'conversation_attribute' },
    });
    ok(created, 'create definition');
    const id = created.body.id;
    expect(typeof id).toBe('number');
    const c = await entryFor(created, 'CustomAttributeDefinition', id, 'create');
    expect(c.audited_changes).toMatchObject({ id, attribute_display_name: 'Order number' });

    const updated = await call('PATCH', `${base()}/custom_attribute_definitions/${id}`, { token: acc.admin.token, body: { attribute_display_name: 'Order no.' } });
    ok(updated, 'update definition');
    const u = await entryFor(updated, 'CustomAttributeDefinition', id, 'update');
    expect(u.audited_changes).toMatchObject({ attribute_display_name: ['Order number', 'Order no.'] });

    const deleted = await call('DELETE', `${base()}/custom_attribute_definitions/${id}`, { token: acc.admin.token });
    ok(deleted, 'delete definition');
    await entryFor(deleted, 'CustomAttributeDefinition', id, 'destroy');
    expect((await entriesOf('CustomAttributeDefinition', id)).map((e) => e.version).sort()).toEqual([1, 2, 3]);
  });

  it('when RabbitMQ redelivers a real event, then it does not double its entry', async () => {
    const created = await call('POST', `${base()}/webhooks`, { token: acc.admin.token, body: { url: `https://example.com/hooks/${Date.now()}-r`, subscriptions: ['message_created'] } });
    ok(created, 'create webhook');
    const id = created.body.payload.webhook.id;
    await entryFor(created, 'Webhook', id, 'create');
    // The very envelope the automation service published, straight from its outbox.
    const db = new Client({ connectionString: stack.env.db.url });
    await db.connect();
    let payload: any;
    try {
      const rows = await db.query(`SELECT payload FROM automation.outbox WHERE routing_key = 'webhook.created' AND (payload->'data'->>'id')::int = $1`, [id]);
      expect(rows.rowCount).toBe(1);
      payload = rows.rows[0].payload;
    } finally {
      await db.end();
    }
    await bus.publish(payload, payload);
    // Handled in arrival order: once this marker is in, both copies were handled.
    const marker = envelope({ type: 'label.created', accountId: acc.accountId, data: { id: 987654, title: 'marker' } });
    await bus.publish(marker);
    await waitFor(async () => (await entriesOf('Label', 987654)).length === 1, { what: 'marker entry' });
    const entries = await entriesOf('Webhook', id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'create', request_uuid: payload.request_id, version: 1 });
  });
});

import { createHmac } from 'node:crypto';
import { Client } from 'pg';
import { waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { apiInboxWithWebhook, createRule, publicConversation, runsOf } from '../../support/automation';
import { createBus, type TestBus } from '../../../services/automation/test/bus';
import { refundRule } from '../../../services/automation/test/helpers';
import { startReceiver, type Received, type Receiver } from '../../../services/automation/test/receiver';

/*
 * Issue 5's "done when", through the gateway with every service running: rules that really
 * run on public-API messages, and webhooks that are signed and retried. The automation
 * consumers run with prefetch 1, so events are handled in the order they were published
 * (a marker handled last proves what came before it was handled). Receivers are real local
 * HTTP servers, hence WEBHOOK_ALLOW_PRIVATE and quick retries.
 */
describe('automation flow (issue 5, done when)', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let bus: TestBus;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    stack = await startStack({
      service: {
        automation: { WEBHOOK_ALLOW_PRIVATE: true, WEBHOOK_RETRY_BASE_MS: 100, WEBHOOK_RETRY_MAX_DELAY_MS: 300, WEBHOOK_POLL_MS: 50, CONSUMER_PREFETCH: 1 },
      },
    });
    call = client(stack.gatewayUrl);
    bus = createBus(stack.env.namespace);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await bus?.close();
    await stack?.stop();
  });

  async function receiver(): Promise<Receiver> {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  async function conversationOf(acc: SeededAccount, id: number): Promise<any> {
    const res = await call('GET', `/api/v1/accounts/${acc.accountId}/conversations/${id}`, { token: acc.admin.token });
    expect(res.status).toBe(200);
    return res.body;
  }

  async function messagesOf(acc: SeededAccount, id: number): Promise<any[]> {
    const res = await call('GET', `/api/v1/accounts/${acc.accountId}/conversations/${id}/messages`, { token: acc.admin.token });
    expect(res.status).toBe(200);
    return res.body.payload;
  }

  async function setup() {
    const acc = await seedAccount(stack);
    const inbox = await apiInboxWithWebhook(call, acc);
    return { acc, inbox };
  }

  it('when a contact writes "refund" through the public API, then the rule labels the conversation billing and sets priority high', async () => {
    const { acc, inbox } = await setup();
    const rule = await createRule(call, acc, refundRule);
    const conv = await publicConversation(call, inbox.inbox_identifier);
    await conv.send('Hello, I would like a refund for order 42');

    const after = await waitFor(async () => {
      const c = await conversationOf(acc, conv.conversationId);
      return c.labels?.includes('billing') && c.priority === 'high' ? c : null;
    }, { what: 'label and priority', timeoutMs: 30_000 });
    expect(after.labels).toEqual(['billing']);
    // The actions are commands the conversations service commits at once; the run is recorded in
    // the rules consumer's transaction, which commits after them: it may trail the label.
    const runs = await waitFor(async () => {
      const r = await runsOf(call, acc, rule.id);
      return r.some((x) => x.matched) ? r : null;
    }, { what: 'matched run recorded', timeoutMs: 30_000 });
    const matched = runs.filter((r) => r.matched);
    expect(matched).toHaveLength(1);
    expect(matched[0]).toMatchObject({ event_name: 'message_created', conversation_id: conv.conversationId, actions: [{ status: 'done' }, { status: 'done' }] });
  });

  it('when a rule is inactive, then it does nothing while an active one fires', async () => {
    const { acc, inbox } = await setup();
    const inactive = await createRule(call, acc, { ...refundRule, name: 'inactive', active: false, actions: [{ action_name: 'add_label', action_params: ['never'] }] });
    await createRule(call, acc, { ...refundRule, actions: [{ action_name: 'add_label', action_params: ['billing'] }] });
    const conv = await publicConversation(call, inbox.inbox_identifier);
    await conv.send('refund please');
    const after = await waitFor(async () => {
      const c = await conversationOf(acc, conv.conversationId);
      return c.labels?.includes('billing') ? c : null;
    }, { what: 'active rule', timeoutMs: 30_000 });
    expect(after.labels).not.toContain('never');
    expect(await runsOf(call, acc, inactive.id)).toEqual([]);
  });

  it('when a rule\'s action would trigger it again, then it runs once (events caused by rules trigger no rules)', async () => {
    const { acc, inbox } = await setup();
    const rule = await createRule(call, acc, {
      name: 'low priority gets looked at',
      event_name: 'conversation_updated',
      conditions: [{ attribute_key: 'priority', filter_operator: 'equal_to', values: ['low'], query_operator: null }],
      actions: [{ action_name: 'add_label', action_params: ['triage'] }],
    });
    const conv = await publicConversation(call, inbox.inbox_identifier);
    const toggled = await call('POST', `/api/v1/accounts/${acc.accountId}/conversations/${conv.conversationId}/toggle_priority`, { token: acc.admin.token, body: { priority: 'low' } });
    expect(toggled.status).toBe(200);
    // The update the rule caused reaches the engine and is skipped, naming the rule.
    await waitFor(async () => (await runsOf(call, acc, rule.id)).some((r) => r.reason === `caused by automation rule ${rule.id}`), { what: 'skipped run', timeoutMs: 30_000 });
    const runs = await runsOf(call, acc, rule.id);
    expect(runs.filter((r) => r.matched)).toHaveLength(1);
    expect((await conversationOf(acc, conv.conversationId)).labels).toEqual(['triage']);
  });

  it('when the same event is delivered again, then its actions do not run again', async () => {
    const { acc, inbox } = await setup();
    const ack = `We got your request ${Date.now()}`;
    const rule = await createRule(call, acc, {
      ...refundRule,
      name: 'acknowledge',
      conditions: [{ attribute_key: 'content', filter_operator: 'contains', values: ['duplicate-check'], query_operator: null }],
      actions: [{ action_name: 'send_message', action_params: [ack] }],
    });
    await createRule(call, acc, {
      ...refundRule,
      name: 'marker',
      conditions: [{ attribute_key: 'content', filter_operator: 'contains', values: ['marker-check'], query_operator: null }],
      actions: [{ action_name: 'add_label', action_params: ['marker'] }],
    });
    const conv = await publicConversation(call, inbox.inbox_identifier);
    const sent = await conv.send('duplicate-check');
    await waitFor(async () => (await messagesOf(acc, conv.conversationId)).some((m) => m.content === ack), { what: 'acknowledgement', timeoutMs: 30_000 });

    // The very envelope the conversations service published, delivered twice more.
    const db = new Client({ connectionString: stack.env.db.url });
    await db.connect();
    let original: any;
    try {
      const rows = await db.query(`SELECT payload FROM conversations.outbox WHERE routing_key = 'message.created' AND (payload->'data'->>'id')::bigint = $1`, [sent.id]);
      expect(rows.rowCount).toBe(1);
      original = rows.rows[0].payload;
    } finally {
      await db.end();
    }
    await bus.publish(original, original);
    await conv.send('marker-check');
    await waitFor(async () => (await conversationOf(acc, conv.conversationId)).labels?.includes('marker'), { what: 'marker label', timeoutMs: 30_000 });

    expect((await messagesOf(acc, conv.conversationId)).filter((m) => m.content === ack)).toHaveLength(1);
    expect((await runsOf(call, acc, rule.id)).filter((r) => r.event_id === original.id)).toHaveLength(1);
  });

  it('when a message arrives, then a webhook receiver gets a delivery it can verify, and one failing twice gets the same delivery id on the retries', async () => {
    const { acc, inbox } = await setup();
    const good = await receiver();
    const flaky = await receiver();
    flaky.respond = (_req, i) => ({ status: i < 2 ? 503 : 200 });
    const hooks = [];
    for (const url of [good.url, flaky.url]) {
      const res = await call('POST', `/api/v1/accounts/${acc.accountId}/webhooks`, { token: acc.admin.token, body: { url, subscriptions: ['message_created'] } });
      expect(res.status).toBe(200);
      hooks.push(res.body.payload.webhook);
    }
    const conv = await publicConversation(call, inbox.inbox_identifier);
    await conv.send('Is anyone there?');

    const delivery = await waitFor(() => good.received.find((r) => r.json?.content === 'Is anyone there?'), { what: 'signed delivery', timeoutMs: 30_000 });
    const verify = (r: Received, secret: string) =>
      r.headers['x-chatwoot-signature'] === `sha256=${createHmac('sha256', secret).update(`${r.headers['x-chatwoot-timestamp']}.${r.body}`).digest('hex')}`;
    expect(verify(delivery, hooks[0].secret)).toBe(true);
    expect(delivery.json).toMatchObject({ event: 'message_created', message_type: 'incoming', conversation: { id: conv.conversationId }, account: { id: acc.accountId } });

    const first = await waitFor(() => flaky.received.find((r) => r.json?.content === 'Is anyone there?'), { what: 'first flaky attempt', timeoutMs: 30_000 });
    const id = first.headers['x-chatwoot-delivery'];
    await waitFor(() => flaky.received.filter((r) => r.headers['x-chatwoot-delivery'] === id).length === 3, { what: 'three attempts', timeoutMs: 30_000 });
    for (const r of flaky.received.filter((x) => x.headers['x-chatwoot-delivery'] === id)) expect(verify(r, hooks[1].secret)).toBe(true);
  });

  it('when an API inbox has a webhook_url, then it gets the inbox\'s message events', async () => {
    const acc = await seedAccount(stack);
    const rx = await receiver();
    const inbox = await apiInboxWithWebhook(call, acc, rx.url);
    const conv = await publicConversation(call, inbox.inbox_identifier);
    await conv.send('via the inbox webhook');
    const got = await waitFor(() => rx.received.find((r) => r.json?.event === 'message_created' && r.json?.content === 'via the inbox webhook'), { what: 'inbox webhook', timeoutMs: 30_000 });
    expect(got.json).toMatchObject({ conversation: { id: conv.conversationId }, inbox: { id: inbox.id } });
    expect(got.headers['x-chatwoot-delivery']).toBeTruthy();
  });

  it('when an agent is assigned, a team set and a reply sent, then the conversation webhook names the assignee and team and carries the last message, as Chatwoot does', async () => {
    const { acc, inbox } = await setup();
    const rx = await receiver();
    const res = await call('POST', `/api/v1/accounts/${acc.accountId}/webhooks`, { token: acc.admin.token, body: { url: rx.url, subscriptions: ['conversation_updated'] } });
    expect(res.status).toBe(200);
    const team = await call('POST', `/api/v1/accounts/${acc.accountId}/teams`, { token: acc.admin.token, body: { name: 'Billing desk' } });
    expect(team.status).toBe(200);
    const conv = await publicConversation(call, inbox.inbox_identifier);
    await conv.send('Where is my refund?');
    const base = `/api/v1/accounts/${acc.accountId}/conversations/${conv.conversationId}`;
    const reply = await call('POST', `${base}/messages`, { token: acc.admin.token, body: { content: 'Looking into it now' } });
    expect(reply.status).toBe(200);
    // The assignments' events come after the reply's message.created (the consumers here handle events in order).
    expect((await call('POST', `${base}/assignments`, { token: acc.admin.token, body: { assignee_id: acc.admin.userId } })).status).toBe(200);
    expect((await call('POST', `${base}/assignments`, { token: acc.admin.token, body: { team_id: team.body.id } })).status).toBe(200);

    const got = await waitFor(() => rx.received.find((r) => r.json?.meta?.team?.id === team.body.id), { what: 'team assignment delivery', timeoutMs: 30_000 });
    expect(got.json.meta.assignee).toMatchObject({ id: acc.admin.userId, name: acc.admin.name, available_name: acc.admin.name, type: 'user' });
    expect(got.json.meta.team).toEqual({ id: team.body.id, name: 'Billing desk' });
    expect(got.json.meta.sender).toMatchObject({ name: 'Rita Refund', type: 'contact' });
    expect(got.json.messages).toHaveLength(1);
    expect(got.json.messages[0]).toMatchObject({ content: 'Looking into it now', message_type: 1, sender_type: 'User', sender: { id: acc.admin.userId, name: acc.admin.name, type: 'user' } });
    expect(got.json.changed_attributes).toEqual([{ team_id: { previous_value: null, current_value: team.body.id } }]);
  });

  it('when a rule reads the contact, then the contacts service\'s record decides', async () => {
    const { acc, inbox } = await setup();
    await createRule(call, acc, {
      name: 'example.com customers asking for help',
      event_name: 'message_created',
      conditions: [
        { attribute_key: 'email', filter_operator: 'contains', values: ['@example.com'], query_operator: 'AND' },
        { attribute_key: 'content', filter_operator: 'contains', values: ['help'], query_operator: null },
      ],
      actions: [{ action_name: 'add_label', action_params: ['support'] }],
    });
    const conv = await publicConversation(call, inbox.inbox_identifier);
    await conv.send('help me please');
    await waitFor(async () => (await conversationOf(acc, conv.conversationId)).labels?.includes('support'), { what: 'support label', timeoutMs: 30_000 });
  });

  it('when a rule body is bad, then 422 names the field', async () => {
    const acc = await seedAccount(stack);
    const res = await call('POST', `/api/v1/accounts/${acc.accountId}/automation_rules`, {
      token: acc.admin.token,
      body: { ...refundRule, actions: [{ action_name: 'add_label', action_params: [] }] },
    });
    expect(res.status).toBe(422);
    expectErrorBody(res.body);
    expect(res.body.errors[0].field).toBe('actions.0.action_params');
  });
});

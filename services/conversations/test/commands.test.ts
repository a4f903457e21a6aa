import { randomUUID } from 'node:crypto';
import { waitFor } from '@parley/testkit';
import { pruneKernelTables } from '@parley/shared';
import { conversationsService } from '../src/service';
import { envelope } from './bus';
import { createConversation, createInbox, expectError } from './fixtures';
import { startHarness, type Harness, type TestAccount } from './harness';

describe('automation commands (internal API)', () => {
  let h: Harness;
  let acc: TestAccount;
  let inbox: any;
  const automation = { actor: { type: 'service' as const, id: 'automation' }, role: null };
  const rule = { type: 'automation_rule', id: 42, name: 'Refunds to billing' };

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.stop());
  beforeEach(async () => {
    acc = await h.account();
    inbox = await createInbox(h, acc);
  });

  const run = (convId: number, command: Record<string, unknown>, key: string = randomUUID(), causation: string = randomUUID()) =>
    h.call('POST', `/internal/accounts/${acc.accountId}/conversations/${convId}/commands`, {
      as: automation,
      body: { idempotency_key: key, actor: rule, causation_id: causation, command },
    });

  it('when a command is applied, then the answer has the new snapshot and its events carry the rule and the cause', async () => {
    const conv = await createConversation(h, acc, inbox.id);
    const cause = randomUUID();
    const res = await run(conv.id, { type: 'add_labels', labels: ['billing', 'refund'] }, 'rule-42:event-1', cause);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ applied: true, conversation: { id: conv.id, display_id: conv.id, labels: ['billing', 'refund'], status: 'open', inbox_id: inbox.id } });
    const evs = (await h.events(acc.accountId)).filter((e) => e.causation_id === cause);
    expect(evs.map((e) => e.type)).toEqual(['conversation.labels_changed', 'conversation.updated', 'message.created']);
    for (const e of evs) expect(e.actor).toEqual(rule);
    expect(evs[2].data.content).toBe('Automation System added billing, refund');
  });

  it('when a change writes activity messages, then the conversation\'s last activity is theirs and the activity order follows it', async () => {
    const older = await createConversation(h, acc, inbox.id);
    const newer = await createConversation(h, acc, inbox.id);
    const row = async (id: number) =>
      (await h.svc.deps.pool.query('SELECT last_activity_at FROM conversations WHERE account_id = $1 AND display_id = $2', [acc.accountId, id])).rows[0].last_activity_at as Date;
    const before = await row(older.id);
    expect(before.getTime()).toBeLessThanOrEqual((await row(newer.id)).getTime());
    await new Promise((r) => setTimeout(r, 10));
    // Muting writes two activities in one transaction (resolved, muted); then the priority's own.
    expect((await run(older.id, { type: 'mute' })).status).toBe(200);
    expect((await run(older.id, { type: 'change_priority', priority: 'high' })).status).toBe(200);
    const activity = (await h.events(acc.accountId, 'message.created')).filter((e) => e.data.conversation_id === older.id && e.data.message_type === 2).at(-1);
    const after = await row(older.id);
    expect(after.getTime()).toBeGreaterThan(before.getTime());
    expect(Math.floor(after.getTime() / 1000)).toBe(activity.data.created_at);
    const listed = await h.call('GET', `/api/v1/accounts/${acc.accountId}/conversations?status=all&sort_by=last_activity_at_desc`, { as: acc.admin });
    const order = listed.body.data.payload.map((c: any) => c.id);
    expect(order.indexOf(older.id)).toBeLessThan(order.indexOf(newer.id));
  });

  it('when the same idempotency key comes again, even concurrently, then the command runs once', async () => {
    const conv = await createConversation(h, acc, inbox.id);
    const key = `rule-42:${randomUUID()}`;
    const results = await Promise.all([1, 2, 3].map(() => run(conv.id, { type: 'add_labels', labels: ['once'] }, key)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(results.filter((r) => r.body.applied)).toHaveLength(1);
    expect(results.every((r) => r.body.conversation.labels.includes('once'))).toBe(true);
    await run(conv.id, { type: 'remove_labels', labels: ['once'] });
    const again = await run(conv.id, { type: 'add_labels', labels: ['once'] }, key);
    expect(again.body).toMatchObject({ applied: false, conversation: { labels: [] } });
    expect(await h.events(acc.accountId, 'conversation.labels_changed')).toHaveLength(2);
  });

  it('when commands with other keys run on one conversation at once, then each applies and none is lost; a key with quotes and backslashes dedupes like any', async () => {
    const conv = await createConversation(h, acc, inbox.id);
    const labels = ['l1', 'l2', 'l3', 'l4', 'l5', 'l6'];
    const results = await Promise.all(labels.map((l) => run(conv.id, { type: 'add_labels', labels: [l] })));
    expect(results.map((r) => r.body.applied)).toEqual(labels.map(() => true));
    const row = await h.svc.deps.pool.query('SELECT labels FROM conversations WHERE account_id = $1 AND display_id = $2', [acc.accountId, conv.id]);
    expect([...row.rows[0].labels].sort()).toEqual(labels);
    const odd = `rule-42:'; SELECT 1; --\\ E'x' $$ ${randomUUID()}`;
    expect((await run(conv.id, { type: 'add_labels', labels: ['odd'] }, odd)).body.applied).toBe(true);
    expect((await run(conv.id, { type: 'add_labels', labels: ['odd'] }, odd)).body.applied).toBe(false);
    const receipt = await h.svc.deps.pool.query('SELECT conversation_id FROM command_receipts WHERE account_id = $1 AND idempotency_key = $2', [acc.accountId, odd]);
    expect(receipt.rowCount).toBe(1);
  });

  it('when a command names an unknown conversation, then it leaves no receipt: the key applies once the conversation exists', async () => {
    const key = `rule-42:${randomUUID()}`;
    expectError(await run(999_998, { type: 'mute' }, key), 404, 'not_found');
    const receipts = await h.svc.deps.pool.query('SELECT 1 FROM command_receipts WHERE account_id = $1 AND idempotency_key = $2', [acc.accountId, key]);
    expect(receipts.rowCount).toBe(0);
    const conv = await createConversation(h, acc, inbox.id);
    expect((await run(conv.id, { type: 'add_labels', labels: ['later'] }, key)).body.applied).toBe(true);
  });

  it('when each kind of command runs, then the conversation changes accordingly', async () => {
    const conv = await createConversation(h, acc, inbox.id);
    const teamId = 9_000 + Math.floor(Math.random() * 1000);
    await h.bus.publish(envelope('team.created', acc.accountId, { id: teamId, name: 'Billing', description: null, allow_auto_assign: false, account_id: acc.accountId }));
    await waitFor(async () => (await h.svc.deps.pool.query(`SELECT 1 FROM projections WHERE kind = 'team' AND id = $1`, [teamId])).rowCount, { what: 'team projected' });

    expect((await run(conv.id, { type: 'assign_agent', assignee_id: acc.agentId })).body.conversation.assignee_id).toBe(acc.agentId);
    expect((await run(conv.id, { type: 'assign_team', team_id: teamId })).body.conversation.team_id).toBe(teamId);
    expect((await run(conv.id, { type: 'change_priority', priority: 'urgent' })).body.conversation.priority).toBe('urgent');
    const until = new Date(Date.now() + 3_600_000).toISOString();
    expect((await run(conv.id, { type: 'change_status', status: 'snoozed', snoozed_until: until })).body.conversation).toMatchObject({ status: 'snoozed', snoozed_until: until });
    expect((await run(conv.id, { type: 'assign_agent', assignee_id: null })).body.conversation.assignee_id).toBeNull();
    const sent = await run(conv.id, { type: 'send_message', content: 'We got your refund request', private: false });
    expect(sent.body.applied).toBe(true);
    const shown = (await h.call('GET', `/api/v1/accounts/${acc.accountId}/conversations/${conv.id}`, { as: acc.admin })).body;
    // An automation reply is not a human first reply.
    expect(shown.first_reply_created_at).toBe(0);
    const messages = (await h.call('GET', `/api/v1/accounts/${acc.accountId}/conversations/${conv.id}/messages`, { as: acc.admin })).body.payload;
    const auto = messages.find((m: any) => m.content === 'We got your refund request');
    expect(auto).toMatchObject({ message_type: 1, sender_type: null, sender_id: null, content_attributes: { automation_rule_id: 42 } });
    expect((await run(conv.id, { type: 'mute' })).body.conversation).toMatchObject({ muted: true, status: 'resolved' });
  });

  it('when the command is malformed, names an unknown conversation, or a stranger, then 422 or 404', async () => {
    const conv = await createConversation(h, acc, inbox.id);
    expectError(await run(conv.id, { type: 'explode' }), 422, undefined, 'command.type');
    expectError(await run(conv.id, { type: 'add_labels', labels: [] }), 422, undefined, 'command.labels');
    expectError(await run(conv.id, { type: 'change_priority', priority: 'none' }), 422, undefined, 'command.priority');
    expectError(await run(999_999, { type: 'mute' }), 404, 'not_found');
    expectError(
      await h.call('POST', `/internal/accounts/${acc.accountId}/conversations/${conv.id}/commands`, { as: automation, body: { actor: rule, command: { type: 'mute' } } }),
      422, undefined, 'idempotency_key',
    );
  });

  it('when a peer asks for a conversation snapshot, then it gets the contract shape', async () => {
    const conv = await createConversation(h, acc, inbox.id, { custom_attributes: { plan: 'pro' } });
    const res = await h.call('GET', `/internal/accounts/${acc.accountId}/conversations/${conv.id}`, { as: automation });
    expect(res.body).toEqual({
      id: conv.id, display_id: conv.id, uuid: conv.uuid, account_id: acc.accountId, inbox_id: inbox.id, status: 'open', priority: null, labels: [],
      assignee_id: null, team_id: null, contact_id: conv.meta.sender.id, contact_inbox_id: expect.any(Number), snoozed_until: null,
      custom_attributes: { plan: 'pro' }, additional_attributes: {}, muted: false, waiting_since: conv.waiting_since, first_reply_created_at: null,
      last_activity_at: expect.any(Number), created_at: conv.created_at, agent_last_seen_at: null, contact_last_seen_at: null,
    });
    expectError(await h.call('GET', `/internal/accounts/${acc.accountId + 1}/conversations/${conv.id}`, { as: automation }), 404);
  });

  it('when a command receipt is older than the dedupe retention, then the kernel pruner deletes it and the same key applies again; a newer one still dedupes', async () => {
    const conv = await createConversation(h, acc, inbox.id);
    const [oldKey, newKey] = [`old-${randomUUID()}`, `new-${randomUUID()}`];
    expect((await run(conv.id, { type: 'add_labels', labels: ['old'] }, oldKey)).body.applied).toBe(true);
    expect((await run(conv.id, { type: 'add_labels', labels: ['new'] }, newKey)).body.applied).toBe(true);
    const config = h.svc.deps.config;
    const pool = h.svc.deps.pool;
    await pool.query(`UPDATE command_receipts SET created_at = now() - ($1 + 1) * interval '1 hour' WHERE idempotency_key = $2`, [config.PROCESSED_EVENTS_RETENTION_HOURS, oldKey]);
    // The run the service's KernelPruner makes, with the tables the service definition names.
    const pruned = await pruneKernelTables(pool, { outboxHours: config.OUTBOX_RETENTION_HOURS, processedEventsHours: config.PROCESSED_EVENTS_RETENTION_HOURS }, {}, conversationsService.timedTables!(config));
    expect(pruned['command_receipts']).toBe(1);
    await run(conv.id, { type: 'remove_labels', labels: ['old', 'new'] });
    expect((await run(conv.id, { type: 'add_labels', labels: ['old'] }, oldKey)).body).toMatchObject({ applied: true, conversation: { labels: ['old'] } });
    expect((await run(conv.id, { type: 'add_labels', labels: ['new'] }, newKey)).body).toMatchObject({ applied: false, conversation: { labels: ['old'] } });
  });
});

describe('retention in a running service', () => {
  it('when the service runs with a prune interval, then its pruner deletes its old dedupe records and command receipts, and keeps the new ones', async () => {
    const h = await startHarness({ KERNEL_PRUNE_INTERVAL_MS: 100 });
    try {
      const pool = h.svc.deps.pool;
      const hours = h.svc.deps.config.PROCESSED_EVENTS_RETENTION_HOURS;
      const [oldEvent, newEvent] = [randomUUID(), randomUUID()];
      await pool.query(`INSERT INTO processed_events (event_id, consumer, processed_at) VALUES ($1, 'test', now() - ($3 + 1) * interval '1 hour'), ($2, 'test', now())`, [oldEvent, newEvent, hours]);
      await pool.query(
        `INSERT INTO command_receipts (account_id, idempotency_key, conversation_id, command_type, created_at) VALUES (1, $1, 1, 'add_labels', now() - ($3 + 1) * interval '1 hour'), (1, $2, 1, 'add_labels', now())`,
        [`old-${oldEvent}`, `new-${newEvent}`, hours],
      );
      // Past the outbox's retention (72 h) but inside the dedupe records' (168 h): kept with them.
      await pool.query(`INSERT INTO command_receipts (account_id, idempotency_key, conversation_id, command_type, created_at) VALUES (1, $1, 1, 'add_labels', now() - interval '100 hours')`, [`mid-${newEvent}`]);
      await waitFor(async () => (await pool.query('SELECT 1 FROM processed_events WHERE event_id = $1 UNION ALL SELECT 1 FROM command_receipts WHERE idempotency_key = $2', [oldEvent, `old-${oldEvent}`])).rows.length === 0);
      expect((await pool.query('SELECT 1 FROM processed_events WHERE event_id = $1', [newEvent])).rows.length).toBe(1);
      expect((await pool.query('SELECT idempotency_key FROM command_receipts WHERE idempotency_key = ANY($1) ORDER BY 1', [[`new-${newEvent}`, `mid-${newEvent}`]])).rows.map((r) => r.idempotency_key)).toEqual([`mid-${newEvent}`, `new-${newEvent}`]);
    } finally {
      await h.stop();
    }
  });

  it('when the prune interval is 0, then the service runs no pruner: an old dedupe record stays', async () => {
    const h = await startHarness({ KERNEL_PRUNE_INTERVAL_MS: 0 });
    try {
      const pool = h.svc.deps.pool;
      const old = randomUUID();
      await pool.query(`INSERT INTO processed_events (event_id, consumer, processed_at) VALUES ($1, 'test', now() - interval '1 year')`, [old]);
      // A pruner on a 0 ms timer would take it at once.
      await new Promise((r) => setTimeout(r, 500));
      expect((await pool.query('SELECT 1 FROM processed_events WHERE event_id = $1', [old])).rows.length).toBe(1);
    } finally {
      await h.stop();
    }
  });
});

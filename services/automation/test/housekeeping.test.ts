import { randomUUID } from 'node:crypto';
import type { RunningService } from '@parley/shared';
import { accountFixture, agentSnapshot, createTestEnv, randomAccountId, waitFor, type TestEnv } from '@parley/testkit';
import type { AutomationConfig } from '../src';
import { Maintenance } from '../src/maintenance';
import { insertRuns, pruneRuns, type NewRun } from '../src/rules/repository';
import { apiFor, refundRule, startAutomation } from './helpers';
import { createBus, envelope, userActor, type TestBus } from './bus';
import { conversation, message } from './fixtures';

describe('automation housekeeping', () => {
  let env: TestEnv;
  let svc: RunningService<AutomationConfig>;
  let bus: TestBus;

  beforeAll(async () => {
    env = await createTestEnv();
    svc = await startAutomation(env);
    bus = createBus(env.namespace);
  });
  afterAll(async () => {
    await bus?.close();
    await svc?.stop();
    await env?.close();
  });

  const count = async (sql: string, args: unknown[]) => Number((await svc.deps.pool.query(sql, args)).rows[0].n);

  it('when runs and finished deliveries are older than their retention, then maintenance deletes them and keeps the rest', async () => {
    const accountId = randomAccountId();
    const api = apiFor(svc, accountId);
    const rule = (await api('POST', '/automation_rules', refundRule)).body.payload[0];
    const pool = svc.deps.pool;
    await pool.query(
      `INSERT INTO rule_runs (account_id, rule_id, event_id, event_type, event_name, matched, created_at)
       VALUES ($1, $2, gen_random_uuid(), 'message.created', 'message_created', false, now() - interval '30 days'),
              ($1, $2, gen_random_uuid(), 'message.created', 'message_created', true, now())`,
      [accountId, rule.id],
    );
    await pool.query(
      `INSERT INTO webhook_deliveries (account_id, kind, url, dedupe_key, delivery_id, event, payload, status, updated_at)
       VALUES ($1, 'rule', 'https://example.com', gen_random_uuid()::text, gen_random_uuid(), 'x', '{}', 'succeeded', now() - interval '30 days'),
              ($1, 'rule', 'https://example.com', gen_random_uuid()::text, gen_random_uuid(), 'x', '{}', 'pending', now() - interval '30 days'),
              ($1, 'rule', 'https://example.com', gen_random_uuid()::text, gen_random_uuid(), 'x', '{}', 'dead', now())`,
      [accountId],
    );
    await new Maintenance(svc.deps).runOnce();
    const runs = (await api('GET', `/automation_rules/${rule.id}/runs`)).body.payload;
    expect(runs.map((r: any) => r.matched)).toEqual([true]);
    const left = (await pool.query('SELECT status FROM webhook_deliveries WHERE account_id = $1 ORDER BY status', [accountId])).rows.map((r) => r.status);
    expect(left).toEqual(['dead', 'pending']);
  });

  it('when the old runs span several prune batches, then the batches walk the oldest ids until none is past the retention', async () => {
    const accountId = randomAccountId();
    const rule = (await apiFor(svc, accountId)('POST', '/automation_rules', refundRule)).body.payload[0];
    const pool = svc.deps.pool;
    // Written in time order, as the engine writes them: seven past the retention, then three recent.
    for (const age of ['40 days', '35 days', '30 days', '29 days', '20 days', '16 days', '15 days', '1 day', '1 hour', '0 seconds']) {
      await pool.query(
        `INSERT INTO rule_runs (account_id, rule_id, event_id, event_type, event_name, matched, created_at)
         VALUES ($1, $2, gen_random_uuid(), 'message.created', 'message_created', false, now() - $3::interval)`,
        [accountId, rule.id, age],
      );
    }
    const deleted: number[] = [];
    for (let n = 1; n > 0; ) deleted.push((n = await pruneRuns(pool, 14, 3)));
    // Only other tests' runs could come first by id, and those are recent: the walk stops at them or at ours.
    expect(deleted.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(7);
    const left = await pool.query<{ age_days: number }>(
      `SELECT extract(day FROM now() - created_at)::int AS age_days FROM rule_runs WHERE rule_id = $1 ORDER BY id`,
      [rule.id],
    );
    expect(left.rows.map((r) => r.age_days)).toEqual([1, 0, 0]);
  });

  it('when a rule is deleted, then its runs go with it, and runs of a rule that no longer exists are not recorded', async () => {
    const accountId = randomAccountId();
    const api = apiFor(svc, accountId);
    const gone = (await api('POST', '/automation_rules', refundRule)).body.payload[0];
    const kept = (await api('POST', '/automation_rules', refundRule)).body.payload[0];
    const run = (ruleId: number): NewRun => ({
      accountId, eventId: randomUUID(), eventType: 'message.created', eventName: 'message_created', conversationId: 5, messageId: 7,
      ruleId, matched: false, reason: null, conditionResults: [false], actions: [], errors: [],
    });
    await insertRuns(svc.deps.pool, [run(gone.id), run(gone.id), run(kept.id)]);
    const runsOf = (ruleId: number) => count('SELECT count(*) AS n FROM rule_runs WHERE rule_id = $1', [ruleId]);
    expect(await runsOf(gone.id)).toBe(2);

    expect((await api('DELETE', `/automation_rules/${gone.id}`)).status).toBe(200);
    expect(await runsOf(gone.id)).toBe(0);
    expect(await runsOf(kept.id)).toBe(1);
    expect((await api('GET', `/automation_rules/${gone.id}/runs`)).status).toBe(404);

    // A batch evaluated before the delete and written after it: its runs of the deleted rule are dropped, the others kept.
    await insertRuns(svc.deps.pool, [run(gone.id), run(kept.id)]);
    expect(await runsOf(gone.id)).toBe(0);
    expect(await runsOf(kept.id)).toBe(2);
  });

  it('when an account is deleted, then its rules, webhooks and projections go', async () => {
    const accountId = randomAccountId();
    const api = apiFor(svc, accountId);
    await api('POST', '/automation_rules', refundRule);
    await api('POST', '/webhooks', { url: 'https://example.com/gone' });
    const keep = randomAccountId();
    await apiFor(svc, keep)('POST', '/automation_rules', refundRule);
    // Copies the payloads read: an agent and a conversation's last message.
    const conv = conversation(accountId, 5);
    await bus.publish(
      envelope('agent.added', accountId, agentSnapshot(accountId, 31, { name: 'Ann', available_name: 'Ann', email: 'ann@example.com' }), { actor: userActor }),
      envelope('message.created', accountId, message(conv, { content: 'hello there' })),
    );
    await waitFor(async () => (await count('SELECT count(*) AS n FROM last_messages WHERE account_id = $1', [accountId])) === 1, { what: 'last message kept' });
    await waitFor(async () => (await count(`SELECT count(*) AS n FROM projections WHERE account_id = $1 AND kind = 'agent'`, [accountId])) === 1, { what: 'agent kept' });

    await bus.publish(envelope('account.deleted', accountId, accountFixture(accountId, { name: 'Gone Inc' }), { actor: userActor }));
    await waitFor(async () => (await count('SELECT count(*) AS n FROM automation_rules WHERE account_id = $1', [accountId])) === 0, { what: 'rules gone' });
    expect(await count('SELECT count(*) AS n FROM webhooks WHERE account_id = $1', [accountId])).toBe(0);
    expect(await count('SELECT count(*) AS n FROM projections WHERE account_id = $1', [accountId])).toBe(0);
    expect(await count('SELECT count(*) AS n FROM last_messages WHERE account_id = $1', [accountId])).toBe(0);
    expect((await api('GET', '/automation_rules')).body.payload).toEqual([]);
    expect((await apiFor(svc, keep)('GET', '/automation_rules')).body.payload).toHaveLength(1);
  });

  it('when a conversation is deleted, then its last message is no longer kept', async () => {
    const accountId = randomAccountId();
    const conv = conversation(accountId, 6);
    await bus.publish(envelope('message.created', accountId, message(conv, { content: 'soon gone' })));
    await waitFor(async () => (await count('SELECT count(*) AS n FROM last_messages WHERE account_id = $1 AND conversation_id = 6', [accountId])) === 1, { what: 'last message kept' });
    await bus.publish(envelope('conversation.deleted', accountId, conv, { actor: userActor }));
    await waitFor(async () => (await count('SELECT count(*) AS n FROM last_messages WHERE account_id = $1 AND conversation_id = 6', [accountId])) === 0, { what: 'last message gone' });
  });
});

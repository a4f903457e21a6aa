import { Client } from 'pg';
import type { RunningService } from '@parley/shared';
import { createTestEnv, randomAccountId, type TestEnv } from '@parley/testkit';
import type { AutomationConfig } from '../src';
import { apiFor, expectError, refundRule, startAutomation } from './helpers';

describe('automation rules API (service level)', () => {
  let env: TestEnv;
  let svc: RunningService<AutomationConfig>;
  let db: Client;

  beforeAll(async () => {
    env = await createTestEnv();
    svc = await startAutomation(env, { WEBHOOK_ALLOW_PRIVATE: false });
    db = new Client({ connectionString: env.db.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await svc?.stop();
    await env?.close();
  });

  async function outbox(type: string, id: number): Promise<any[]> {
    const { rows } = await db.query(`SELECT payload FROM automation.outbox WHERE routing_key = $1 AND (payload->'data'->>'id')::int = $2 ORDER BY id`, [type, id]);
    return rows.map((r) => r.payload);
  }

  it('when an administrator creates a rule, then it answers {payload:[rule]} and the rule reads back', async () => {
    const accountId = randomAccountId();
    const api = apiFor(svc, accountId);
    const res = await api('POST', '/automation_rules', refundRule);
    expect(res.status).toBe(200);
    expect(res.body.payload).toHaveLength(1);
    const rule = res.body.payload[0];
    expect(rule).toMatchObject({
      account_id: accountId,
      name: refundRule.name,
      description: refundRule.description,
      event_name: 'message_created',
      active: true,
      // SPEC types query_operator a string: the last condition's, which joins nothing, is stored as "and".
      conditions: [{ attribute_key: 'content', filter_operator: 'contains', values: ['refund'], query_operator: 'and' }],
      actions: refundRule.actions,
    });
    expect(typeof rule.id).toBe('number');
    expect(Math.abs(rule.created_on - Date.now() / 1000)).toBeLessThan(3600);

    const shown = await api('GET', `/automation_rules/${rule.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({ payload: rule });
    const list = await api('GET', '/automation_rules');
    expect(list.body).toEqual({ payload: [rule] });

    const [ev] = await outbox('automation_rule.created', rule.id);
    expect(ev).toMatchObject({ account_id: accountId, data: { id: rule.id, name: refundRule.name }, actor: { type: 'user' } });
  });

  it('when a rule is updated, then only the given fields change and the event carries the changes', async () => {
    const api = apiFor(svc, randomAccountId());
    const rule = (await api('POST', '/automation_rules', refundRule)).body.payload[0];
    const res = await api('PATCH', `/automation_rules/${rule.id}`, { name: 'Renamed', active: false });
    expect(res.status).toBe(200);
    expect(res.body.payload).toMatchObject({ id: rule.id, name: 'Renamed', active: false, event_name: 'message_created', actions: refundRule.actions });
    const put = await api('PUT', `/automation_rules/${rule.id}`, { conditions: [] });
    expect(put.body.payload.conditions).toEqual([]);
    const [ev] = await outbox('automation_rule.updated', rule.id);
    expect(ev.changes).toEqual({ name: [refundRule.name, 'Renamed'], active: [true, false] });
    // An update that changes nothing answers the rule and writes no event.
    const same = await api('PATCH', `/automation_rules/${rule.id}`, { name: 'Renamed', conditions: [] });
    expect(same.body.payload).toEqual(put.body.payload);
    expect(await outbox('automation_rule.updated', rule.id)).toHaveLength(2);
  });

  it('when a rule is cloned, then a copy with a new id exists; when deleted, then it answers {} and is gone', async () => {
    const api = apiFor(svc, randomAccountId());
    const rule = (await api('POST', '/automation_rules', refundRule)).body.payload[0];
    const clone = await api('POST', `/automation_rules/${rule.id}/clone`);
    expect(clone.status).toBe(200);
    expect(clone.body.payload.id).not.toBe(rule.id);
    expect(clone.body.payload).toMatchObject({ name: rule.name, conditions: rule.conditions, actions: rule.actions, active: true });

    const del = await api('DELETE', `/automation_rules/${rule.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({});
    expectError(await api('GET', `/automation_rules/${rule.id}`), 404);
    expect((await api('GET', '/automation_rules')).body.payload.map((r: any) => r.id)).toEqual([clone.body.payload.id]);
    expect(await outbox('automation_rule.deleted', rule.id)).toHaveLength(1);
  });

  it('when an agent or a bot calls, then 403 (even for an unknown id); another account\'s rule is 404', async () => {
    const accountId = randomAccountId();
    const api = apiFor(svc, accountId);
    const rule = (await api('POST', '/automation_rules', refundRule)).body.payload[0];
    expectError(await api('GET', '/automation_rules', undefined, { role: 'agent' }), 403);
    expectError(await api('POST', '/automation_rules', refundRule, { role: 'agent' }), 403);
    expectError(await api('DELETE', '/automation_rules/999999', undefined, { role: 'agent' }), 403);
    expectError(await api('GET', '/automation_rules', undefined, { role: null, actor: { type: 'agent_bot', id: 3 } }), 403);
    const other = apiFor(svc, randomAccountId());
    expectError(await other('GET', `/automation_rules/${rule.id}`), 404);
    expectError(await other('PATCH', `/automation_rules/${rule.id}`, { name: 'x' }), 404);
    expectError(await other('DELETE', `/automation_rules/${rule.id}`), 404);
    expectError(await other('POST', `/automation_rules/${rule.id}/clone`), 404);
    expectError(await api('GET', '/automation_rules/abc'), 404);
  });

  const cond = (c: Record<string, unknown>) => ({ ...refundRule, conditions: [{ attribute_key: 'content', filter_operator: 'contains', values: ['x'], query_operator: null, ...c }] });
  const act = (a: Record<string, unknown>) => ({ ...refundRule, actions: [a] });
  const without = (key: string) => Object.fromEntries(Object.entries(refundRule).filter(([k]) => k !== key));

  const badBodies: Array<[string, unknown, string]> = [
    ['name missing', without('name'), 'name'],
    ['event_name missing', without('event_name'), 'event_name'],
    ['conditions missing', without('conditions'), 'conditions'],
    ['conditions null', { ...refundRule, conditions: null }, 'conditions'],
    ['actions missing', without('actions'), 'actions'],
    ['actions empty', { ...refundRule, actions: [] }, 'actions'],
    ['unknown event_name', { ...refundRule, event_name: 'contact_created' }, 'event_name'],
    ['active not a boolean', { ...refundRule, active: 'maybe' }, 'active'],
    ['unknown attribute_key', cond({ attribute_key: 'shoe_size' }), 'conditions.0.attribute_key'],
    ['operator not valid for the key', cond({ attribute_key: 'status', filter_operator: 'contains', values: ['open'] }), 'conditions.0.filter_operator'],
    ['unknown operator', cond({ filter_operator: 'resembles' }), 'conditions.0.filter_operator'],
    ['bad query_operator', cond({ query_operator: 'XOR' }), 'conditions.0.query_operator'],
    ['bad status value', cond({ attribute_key: 'status', filter_operator: 'equal_to', values: ['closed'] }), 'conditions.0.values.0'],
    ['values missing', cond({ values: undefined }), 'conditions.0.values'],
    ['values not strings', cond({ values: [{ a: 1 }] }), 'conditions.0.values'],
    ['non-numeric id value', cond({ attribute_key: 'assignee_id', filter_operator: 'equal_to', values: ['bob'] }), 'conditions.0.values.0'],
    ['bad custom_attribute_type', cond({ attribute_key: 'plan', custom_attribute_type: 'user_attribute' }), 'conditions.0.custom_attribute_type'],
    [
      'a middle condition without query_operator',
      { ...refundRule, conditions: [cond({}).conditions[0], cond({}).conditions[0]] },
      'conditions.0.query_operator',
    ],
    ['condition not an object', { ...refundRule, conditions: ['content'] }, 'conditions.0'],
    ['unknown action', act({ action_name: 'launch_rocket', action_params: [] }), 'actions.0.action_name'],
    ['unsupported Chatwoot action', act({ action_name: 'send_email_transcript', action_params: ['a@b.c'] }), 'actions.0.action_name'],
    ['add_label without labels', act({ action_name: 'add_label', action_params: [] }), 'actions.0.action_params'],
    ['add_label with a non-string', act({ action_name: 'add_label', action_params: [{}] }), 'actions.0.action_params.0'],
    ['assign_agent with a name', act({ action_name: 'assign_agent', action_params: ['bob'] }), 'actions.0.action_params.0'],
    ['change_priority to a bad value', act({ action_name: 'change_priority', action_params: ['asap'] }), 'actions.0.action_params.0'],
    ['change_status to a bad value', act({ action_name: 'change_status', action_params: ['closed'] }), 'actions.0.action_params.0'],
    ['send_message without text', act({ action_name: 'send_message', action_params: [] }), 'actions.0.action_params'],
    ['send_webhook_event to a non-URL', act({ action_name: 'send_webhook_event', action_params: ['not a url'] }), 'actions.0.action_params.0'],
    ['send_webhook_event to ftp', act({ action_name: 'send_webhook_event', action_params: ['ftp://example.com/x'] }), 'actions.0.action_params.0'],
    ['send_webhook_event to loopback', act({ action_name: 'send_webhook_event', action_params: ['http://127.0.0.1:9/x'] }), 'actions.0.action_params.0'],
    ['resolve_conversation with params', act({ action_name: 'resolve_conversation', action_params: ['now'] }), 'actions.0.action_params'],
    ['action_params not an array', act({ action_name: 'add_label', action_params: 'billing' }), 'actions.0.action_params'],
  ];
  it.each(badBodies.map(([what, body, field]) => [what, field, body] as const))('when the body has %s, then 422 naming %s', async (_what, field, body) => {
    const api = apiFor(svc, randomAccountId());
    const res = await api('POST', '/automation_rules', body);
    expectError(res, 422, field);
    expect(res.body.errors.every((e: any) => e.code)).toBe(true);
  });

  it('when an update carries a bad field, then 422 naming it and the rule is unchanged', async () => {
    const api = apiFor(svc, randomAccountId());
    const rule = (await api('POST', '/automation_rules', refundRule)).body.payload[0];
    expectError(await api('PATCH', `/automation_rules/${rule.id}`, { actions: [{ action_name: 'nope' }] }), 422, 'actions.0.action_name');
    expectError(await api('PATCH', `/automation_rules/${rule.id}`, { name: '' }), 422, 'name');
    expect((await api('GET', `/automation_rules/${rule.id}`)).body.payload).toEqual(rule);
  });

  it('when the JSON is malformed, then 400; when the body is an array, then 422', async () => {
    const api = apiFor(svc, randomAccountId());
    const bad = await api('POST', '/automation_rules', '{"name": ');
    expectError(bad, 400);
    expect(bad.body.errors[0].code).toBe('malformed_json');
    expectError(await api('POST', '/automation_rules', []), 422);
  });

  it('when query operators come in any case and custom attributes are named, then they are accepted', async () => {
    const api = apiFor(svc, randomAccountId());
    const res = await api('POST', '/automation_rules', {
      ...refundRule,
      event_name: 'conversation_updated',
      conditions: [
        { attribute_key: 'plan', custom_attribute_type: 'contact_attribute', filter_operator: 'equal_to', values: ['gold'], query_operator: 'and' },
        { attribute_key: 'status', filter_operator: 'attribute_changed', values: { from: ['open'], to: ['resolved'] }, query_operator: 'Or' },
        { attribute_key: 'labels', filter_operator: 'is_present', query_operator: null },
      ],
      actions: [
        { action_name: 'assign_agent', action_params: [12] },
        { action_name: 'assign_team', action_params: ['nil'] },
        { action_name: 'snooze_conversation', action_params: [] },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.payload[0].conditions[1]).toMatchObject({ values: { from: ['open'], to: ['resolved'] }, query_operator: 'Or' });
    // SPEC types action_params as strings: an id sent as a number answers as its decimal text.
    expect(res.body.payload[0].actions[0]).toEqual({ action_name: 'assign_agent', action_params: ['12'] });
  });

  it('when runs are listed for a rule that never ran, then an empty page; for an unknown rule, 404', async () => {
    const api = apiFor(svc, randomAccountId());
    const rule = (await api('POST', '/automation_rules', refundRule)).body.payload[0];
    const runs = await api('GET', `/automation_rules/${rule.id}/runs`);
    expect(runs.status).toBe(200);
    expect(runs.body).toEqual({ meta: { count: 0, current_page: 1, per_page: 25 }, payload: [] });
    expectError(await api('GET', '/automation_rules/999999/runs'), 404);
    expectError(await api('GET', `/automation_rules/${rule.id}/runs?page=zero`), 400);
  });
});

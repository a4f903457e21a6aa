import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';

/* Automation rules CRUD through the gateway (SPEC op 2 and Chatwoot's other rule routes). */
describe('automation rules through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;

  beforeAll(async () => {
    stack = await startStack({ only: ['automation'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const base = () => `/api/v1/accounts/${acc.accountId}/automation_rules`;
  const body = {
    name: 'Add label on message create event',
    description: 'Add label support and sales on message create event if incoming message content contains text help',
    event_name: 'message_created',
    active: true,
    actions: [{ action_name: 'add_label', action_params: ['support'] }],
    conditions: [{ attribute_key: 'content', filter_operator: 'contains', query_operator: 'OR', values: ['help'] }],
  };

  it('when an administrator posts the SPEC sample, then 200 {payload:[rule]} and the rule lists, shows, updates, clones and deletes', async () => {
    const created = await call('POST', base(), { token: acc.admin.token, body });
    expect(created.status).toBe(200);
    expect(created.body.payload).toHaveLength(1);
    const rule = created.body.payload[0];
    expect(rule).toMatchObject({ account_id: acc.accountId, name: body.name, event_name: 'message_created', active: true, actions: body.actions });
    expect(rule.conditions[0]).toMatchObject({ attribute_key: 'content', filter_operator: 'contains', values: ['help'], query_operator: 'OR' });
    expect(Number.isInteger(rule.created_on)).toBe(true);

    expect((await call('GET', base(), { token: acc.admin.token })).body.payload.map((r: any) => r.id)).toContain(rule.id);
    expect((await call('GET', `${base()}/${rule.id}`, { token: acc.admin.token })).body.payload).toEqual(rule);
    const updated = await call('PATCH', `${base()}/${rule.id}`, { token: acc.admin.token, body: { active: false } });
    expect(updated.body.payload).toMatchObject({ id: rule.id, active: false });
    const clone = await call('POST', `${base()}/${rule.id}/clone`, { token: acc.admin.token });
    expect(clone.status).toBe(200);
    expect(clone.body.payload).toMatchObject({ name: body.name, active: false });
    expect(clone.body.payload.id).not.toBe(rule.id);
    const runs = await call('GET', `${base()}/${rule.id}/runs`, { token: acc.admin.token });
    expect(runs.body).toEqual({ meta: { count: 0, current_page: 1, per_page: 25 }, payload: [] });

    const del = await call('DELETE', `${base()}/${rule.id}`, { token: acc.admin.token });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({});
    const gone = await call('GET', `${base()}/${rule.id}`, { token: acc.admin.token });
    expect(gone.status).toBe(404);
    expectErrorBody(gone.body, 'not_found');
  });

  it('when an agent, a bot or an unknown token calls, then 403, 403 and 401 with the Error body', async () => {
    const agent = await call('POST', base(), { token: acc.agent.token, body });
    expect(agent.status).toBe(403);
    expectErrorBody(agent.body);
    const bot = await acc.addBot();
    const byBot = await call('GET', base(), { token: bot.token });
    expect(byBot.status).toBe(403);
    expectErrorBody(byBot.body);
    const anon = await call('GET', base(), { token: 'nope-not-a-token' });
    expect(anon.status).toBe(401);
    expectErrorBody(anon.body);
  });

  it('when another account\'s administrator asks for the rule, then it is not theirs to see', async () => {
    const rule = (await call('POST', base(), { token: acc.admin.token, body })).body.payload[0];
    const other = await seedAccount(stack);
    const res = await call('GET', `/api/v1/accounts/${other.accountId}/automation_rules/${rule.id}`, { token: other.admin.token });
    expect(res.status).toBe(404);
    expectErrorBody(res.body, 'not_found');
    const cross = await call('GET', `${base()}/${rule.id}`, { token: other.admin.token });
    expect(cross.status).toBe(403);
  });

  it.each([
    ['no name', { ...body, name: undefined }, 'name'],
    ['no event_name', { ...body, event_name: undefined }, 'event_name'],
    ['no conditions', { ...body, conditions: undefined }, 'conditions'],
    ['no actions', { ...body, actions: undefined }, 'actions'],
    ['an unknown event', { ...body, event_name: 'contact_created' }, 'event_name'],
    ['an unknown attribute', { ...body, conditions: [{ ...body.conditions[0], attribute_key: 'mood' }] }, 'conditions.0.attribute_key'],
    ['an operator the attribute does not take', { ...body, conditions: [{ ...body.conditions[0], attribute_key: 'priority', values: ['high'] }] }, 'conditions.0.filter_operator'],
    ['a bad query operator', { ...body, conditions: [{ ...body.conditions[0], query_operator: 'NAND' }] }, 'conditions.0.query_operator'],
    ['an unknown action', { ...body, actions: [{ action_name: 'mute', action_params: [] }] }, 'actions.0.action_name'],
    ['a bad action param', { ...body, actions: [{ action_name: 'change_priority', action_params: ['soon'] }] }, 'actions.0.action_params.0'],
  ])('when the body has %s, then 422 naming the field', async (_what, bad, field) => {
    const res = await call('POST', base(), { token: acc.admin.token, body: bad });
    expect(res.status).toBe(422);
    expectErrorBody(res.body, undefined);
    expect(res.body.errors.map((e: any) => e.field)).toContain(field);
  });

  it('when the body is not JSON, then 400 malformed_json', async () => {
    const res = await call('POST', base(), { token: acc.admin.token, raw: '{"name":' });
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 'malformed_json');
  });
});

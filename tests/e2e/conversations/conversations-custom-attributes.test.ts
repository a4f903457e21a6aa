import { tapEvents, type EventTap } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';

/** Chatwoot's custom attribute definitions through the gateway (routed to the conversations service). */
describe('custom attribute definitions through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let tap: EventTap;
  const base = () => `/api/v1/accounts/${acc.accountId}/custom_attribute_definitions`;

  beforeAll(async () => {
    stack = await startStack({ only: ['conversations'] });
    call = client(stack.gatewayUrl);
    tap = await tapEvents(stack.env.namespace, ['custom_attribute_definition.*']);
  });
  afterAll(async () => {
    await tap?.close();
    await stack?.stop();
  });
  beforeEach(async () => {
    acc = await seedAccount(stack);
  });

  it('when an administrator defines attributes, then every member lists them by model and each change is announced', async () => {
    const created = await call('POST', base(), {
      token: acc.admin.token,
      body: { custom_attribute_definition: { attribute_display_name: 'Plan', attribute_key: 'plan', attribute_display_type: 'list', attribute_model: 'contact_attribute', attribute_values: ['free', 'pro'] } },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ attribute_key: 'plan', attribute_display_type: 'list', attribute_model: 'contact_attribute', attribute_values: ['free', 'pro'] });
    const order = await call('POST', base(), { token: acc.admin.token, body: { attribute_display_name: 'Order', attribute_key: 'order_id', attribute_display_type: 1 } });
    expect(order.body).toMatchObject({ attribute_model: 'conversation_attribute', attribute_display_type: 'number' });

    const all = await call('GET', base(), { token: acc.agent.token });
    expect(all.body.map((d: any) => d.attribute_key)).toEqual(['plan', 'order_id']);
    expect((await call('GET', `${base()}?attribute_model=contact_attribute`, { token: acc.agent.token })).body.map((d: any) => d.id)).toEqual([created.body.id]);
    expect((await call('GET', `${base()}/${order.body.id}`, { token: acc.agent.token })).body).toEqual(order.body);

    const updated = await call('PATCH', `${base()}/${order.body.id}`, { token: acc.admin.token, body: { attribute_description: 'Shop order' } });
    expect(updated.body.attribute_description).toBe('Shop order');
    expect((await call('DELETE', `${base()}/${created.body.id}`, { token: acc.admin.token })).body).toEqual({});

    const ev = await tap.next('custom_attribute_definition.updated', (e) => e.account_id === acc.accountId);
    expect(ev).toMatchObject({ actor: { type: 'user', id: acc.admin.userId }, changes: { attribute_description: [null, 'Shop order'] } });
    await tap.next('custom_attribute_definition.deleted', (e) => e.account_id === acc.accountId && e.data['id'] === created.body.id);
  });

  it('when the caller may not write, the key is taken, or the id is another account\'s, then 4xx with the Error body', async () => {
    const d = await call('POST', base(), { token: acc.admin.token, body: { attribute_display_name: 'Order', attribute_key: 'order_id' } });
    const agentWrite = await call('POST', base(), { token: acc.agent.token, body: { attribute_display_name: 'X', attribute_key: 'x' } });
    expect(agentWrite.status).toBe(403);
    expectErrorBody(agentWrite.body, 'forbidden');
    const bot = await acc.addBot();
    const botRead = await call('GET', base(), { token: bot.token });
    expect(botRead.status).toBe(403);
    expectErrorBody(botRead.body, 'bot_forbidden');
    const dup = await call('POST', base(), { token: acc.admin.token, body: { attribute_display_name: 'Order 2', attribute_key: 'order_id' } });
    expect(dup.status).toBe(409);
    expectErrorBody(dup.body, 'taken');
    const standard = await call('POST', base(), { token: acc.admin.token, body: { attribute_display_name: 'Priority', attribute_key: 'priority' } });
    expect(standard.status).toBe(422);
    expectErrorBody(standard.body, 'key_conflict');
    const malformed = await call('POST', base(), { token: acc.admin.token, raw: '{"attribute_key":' });
    expect(malformed.status).toBe(400);
    expectErrorBody(malformed.body, 'malformed_json');
    const badQuery = await call('GET', `${base()}?attribute_model=ticket`, { token: acc.agent.token });
    expect(badQuery.status).toBe(400);
    expectErrorBody(badQuery.body);
    const other = await seedAccount(stack);
    const foreign = await call('DELETE', `/api/v1/accounts/${other.accountId}/custom_attribute_definitions/${d.body.id}`, { token: other.admin.token });
    expect(foreign.status).toBe(404);
    expectErrorBody(foreign.body, 'not_found');
    expect((await call('GET', `${base()}/${d.body.id}`, { token: acc.admin.token })).status).toBe(200);
  });
});

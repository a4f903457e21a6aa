import { waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';

/** Saved filters (/custom_filters) through the gateway: round trip, types, bodies, privacy, validation, the limit. */
describe('/api/v1/accounts/{id}/custom_filters through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  const CF = () => `/api/v1/accounts/${acc.accountId}/custom_filters`;
  const openUnassigned = {
    payload: [
      { attribute_key: 'status', filter_operator: 'equal_to', values: ['open'], query_operator: 'and' },
      { attribute_key: 'assignee_id', filter_operator: 'is_not_present', values: [], query_operator: null },
    ],
  };
  const vipContacts = { payload: [{ attribute_key: 'labels', filter_operator: 'equal_to', values: ['vip'] }] };

  beforeAll(async () => {
    stack = await startStack({ only: ['conversations'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
  });
  afterAll(() => stack?.stop());

  it('when a filter is saved flat as the dashboard sends it (filter_type 0), then it round-trips by name through index, show, update and delete', async () => {
    const made = await call('POST', CF(), { token: acc.agent.token, body: { name: 'Open, unassigned', filter_type: 0, query: openUnassigned } });
    expect(made.status).toBe(200);
    expect(made.body).toEqual({ id: expect.any(Number), name: 'Open, unassigned', filter_type: 'conversation', query: openUnassigned, created_at: expect.any(String), updated_at: expect.any(String) });
    const id = made.body.id;
    const list = await call('GET', CF(), { token: acc.agent.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([made.body]);
    expect((await call('GET', `${CF()}/${id}`, { token: acc.agent.token })).body).toEqual(made.body);

    const renamed = await call('PATCH', `${CF()}/${id}`, { token: acc.agent.token, body: { custom_filter: { name: 'Waiting' } } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, name: 'Waiting', filter_type: 'conversation', query: openUnassigned });
    const put = await call('PUT', `${CF()}/${id}`, { token: acc.agent.token, body: { query: { payload: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['pending'] }] } } });
    expect(put.status).toBe(200);
    expect(put.body.query.payload[0].values).toEqual(['pending']);
    expect(put.body.name).toBe('Waiting');

    const gone = await call('DELETE', `${CF()}/${id}`, { token: acc.agent.token });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({});
    const again = await call('GET', `${CF()}/${id}`, { token: acc.agent.token });
    expect(again.status).toBe(404);
    expectErrorBody(again.body, 'not_found');
  });

  it('when filters of each type are saved (wrapped, names or 1/2 or "type"), then the index lists one type at a time, conversation by default', async () => {
    const user = await acc.addUser('agent');
    const save = async (body: unknown) => {
      const res = await call('POST', CF(), { token: user.token, body });
      expect(res.status).toBe(200);
      return res.body;
    };
    const conv = await save({ custom_filter: { name: 'Mine', filter_type: 'conversation', query: openUnassigned } });
    const contact = await save({ custom_filter: { name: 'VIPs', filter_type: 1, query: vipContacts } });
    const report = await save({ name: 'Q3', filter_type: '2', query: { since: 1, until: 2, anything: ['kept'] } });
    const viaType = await save({ name: 'Swagger', type: 'contact', query: vipContacts });
    expect([contact.filter_type, report.filter_type, viaType.filter_type]).toEqual(['contact', 'report', 'contact']);
    expect(report.query).toEqual({ since: 1, until: 2, anything: ['kept'] });
    expect((await call('GET', CF(), { token: user.token })).body).toEqual([conv]);
    expect((await call('GET', `${CF()}?filter_type=contact`, { token: user.token })).body).toEqual([contact, viaType]);
    expect((await call('GET', `${CF()}?filter_type=2`, { token: user.token })).body).toEqual([report]);
    const bad = await call('GET', `${CF()}?filter_type=campaign`, { token: user.token });
    expect(bad.status).toBe(400);
    expectErrorBody(bad.body, 'invalid_parameter');
  });

  it("when another user asks for, changes or deletes someone's filter, then it is 404 and the filter stays theirs", async () => {
    const made = await call('POST', CF(), { token: acc.admin.token, body: { name: 'Admin only', query: openUnassigned } });
    const id = made.body.id;
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'Mine now' }], ['PUT', { name: 'Mine now' }], ['DELETE', undefined]] as const) {
      const res = await call(method, `${CF()}/${id}`, { token: acc.agent.token, body });
      expect([method, res.status]).toEqual([method, 404]);
      expectErrorBody(res.body, 'not_found');
    }
    expect((await call('GET', CF(), { token: acc.agent.token })).body.map((f: any) => f.id)).not.toContain(id);
    expect((await call('GET', `${CF()}/${id}`, { token: acc.admin.token })).body.name).toBe('Admin only');
    // Another account's member cannot reach it either.
    const other = await seedAccount(stack);
    expect((await call('GET', `/api/v1/accounts/${other.accountId}/custom_filters/${id}`, { token: other.admin.token })).status).toBe(404);
  });

  it('when the query is not a filter of its type, then 422 names the part of the query', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'x', query: { payload: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'], query_operator: 'and' }, { attribute_key: 'status', filter_operator: 'contains', values: ['o'] }] } }, 'query.payload.1.filter_operator'],
      [{ name: 'x', query: { payload: [{ attribute_key: 'no_such_attribute', filter_operator: 'equal_to', values: ['o'] }] } }, 'query.payload.0.attribute_key'],
      [{ name: 'x', filter_type: 'contact', query: { payload: [{ attribute_key: 'blocked', filter_operator: 'contains', values: ['t'] }] } }, 'query.payload.0.filter_operator'],
      [{ name: 'x', filter_type: 'contact', query: { payload: [] } }, 'query.payload'],
      [{ name: 'x', query: { filters: [] } }, 'query.payload'],
      [{ name: 'x', query: [{ attribute_key: 'status' }] }, 'query'],
      [{ name: 'x' }, 'query'],
      [{ query: openUnassigned }, 'name'],
      [{ name: ' ', query: openUnassigned }, 'name'],
      [{ name: 'x', filter_type: 'campaign', query: openUnassigned }, 'filter_type'],
      [{ name: 'x', filter_type: 3, query: openUnassigned }, 'filter_type'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', CF(), { token: acc.agent.token, body });
      expect([res.status, field]).toEqual([422, field]);
      expectErrorBody(res.body, undefined);
      expect(res.body.errors.map((e: any) => e.field)).toContain(field);
    }
    // Changing only the type re-checks the saved query against the new type.
    const made = await call('POST', CF(), { token: acc.agent.token, body: { name: 'Names', filter_type: 'contact', query: { payload: [{ attribute_key: 'name', filter_operator: 'contains', values: ['ann'] }] } } });
    expect(made.status).toBe(200);
    const retyped = await call('PATCH', `${CF()}/${made.body.id}`, { token: acc.agent.token, body: { filter_type: 'conversation' } });
    expect(retyped.status).toBe(422);
    expect(retyped.body.errors[0].field).toBe('query.payload.0.attribute_key');
  });

  it('when a conversation custom attribute is defined, then a saved filter may use it with the operators of its type', async () => {
    await call('POST', `/api/v1/accounts/${acc.accountId}/custom_attribute_definitions`, {
      token: acc.admin.token,
      body: { attribute_display_name: 'Seats', attribute_key: 'seats', attribute_display_type: 'number', attribute_model: 'conversation_attribute' },
    });
    const ok = await call('POST', CF(), { token: acc.agent.token, body: { name: 'Big', query: { payload: [{ attribute_key: 'seats', filter_operator: 'is_greater_than', values: [10] }] } } });
    expect(ok.status).toBe(200);
    const bad = await call('POST', CF(), { token: acc.agent.token, body: { name: 'Big', query: { payload: [{ attribute_key: 'seats', filter_operator: 'contains', values: ['1'] }] } } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe('query.payload.0.filter_operator');
  });

  it('when a user already has 1,000 filters in the account, then the next is 422 limit_reached (other users are not affected)', async () => {
    const user = await acc.addUser('agent');
    const { Client } = await import('pg');
    const db = new Client({ connectionString: stack.env.db.url });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO conversations.custom_filters (account_id, user_id, name, query) SELECT $1, $2, 'f' || g, '{"payload": []}' FROM generate_series(1, 999) AS g`,
        [acc.accountId, user.userId],
      );
    } finally {
      await db.end();
    }
    const thousandth = await call('POST', CF(), { token: user.token, body: { name: 'last', query: openUnassigned } });
    expect(thousandth.status).toBe(200);
    const over = await call('POST', CF(), { token: user.token, body: { name: 'one too many', query: openUnassigned } });
    expect(over.status).toBe(422);
    expectErrorBody(over.body, 'limit_reached');
    expect((await call('POST', CF(), { token: acc.admin.token, body: { name: 'admin is fine', query: openUnassigned } })).status).toBe(200);
  });

  it('when an agent is removed from the account, then their saved filters of that account go', async () => {
    const user = await acc.addUser('agent');
    expect((await call('POST', CF(), { token: user.token, body: { name: 'Soon gone', query: openUnassigned } })).status).toBe(200);
    expect((await call('DELETE', `/api/v1/accounts/${acc.accountId}/agents/${user.userId}`, { token: acc.admin.token })).status).toBe(200);
    const { Client } = await import('pg');
    const db = new Client({ connectionString: stack.env.db.url });
    await db.connect();
    try {
      await waitFor(async () => {
        const { rows } = await db.query('SELECT count(*)::int AS n FROM conversations.custom_filters WHERE account_id = $1 AND user_id = $2', [acc.accountId, user.userId]);
        return rows[0].n === 0 ? true : null;
      }, { what: 'the removed agent\'s filters deleted' });
    } finally {
      await db.end();
    }
  });

  it('when a bot or a stranger calls, then it is refused', async () => {
    const bot = await acc.addBot();
    const res = await call('GET', CF(), { token: bot.token });
    expect([401, 403]).toContain(res.status);
    expectErrorBody(res.body, undefined);
    expect((await call('GET', CF())).status).toBe(401);
  });
});

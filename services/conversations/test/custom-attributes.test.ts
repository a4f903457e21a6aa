import { waitFor } from '@parley/testkit';
import { envelope } from './bus';
import { createConversation, createInbox, expectError } from './fixtures';
import { startHarness, type Harness, type TestAccount } from './harness';

describe('custom attribute definitions (service level)', () => {
  let h: Harness;
  let acc: TestAccount;
  const base = () => `/api/v1/accounts/${acc.accountId}/custom_attribute_definitions`;
  const create = (body: unknown, as = acc.admin) => h.call('POST', base(), { as, body });

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.stop());
  beforeEach(async () => {
    acc = await h.account();
  });

  it('when an administrator creates a definition, then Chatwoot\'s partial answers, enums by name, with a created event', async () => {
    const res = await create({
      custom_attribute_definition: {
        attribute_display_name: 'Plan', attribute_key: 'plan', attribute_display_type: 6, attribute_model: 1, attribute_values: ['free', 'pro'],
        attribute_description: 'Subscription plan', default_value: 'free', regex_pattern: '^[a-z]+$', regex_cue: 'lowercase only',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number), attribute_display_name: 'Plan', attribute_display_type: 'list', attribute_description: 'Subscription plan', attribute_key: 'plan',
      regex_pattern: '^[a-z]+$', regex_cue: 'lowercase only', attribute_values: ['free', 'pro'], attribute_model: 'contact_attribute', default_value: 'free',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const minimal = await create({ attribute_display_name: 'Order', attribute_key: 'order_id' });
    expect(minimal.body).toMatchObject({ attribute_display_type: 'text', attribute_model: 'conversation_attribute', attribute_values: [], default_value: null, regex_pattern: null, attribute_description: null });
    const events = await h.events(acc.accountId, 'custom_attribute_definition.created');
    expect(events.map((e) => e.data.id)).toEqual([res.body.id, minimal.body.id]);
    expect(events[0]).toMatchObject({ actor: { type: 'user', id: acc.adminId }, data: { attribute_key: 'plan', attribute_model: 'contact_attribute' } });
  });

  it('when the list is filtered by attribute_model (name, integer or filter_type), then only that model comes back', async () => {
    const conv = (await create({ attribute_display_name: 'Order', attribute_key: 'order_id' })).body;
    const contact = (await create({ attribute_display_name: 'Plan', attribute_key: 'plan', attribute_model: 'contact_attribute' })).body;
    const ids = async (q: string, as = acc.agent) => (await h.call('GET', `${base()}${q}`, { as })).body.map((d: any) => d.id);
    expect(await ids('')).toEqual([conv.id, contact.id]);
    expect(await ids('?attribute_model=conversation_attribute')).toEqual([conv.id]);
    expect(await ids('?attribute_model=1')).toEqual([contact.id]);
    expect(await ids('?filter_type=0')).toEqual([conv.id]);
    expectError(await h.call('GET', `${base()}?attribute_model=company_attribute`, { as: acc.agent }), 400, 'invalid_parameter');
    expectError(await h.call('GET', `${base()}?model=1`, { as: acc.agent }), 400, 'unknown_parameter');
    expect((await h.call('GET', `${base()}/${contact.id}`, { as: acc.agent })).body).toEqual(contact);
  });

  it('when a key is taken in the model or is a standard attribute, then 409 or 422 naming attribute_key; the same key in the other model is fine', async () => {
    expect((await create({ attribute_display_name: 'Tier', attribute_key: 'tier' })).status).toBe(200);
    expectError(await create({ attribute_display_name: 'Tier again', attribute_key: 'tier' }), 409, 'taken', 'attribute_key');
    expect((await create({ attribute_display_name: 'Tier', attribute_key: 'tier', attribute_model: 'contact_attribute' })).status).toBe(200);
    expectError(await create({ attribute_display_name: 'Status', attribute_key: 'status' }), 422, 'key_conflict', 'attribute_key');
    expectError(await create({ attribute_display_name: 'E-mail', attribute_key: 'email', attribute_model: 'contact_attribute' }), 422, 'key_conflict', 'attribute_key');
    // Another account has its own keys.
    const other = await h.account();
    expect((await h.call('POST', `/api/v1/accounts/${other.accountId}/custom_attribute_definitions`, { as: other.admin, body: { attribute_display_name: 'Tier', attribute_key: 'tier' } })).status).toBe(200);
  });

  it('when the body is invalid, then 422 naming each field', async () => {
    for (const [body, field] of [
      [{ attribute_key: 'x' }, 'attribute_display_name'],
      [{ attribute_display_name: 'X' }, 'attribute_key'],
      [{ attribute_display_name: 'X', attribute_key: 'has space' }, 'attribute_key'],
      [{ attribute_display_name: 'X', attribute_key: 'x', attribute_display_type: 'colour' }, 'attribute_display_type'],
      [{ attribute_display_name: 'X', attribute_key: 'x', attribute_display_type: 8 }, 'attribute_display_type'],
      [{ attribute_display_name: 'X', attribute_key: 'x', attribute_model: 2 }, 'attribute_model'],
      [{ attribute_display_name: 'X', attribute_key: 'x', attribute_display_type: 'list' }, 'attribute_values'],
      [{ attribute_display_name: 'X', attribute_key: 'x', attribute_values: 'a,b' }, 'attribute_values'],
      [{ attribute_display_name: 'X', attribute_key: 'x', regex_pattern: '([a-z' }, 'regex_pattern'],
      [{ attribute_display_name: 'X', attribute_key: 'x', default_value: { a: 1 } }, 'default_value'],
    ] as const) {
      const res = await create(body);
      expect([field, res.status]).toEqual([field, 422]);
      expect(res.body.errors.map((e: any) => e.field)).toContain(field);
    }
  });

  it('when an administrator updates a definition, then the changes are recorded; a no-op writes nothing; rules still hold', async () => {
    const d = (await create({ attribute_display_name: 'Order', attribute_key: 'order_id' })).body;
    await create({ attribute_display_name: 'Ref', attribute_key: 'ref' });
    const res = await h.call('PATCH', `${base()}/${d.id}`, { as: acc.admin, body: { custom_attribute_definition: { attribute_display_name: 'Order number', attribute_display_type: 'number' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: d.id, attribute_display_name: 'Order number', attribute_display_type: 'number', attribute_key: 'order_id' });
    const same = await h.call('PUT', `${base()}/${d.id}`, { as: acc.admin, body: { attribute_display_name: 'Order number' } });
    expect(same.body).toEqual(res.body);
    const updates = await h.events(acc.accountId, 'custom_attribute_definition.updated');
    expect(updates).toHaveLength(1);
    expect(updates[0].changes).toEqual({ attribute_display_name: ['Order', 'Order number'], attribute_display_type: ['text', 'number'] });
    expectError(await h.call('PATCH', `${base()}/${d.id}`, { as: acc.admin, body: { attribute_key: 'ref' } }), 409, 'taken', 'attribute_key');
    expectError(await h.call('PATCH', `${base()}/${d.id}`, { as: acc.admin, body: { attribute_key: 'labels' } }), 422, 'key_conflict', 'attribute_key');
    expectError(await h.call('PATCH', `${base()}/${d.id}`, { as: acc.admin, body: { attribute_display_type: 'list' } }), 422, undefined, 'attribute_values');
    expect((await h.call('GET', `${base()}/${d.id}`, { as: acc.agent })).body.attribute_key).toBe('order_id');
  });

  it('when an agent writes, or another account reads, then 403 and 404; an administrator deletes with an event', async () => {
    const d = (await create({ attribute_display_name: 'Order', attribute_key: 'order_id' })).body;
    expectError(await create({ attribute_display_name: 'Mine', attribute_key: 'mine' }, acc.agent), 403, 'forbidden');
    expectError(await h.call('PATCH', `${base()}/${d.id}`, { as: acc.agent, body: { attribute_display_name: 'X' } }), 403, 'forbidden');
    expectError(await h.call('DELETE', `${base()}/${d.id}`, { as: acc.agent }), 403, 'forbidden');
    const other = await h.account();
    const foreign = `/api/v1/accounts/${other.accountId}/custom_attribute_definitions/${d.id}`;
    expectError(await h.call('GET', foreign, { as: other.admin }), 404, 'not_found');
    expectError(await h.call('PATCH', foreign, { as: other.admin, body: { attribute_display_name: 'X' } }), 404, 'not_found');
    expectError(await h.call('DELETE', foreign, { as: other.admin }), 404, 'not_found');
    expectError(await h.call('GET', `${base()}/abc`, { as: acc.admin }), 404, 'not_found');
    const del = await h.call('DELETE', `${base()}/${d.id}`, { as: acc.admin });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({});
    expectError(await h.call('GET', `${base()}/${d.id}`, { as: acc.admin }), 404, 'not_found');
    const [ev] = await h.events(acc.accountId, 'custom_attribute_definition.deleted');
    expect(ev.data).toMatchObject({ id: d.id, attribute_key: 'order_id' });
  });

  it('when the account is deleted, then its definitions go with everything else the service keeps for it; other accounts keep theirs', async () => {
    const other = await h.account();
    await h.call('POST', `/api/v1/accounts/${other.accountId}/custom_attribute_definitions`, { as: other.admin, body: { attribute_display_name: 'Order', attribute_key: 'order_id' } });
    await create({ attribute_display_name: 'Order', attribute_key: 'order_id' });
    const inbox = await createInbox(h, acc);
    await createConversation(h, acc, inbox.id);
    await h.bus.publish(envelope('account.deleted', acc.accountId, { id: acc.accountId, name: 'Gone', status: 'active', features: {}, locale: 'en' }));
    const count = async (table: string, accountId: number) => Number((await h.svc.deps.pool.query(`SELECT count(*) FROM ${table} WHERE account_id = $1`, [accountId])).rows[0].count);
    await waitFor(async () => (await count('custom_attribute_definitions', acc.accountId)) === 0, { what: 'definitions removed' });
    expect(await count('conversations', acc.accountId)).toBe(0);
    expect(await count('inboxes', acc.accountId)).toBe(0);
    expect(await count('custom_attribute_definitions', other.accountId)).toBe(1);
  });
});

import { Client } from 'pg';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';

/** POST /contacts/filter through the gateway: the full key set, what clients send as the last query_operator, the answer's shape. */
describe('POST /api/v1/accounts/{id}/contacts/filter through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  const ids: Record<string, number> = {};
  const C = () => `/api/v1/accounts/${acc.accountId}/contacts`;
  const filter = (payload: unknown, query = '') => call('POST', `${C()}/filter${query}`, { token: acc.agent.token, body: { payload } });
  const idsOf = (res: any): number[] => {
    if (res.status !== 200) throw new Error(`filter answered ${res.status}: ${res.text}`);
    return res.body.payload.map((c: any) => c.id).sort((a: number, b: number) => a - b);
  };
  const pick = (...keys: string[]) => keys.map((k) => ids[k] as number).sort((a, b) => a - b);
  const cond = (attribute_key: string, filter_operator: string, values: unknown[] = [], query_operator?: unknown) => ({ attribute_key, filter_operator, values, ...(query_operator !== undefined ? { query_operator } : {}) });

  // ann: Porto, Acme, PT, +15550100, labelled vip, plan pro, seats 10; bob: Lisbon, Globex, blocked, +442071234567, plan free;
  // cy: only an identifier, created in 2019.
  beforeAll(async () => {
    stack = await startStack({ only: ['contacts', 'conversations'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    const make = async (key: string, body: Record<string, unknown>) => {
      const res = await call('POST', C(), { token: acc.admin.token, body });
      if (res.status !== 200) throw new Error(res.text);
      ids[key] = res.body.payload.contact.id;
    };
    await make('ann', { name: 'Ann Smith', email: 'ann@alpha.test', phone_number: '+15550100', additional_attributes: { city: 'Porto', country_code: 'PT', company_name: 'Acme' }, custom_attributes: { plan: 'pro', seats: 10 } });
    await make('bob', { name: 'Bob Jones', email: 'bob@beta.test', phone_number: '+442071234567', additional_attributes: { city: 'Lisbon', company_name: 'Globex' }, custom_attributes: { plan: 'free' } });
    await make('cy', { name: 'Cy', identifier: 'cy-42' });
    await call('POST', `${C()}/${ids['ann']}/labels`, { token: acc.admin.token, body: { labels: ['vip'] } });
    await call('PATCH', `${C()}/${ids['bob']}`, { token: acc.admin.token, body: { blocked: true } });
    const db = new Client({ connectionString: stack.env.db.url });
    await db.connect();
    try {
      await db.query(`UPDATE contacts.contacts SET created_at = '2019-06-01T00:00:00Z' WHERE account_id = $1 AND id = $2`, [acc.accountId, ids['cy']]);
    } finally {
      await db.end();
    }
  });
  afterAll(() => stack?.stop());

  it('when the last query_operator is null, empty, omitted or a trailing AND/OR, then the filter answers {meta: {count, current_page}, payload}', async () => {
    for (const last of [null, '', undefined, 'AND', 'or']) {
      const res = await filter([cond('name', 'contains', ['smith'], 'or'), cond('name', 'contains', ['jones'], last)]);
      expect([last, res.status]).toEqual([last, 200]);
      expect(res.body.meta).toEqual({ count: 2, current_page: '1' });
      expect(idsOf(res)).toEqual(pick('ann', 'bob'));
    }
  });

  it('when each key of the set is used, then it selects as Chatwoot does (phone prefixes by starts_with)', async () => {
    expect(idsOf(await filter([cond('name', 'equal_to', ['ann smith'])]))).toEqual(pick('ann'));
    expect(idsOf(await filter([cond('email', 'contains', ['BETA'])]))).toEqual(pick('bob'));
    expect(idsOf(await filter([cond('email', 'not_equal_to', ['ann@alpha.test'])]))).toEqual(pick('bob', 'cy'));
    expect(idsOf(await filter([cond('phone_number', 'starts_with', ['+1555'])]))).toEqual(pick('ann'));
    expect(idsOf(await filter([cond('phone_number', 'starts_with', ['44 20'])]))).toEqual(pick('bob'));
    expect(idsOf(await filter([cond('phone_number', 'equal_to', ['1 555 0100'])]))).toEqual(pick('ann'));
    expect(idsOf(await filter([cond('phone_number', 'contains', ['2071'])]))).toEqual(pick('bob'));
    expect(idsOf(await filter([cond('identifier', 'equal_to', ['CY-42'])]))).toEqual(pick('cy'));
    expect(idsOf(await filter([cond('country_code', 'equal_to', ['pt'])]))).toEqual(pick('ann'));
    expect(idsOf(await filter([cond('city', 'does_not_contain', ['lis'])]))).toEqual(pick('ann', 'cy'));
    expect(idsOf(await filter([cond('company', 'contains', ['glob'])]))).toEqual(pick('bob'));
    expect(idsOf(await filter([cond('labels', 'equal_to', ['vip'])]))).toEqual(pick('ann'));
    expect(idsOf(await filter([cond('labels', 'is_not_present')]))).toEqual(pick('bob', 'cy'));
    expect(idsOf(await filter([cond('created_at', 'is_less_than', ['2020-01-01'])]))).toEqual(pick('cy'));
    expect(idsOf(await filter([cond('created_at', 'days_before', [30])]))).toEqual(pick('cy'));
    expect(idsOf(await filter([cond('last_activity_at', 'is_not_present')]))).toHaveLength(3);
    expect(idsOf(await filter([cond('blocked', 'equal_to', [true])]))).toEqual(pick('bob'));
    expect(idsOf(await filter([cond('blocked', 'not_equal_to', ['true'])]))).toEqual(pick('ann', 'cy'));
    expect(idsOf(await filter([cond('plan', 'equal_to', ['PRO'])]))).toEqual(pick('ann'));
    expect(idsOf(await filter([cond('seats', 'is_greater_than', [5])]))).toEqual(pick('ann'));
  });

  it('when AND and OR mix, then AND binds before OR', async () => {
    // blocked OR city=porto AND labels=vip  ==  bob OR (ann)
    expect(idsOf(await filter([cond('blocked', 'equal_to', [true], 'OR'), cond('city', 'equal_to', ['porto'], 'and'), cond('labels', 'equal_to', ['vip'])]))).toEqual(pick('ann', 'bob'));
    // labels=vip OR identifier present AND blocked  ==  ann OR (cy AND blocked: none)
    expect(idsOf(await filter([cond('labels', 'equal_to', ['vip'], 'or'), cond('identifier', 'is_present', [], 'AND'), cond('blocked', 'equal_to', [true])]))).toEqual(pick('ann'));
  });

  it('when pages are asked for, then current_page echoes it as a string', async () => {
    const res = await filter([cond('name', 'is_present')], '?page=2');
    expect(res.body).toEqual({ meta: { count: 3, current_page: '2' }, payload: [] });
  });

  it('when a condition is wrong, then 422 names it', async () => {
    const cases: Array<[unknown, string]> = [
      [[cond('name', 'contains', ['a'], 'and'), cond('blocked', 'contains', ['t'])], 'payload.1.filter_operator'],
      [[cond('identifier', 'starts_with', ['c'])], 'payload.0.filter_operator'],
      [[cond('blocked', 'equal_to', ['maybe'])], 'payload.0.values'],
      [[cond('name', 'equal_to', ['x'], 'xor'), cond('name', 'equal_to', ['y'])], 'payload.0.query_operator'],
      [[cond('bad key!', 'equal_to', ['x'])], 'payload.0.attribute_key'],
      ['x', 'payload'],
    ];
    for (const [payload, field] of cases) {
      const res = await filter(payload);
      expect([res.status, field]).toEqual([422, field]);
      expectErrorBody(res.body, undefined);
      expect(res.body.errors.map((e: any) => e.field)).toContain(field);
    }
  });
});

import { Client } from 'pg';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { createApiInbox, type ApiInbox } from '../../support/contacts';
import { conversationFor } from '../../support/conversations';

/** POST /conversations/filter through the gateway: each example of the filter reference, counts, pages, visibility, bad input. */
describe('POST /api/v1/accounts/{id}/conversations/filter through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let mine: ApiInbox;
  let other: ApiInbox;
  let teamId: number;
  const ids: Record<string, number> = {};
  const A = () => `/api/v1/accounts/${acc.accountId}`;
  const filter = (payload: unknown, opts: { token?: string; page?: number; query?: string } = {}) =>
    call('POST', `${A()}/conversations/filter${opts.query ?? ''}`, { token: opts.token ?? acc.admin.token, body: opts.page === undefined ? { payload } : { payload, page: opts.page } });
  const idsOf = (res: any): number[] => {
    if (res.status !== 200) throw new Error(`filter answered ${res.status}: ${res.text}`);
    return res.body.payload.map((c: any) => c.id).sort((a: number, b: number) => a - b);
  };
  const pick = (...keys: string[]) => keys.map((k) => ids[k] as number).sort((a, b) => a - b);
  const cond = (attribute_key: string, filter_operator: string, values: unknown[] = [], query_operator?: unknown) => ({ attribute_key, filter_operator, values, ...(query_operator !== undefined ? { query_operator } : {}) });

  // mine (the agent's inbox): m1 open, assigned to the agent, labelled billing, browser de, custom plan=pro seats=10, created 2020-01-10;
  //   m2 open unassigned, referer https://shop.example.com/cart, mail subject "Refund please", team; m3 pending, priority high.
  // other: o1 open assigned to the admin, labelled vip, priority urgent, plan=free seats=2; o2 resolved, labelled vip, created 2020-03-01.
  beforeAll(async () => {
    stack = await startStack({ only: ['conversations', 'contacts'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    mine = await createApiInbox(call, acc, { name: 'Mine' });
    other = await createApiInbox(call, acc, { name: 'Other' });
    await call('POST', `${A()}/inbox_members`, { token: acc.admin.token, body: { inbox_id: mine.id, user_ids: [acc.agent.userId] } });
    const team = await call('POST', `${A()}/teams`, { token: acc.admin.token, body: { name: 'Support' } });
    teamId = team.body.id;
    for (const [key, type] of [['plan', 'list'], ['seats', 'number'], ['vip_since', 'date'], ['paid', 'checkbox']] as const) {
      const res = await call('POST', `${A()}/custom_attribute_definitions`, {
        token: acc.admin.token,
        body: { attribute_display_name: key, attribute_key: key, attribute_display_type: type, attribute_model: 'conversation_attribute', ...(type === 'list' ? { attribute_values: ['pro', 'free'] } : {}) },
      });
      if (res.status !== 200) throw new Error(res.text);
    }
    ids['m1'] = (await conversationFor(call, acc, mine, {
      assignee_id: acc.agent.userId,
      additional_attributes: { browser_language: 'de', country_code: 'DE' },
      custom_attributes: { plan: 'pro', seats: 10, vip_since: '2024-05-01', paid: true },
    })).id;
    ids['m2'] = (await conversationFor(call, acc, mine, {
      team_id: teamId,
      additional_attributes: { referer: 'https://shop.example.com/cart', mail_subject: 'Refund please', conversation_language: 'pt' },
    })).id;
    ids['m3'] = (await conversationFor(call, acc, mine, { status: 'pending' })).id;
    ids['o1'] = (await conversationFor(call, acc, other, { assignee_id: acc.admin.userId, custom_attributes: { plan: 'free', seats: 2, paid: false } })).id;
    ids['o2'] = (await conversationFor(call, acc, other, { status: 'resolved' })).id;
    await call('POST', `${A()}/conversations/${ids['m1']}/labels`, { token: acc.admin.token, body: { labels: ['billing'] } });
    for (const k of ['o1', 'o2']) await call('POST', `${A()}/conversations/${ids[k]}/labels`, { token: acc.admin.token, body: { labels: ['vip'] } });
    await call('POST', `${A()}/conversations/${ids['o1']}/toggle_priority`, { token: acc.admin.token, body: { priority: 'urgent' } });
    await call('POST', `${A()}/conversations/${ids['m3']}/toggle_priority`, { token: acc.admin.token, body: { priority: 'high' } });
    // Creation dates cannot be set through the API: move two into the past.
    const db = new Client({ connectionString: stack.env.db.url });
    await db.connect();
    try {
      await db.query(`UPDATE conversations.conversations SET created_at = '2020-01-10T12:00:00Z' WHERE account_id = $1 AND display_id = $2`, [acc.accountId, ids['m1']]);
      await db.query(`UPDATE conversations.conversations SET created_at = '2020-03-01T08:00:00Z', last_activity_at = '2020-03-01T08:00:00Z' WHERE account_id = $1 AND display_id = $2`, [acc.accountId, ids['o2']]);
    } finally {
      await db.end();
    }
  });
  afterAll(() => stack?.stop());

  it('when filtered by status, then the answer is {meta: {mine_count, unassigned_count, all_count}, payload} with no default status', async () => {
    const res = await filter([cond('status', 'equal_to', ['open'])]);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['meta', 'payload']);
    expect(res.body.meta).toEqual({ mine_count: 1, unassigned_count: 1, all_count: 3 });
    expect(idsOf(res)).toEqual(pick('m1', 'm2', 'o1'));
    expect(res.body.payload[0]).toMatchObject({ meta: { channel: 'Channel::Api' }, inbox_id: expect.any(Number), status: 'open' });
    expect(idsOf(await filter([cond('status', 'equal_to', ['all'])]))).toEqual(pick('m1', 'm2', 'm3', 'o1', 'o2'));
    expect(idsOf(await filter([cond('status', 'not_equal_to', ['open', 'pending'])]))).toEqual(pick('o2'));
    // No status condition: every status (Chatwoot applies no default here).
    expect(idsOf(await filter([cond('labels', 'equal_to', ['vip'])]))).toEqual(pick('o1', 'o2'));
  });

  it('when ordered, then newest activity comes first', async () => {
    const res = await filter([cond('status', 'equal_to', ['all'])]);
    const times = res.body.payload.map((c: any) => c.last_activity_at);
    expect([...times].sort((a: number, b: number) => b - a)).toEqual(times);
    expect(res.body.payload.at(-1).id).toBe(ids['o2']);
  });

  it('when filtered by priority, assignee, inbox, team, campaign and labels, then each operator selects as Chatwoot does', async () => {
    expect(idsOf(await filter([cond('priority', 'equal_to', ['urgent', 'high'])]))).toEqual(pick('m3', 'o1'));
    expect(idsOf(await filter([cond('priority', 'not_equal_to', ['urgent'])]))).toEqual(pick('m1', 'm2', 'm3', 'o2'));
    expect(idsOf(await filter([cond('priority', 'equal_to', ['none'])]))).toEqual(pick('m1', 'm2', 'o2'));
    expect(idsOf(await filter([cond('assignee_id', 'equal_to', [acc.agent.userId])]))).toEqual(pick('m1'));
    expect(idsOf(await filter([cond('assignee_id', 'equal_to', [String(acc.admin.userId)])]))).toEqual(pick('o1'));
    expect(idsOf(await filter([cond('assignee_id', 'not_equal_to', [acc.agent.userId])]))).toEqual(pick('m2', 'm3', 'o1', 'o2'));
    expect(idsOf(await filter([cond('assignee_id', 'is_present')]))).toEqual(pick('m1', 'o1'));
    expect(idsOf(await filter([cond('assignee_id', 'is_not_present', [])]))).toEqual(pick('m2', 'm3', 'o2'));
    expect(idsOf(await filter([cond('inbox_id', 'equal_to', [other.id])]))).toEqual(pick('o1', 'o2'));
    expect(idsOf(await filter([cond('team_id', 'equal_to', [teamId])]))).toEqual(pick('m2'));
    expect(idsOf(await filter([cond('team_id', 'is_present')]))).toEqual(pick('m2'));
    // A team that is not the account's filters to nothing here (plain SQL in Chatwoot), unlike the list's 404.
    expect(idsOf(await filter([cond('team_id', 'equal_to', [999_999])]))).toEqual([]);
    expect(idsOf(await filter([cond('campaign_id', 'is_not_present')]))).toHaveLength(5);
    expect(idsOf(await filter([cond('campaign_id', 'equal_to', [1])]))).toEqual([]);
    expect(idsOf(await filter([cond('labels', 'not_equal_to', ['vip'])]))).toEqual(pick('m1', 'm2', 'm3'));
    expect(idsOf(await filter([cond('labels', 'is_present')]))).toEqual(pick('m1', 'o1', 'o2'));
    expect(idsOf(await filter([cond('labels', 'is_not_present')]))).toEqual(pick('m2', 'm3'));
  });

  it('when filtered by display_id, then equal_to and contains both work (contains is a 500 in Chatwoot)', async () => {
    expect(idsOf(await filter([cond('display_id', 'equal_to', [ids['m2']])]))).toEqual(pick('m2'));
    expect(idsOf(await filter([cond('display_id', 'not_equal_to', [ids['m2']])]))).toHaveLength(4);
    const digit = String(ids['o2']).slice(-1);
    const expected = Object.values(ids).filter((id) => String(id).includes(digit)).sort((a, b) => a - b);
    expect(idsOf(await filter([cond('display_id', 'contains', [digit])]))).toEqual(expected);
    expect(idsOf(await filter([cond('display_id', 'does_not_contain', [digit])]))).toHaveLength(5 - expected.length);
  });

  it('when filtered by additional attributes, then languages, country, referer and mail subject compare case-insensitively', async () => {
    expect(idsOf(await filter([cond('browser_language', 'equal_to', ['DE'])]))).toEqual(pick('m1'));
    expect(idsOf(await filter([cond('conversation_language', 'equal_to', ['pt'])]))).toEqual(pick('m2'));
    expect(idsOf(await filter([cond('country_code', 'not_equal_to', ['de'])]))).toEqual(pick('m2', 'm3', 'o1', 'o2'));
    expect(idsOf(await filter([cond('referer', 'contains', ['SHOP.example'])]))).toEqual(pick('m2'));
    expect(idsOf(await filter([cond('mail_subject', 'contains', ['refund', 'invoice'])]))).toEqual(pick('m2'));
    expect(idsOf(await filter([cond('mail_subject', 'does_not_contain', ['refund'])]))).toHaveLength(4);
    expect(idsOf(await filter([cond('mail_subject', 'equal_to', ['refund please'])]))).toEqual(pick('m2'));
  });

  it('when filtered by dates, then created_at and last_activity_at compare as dates and days_before counts back from today', async () => {
    expect(idsOf(await filter([cond('created_at', 'is_less_than', ['2020-02-01'])]))).toEqual(pick('m1'));
    // As dates: "greater than 2020-01-09" includes the 10th; "greater than the 10th" does not.
    expect(idsOf(await filter([cond('created_at', 'is_greater_than', ['2020-01-09']), cond('created_at', 'is_less_than', ['2020-02-01'])]))).toEqual(pick('m1'));
    expect(idsOf(await filter([cond('created_at', 'is_greater_than', ['2020-01-10']), cond('created_at', 'is_less_than', ['2020-02-01'])]))).toEqual([]);
    expect(idsOf(await filter([cond('created_at', 'days_before', [30])]))).toEqual(pick('m1', 'o2'));
    expect(idsOf(await filter([cond('last_activity_at', 'days_before', ['30'])]))).toEqual(pick('o2'));
    expect(idsOf(await filter([cond('last_activity_at', 'is_greater_than', ['2021-01-01'])]))).toEqual(pick('m1', 'm2', 'm3', 'o1'));
  });

  it('when filtered by custom attributes, then each is compared by the type of its definition', async () => {
    expect(idsOf(await filter([cond('plan', 'equal_to', ['PRO'])]))).toEqual(pick('m1'));
    // not_equal_to on a custom attribute also matches conversations without it (Chatwoot's OR ... IS NULL).
    expect(idsOf(await filter([cond('plan', 'not_equal_to', ['pro'])]))).toEqual(pick('m2', 'm3', 'o1', 'o2'));
    expect(idsOf(await filter([cond('seats', 'is_greater_than', [5])]))).toEqual(pick('m1'));
    expect(idsOf(await filter([cond('seats', 'is_less_than', ['5'])]))).toEqual(pick('o1'));
    expect(idsOf(await filter([cond('seats', 'equal_to', [2, 10])]))).toEqual(pick('m1', 'o1'));
    expect(idsOf(await filter([cond('vip_since', 'is_greater_than', ['2024-01-01'])]))).toEqual(pick('m1'));
    expect(idsOf(await filter([cond('paid', 'equal_to', [false])]))).toEqual(pick('o1'));
    expect(idsOf(await filter([cond('paid', 'equal_to', ['true'])]))).toEqual(pick('m1'));
    expect(idsOf(await filter([cond('plan', 'is_present')]))).toEqual(pick('m1', 'o1'));
  });

  it('when conditions are joined, then AND binds before OR (Chatwoot joins without grouping) and the operator may be in any case', async () => {
    // status=resolved OR labels=billing AND assignee present  ==  resolved OR (billing AND assigned)
    const andBeforeOr = await filter([cond('status', 'equal_to', ['resolved'], 'or'), cond('labels', 'equal_to', ['billing'], 'And'), cond('assignee_id', 'is_present', [], null)]);
    expect(idsOf(andBeforeOr)).toEqual(pick('m1', 'o2'));
    // labels=vip AND status=open OR priority=high  ==  (vip AND open) OR high
    expect(idsOf(await filter([cond('labels', 'equal_to', ['vip'], 'AND'), cond('status', 'equal_to', ['open'], 'OR'), cond('priority', 'equal_to', ['high'])]))).toEqual(pick('m3', 'o1'));
    // Were it left to right, (vip OR high) AND open would give o1 only; grouping-free SQL gives o1 and m3.
    expect(idsOf(await filter([cond('labels', 'equal_to', ['vip'], 'OR'), cond('priority', 'equal_to', ['high'], 'AND'), cond('status', 'equal_to', ['pending'])]))).toEqual(pick('m3', 'o1', 'o2'));
  });

  it('when the last query_operator is null, empty, omitted or a trailing AND/OR, then it is accepted (a trailing one is a 500 in Chatwoot)', async () => {
    for (const last of [null, '', undefined, 'AND', 'or']) {
      const res = await filter([cond('status', 'equal_to', ['open'], 'and'), cond('inbox_id', 'equal_to', [mine.id], last)]);
      expect(res.status).toBe(200);
      expect(idsOf(res)).toEqual(pick('m1', 'm2'));
    }
  });

  it('when an agent filters, then only the conversations of their inboxes are found and counted', async () => {
    const res = await filter([cond('status', 'equal_to', ['all'])], { token: acc.agent.token });
    expect(idsOf(res)).toEqual(pick('m1', 'm2', 'm3'));
    expect(res.body.meta).toEqual({ mine_count: 1, unassigned_count: 2, all_count: 3 });
    expect(idsOf(await filter([cond('inbox_id', 'equal_to', [other.id])], { token: acc.agent.token }))).toEqual([]);
  });

  it('when there are more than 25, then pages of 25 come with counts over the whole set (page in the body or the query)', async () => {
    const made: number[] = [];
    const inbox = await createApiInbox(call, acc, { name: 'Bulk' });
    for (let i = 0; i < 26; i++) made.push((await conversationFor(call, acc, inbox)).id);
    const p1 = await filter([cond('inbox_id', 'equal_to', [inbox.id])]);
    expect(p1.body.payload).toHaveLength(25);
    expect(p1.body.meta).toEqual({ mine_count: 0, unassigned_count: 26, all_count: 26 });
    expect(p1.body.payload[0].id).toBe(made[25]);
    const p2 = await filter([cond('inbox_id', 'equal_to', [inbox.id])], { page: 2 });
    expect(p2.body.payload.map((c: any) => c.id)).toEqual([made[0]]);
    expect(p2.body.meta.all_count).toBe(26);
    const q2 = await filter([cond('inbox_id', 'equal_to', [inbox.id])], { query: '?page=2' });
    expect(q2.body.payload.map((c: any) => c.id)).toEqual([made[0]]);
    expect((await filter([cond('inbox_id', 'equal_to', [inbox.id])], { page: 3 })).body.payload).toEqual([]);
  });

  it('when a key, operator, value or query_operator is wrong, then 422 names the condition', async () => {
    const cases: Array<[unknown, string]> = [
      [[cond('status', 'equal_to', ['open'], 'and'), cond('status', 'contains', ['open'])], 'payload.1.filter_operator'],
      [[cond('status', 'equal_to', ['open'], 'and'), cond('nope', 'equal_to', ['x'])], 'payload.1.attribute_key'],
      [[cond('status', 'equal_to', ['closed'])], 'payload.0.values'],
      [[cond('status', 'equal_to', [])], 'payload.0.values'],
      [[cond('assignee_id', 'equal_to', ['abc'])], 'payload.0.values'],
      [[cond('created_at', 'is_greater_than', ['someday'])], 'payload.0.values'],
      [[cond('created_at', 'days_before', ['-1'])], 'payload.0.values'],
      [[cond('seats', 'is_greater_than', ['many'])], 'payload.0.values'],
      [[cond('created_at', 'equal_to', ['2020-01-01'])], 'payload.0.filter_operator'],
      [[cond('status', 'equal_to', ['open'], 'xor'), cond('status', 'equal_to', ['open'])], 'payload.0.query_operator'],
      [[cond('status', 'sounds_like', ['open'])], 'payload.0.filter_operator'],
      [[], 'payload'],
    ];
    for (const [payload, field] of cases) {
      const res = await filter(payload);
      expect([res.status, field]).toEqual([422, field]);
      expectErrorBody(res.body, undefined);
      expect(res.body.errors.map((e: any) => e.field)).toContain(field);
    }
  });

  it('when the conditions are not under payload (a bare array, Chatwoot: 500), then 422', async () => {
    const res = await call('POST', `${A()}/conversations/filter`, { token: acc.admin.token, body: [cond('status', 'equal_to', ['open'])] });
    expect(res.status).toBe(422);
    expectErrorBody(res.body, undefined);
    const badPage = await call('POST', `${A()}/conversations/filter?page=zero`, { token: acc.admin.token, body: { payload: [cond('status', 'equal_to', ['open'])] } });
    expect(badPage.status).toBe(400);
    expectErrorBody(badPage.body, 'invalid_parameter');
  });
});

import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { createApiInbox, type ApiInbox } from '../../support/contacts';
import { conversationFor } from '../../support/conversations';

/** SPEC op 1 through the gateway: filters, counts, pages, sort, agent visibility, bad input. */
describe('GET /api/v1/accounts/{id}/conversations through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let mine: ApiInbox;
  let other: ApiInbox;
  const ids: Record<string, number> = {};
  const A = () => `/api/v1/accounts/${acc.accountId}`;
  const idsOf = (res: any): number[] => res.body.data.payload.map((c: any) => c.id);

  // mine (the agent is a member): m1 open assigned to the agent, m2 open unassigned "where is my parcel",
  // m3 pending; other: o1 open assigned to the admin labelled vip, o2 resolved labelled vip.
  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    mine = await createApiInbox(call, acc, { name: 'Mine' });
    other = await createApiInbox(call, acc, { name: 'Other' });
    await call('POST', `${A()}/inbox_members`, { token: acc.admin.token, body: { inbox_id: mine.id, user_ids: [acc.agent.userId] } });
    ids['m1'] = (await conversationFor(call, acc, mine, { assignee_id: acc.agent.userId })).id;
    ids['m2'] = (await conversationFor(call, acc, mine, { message: { content: 'Where is my parcel?', message_type: 'incoming' } })).id;
    ids['m3'] = (await conversationFor(call, acc, mine, { status: 'pending' })).id;
    ids['o1'] = (await conversationFor(call, acc, other, { assignee_id: acc.admin.userId })).id;
    ids['o2'] = (await conversationFor(call, acc, other, { status: 'resolved' })).id;
    for (const k of ['o1', 'o2']) await call('POST', `${A()}/conversations/${ids[k]}/labels`, { token: acc.admin.token, body: { labels: ['vip'] } });
    await call('POST', `${A()}/conversations/${ids['o1']}/toggle_priority`, { token: acc.admin.token, body: { priority: 'urgent' } });
  });
  afterAll(() => stack?.stop());

  it('when an administrator lists, then open conversations come with counts and each item with its meta and last message', async () => {
    const res = await call('GET', `${A()}/conversations`, { token: acc.admin.token });
    expect(res.status).toBe(200);
    expect(idsOf(res).sort()).toEqual([ids['m1'], ids['m2'], ids['o1']].sort());
    expect(res.body.data.meta).toEqual({ mine_count: 1, assigned_count: 2, unassigned_count: 1, all_count: 3 });
    const m2 = res.body.data.payload.find((c: any) => c.id === ids['m2']);
    expect(m2.messages[0]).toMatchObject({ content: 'Where is my parcel?', message_type: 0, sender: { type: 'contact' } });
    expect(m2.meta).toMatchObject({ channel: 'Channel::Api', assignee: null, hmac_verified: false, sender: { name: 'Visitor' } });
    const o1 = res.body.data.payload.find((c: any) => c.id === ids['o1']);
    expect(o1.meta.assignee).toMatchObject({ id: acc.admin.userId, name: acc.admin.name, role: 'administrator' });
  });

  it('when filters combine, then status, assignee type, inbox, labels and q select as Chatwoot does', async () => {
    const get = async (q: string) => call('GET', `${A()}/conversations${q}`, { token: acc.admin.token });
    expect(idsOf(await get('?status=all')).sort()).toEqual(Object.values(ids).sort());
    expect(idsOf(await get('?status=pending'))).toEqual([ids['m3']]);
    expect(idsOf(await get('?status=resolved&labels[]=vip'))).toEqual([ids['o2']]);
    expect(idsOf(await get('?status=all&labels=vip')).sort()).toEqual([ids['o1'], ids['o2']].sort());
    expect(idsOf(await get(`?status=all&inbox_id=${other.id}&assignee_type=unassigned`))).toEqual([ids['o2']]);
    const meQ = await get('?assignee_type=me');
    expect(idsOf(meQ)).toEqual([ids['o1']]);
    expect(meQ.body.data.meta.all_count).toBe(3);
    expect(idsOf(await get('?q=parcel'))).toEqual([ids['m2']]);
    expect(idsOf(await get('?status=all&sort_by=priority_desc'))[0]).toBe(ids['o1']);
    expect(idsOf(await get('?status=all&sort_by=created_at_asc'))).toEqual(['m1', 'm2', 'm3', 'o1', 'o2'].map((k) => ids[k]));
    expect((await get('?page=2')).body.data.payload).toEqual([]);
  });

  it('when an agent lists, then only the conversations of their inboxes are listed and counted', async () => {
    const res = await call('GET', `${A()}/conversations?status=all`, { token: acc.agent.token });
    expect(idsOf(res).sort()).toEqual([ids['m1'], ids['m2'], ids['m3']].sort());
    expect(res.body.data.meta).toEqual({ mine_count: 1, assigned_count: 1, unassigned_count: 2, all_count: 3 });
    expect(idsOf(await call('GET', `${A()}/conversations?inbox_id=${other.id}`, { token: acc.agent.token }))).toEqual([]);
    const forbidden = await call('GET', `${A()}/conversations/${ids['o1']}`, { token: acc.agent.token });
    expect(forbidden.status).toBe(403);
    expectErrorBody(forbidden.body, 'forbidden');
    const meta = await call('GET', `${A()}/conversations/meta`, { token: acc.agent.token });
    expect(meta.body).toEqual({ meta: { mine_count: 1, assigned_count: 1, unassigned_count: 1, all_count: 2 } });
    // Chatwoot's dashboard sends the list's assignee_type to meta too; the counts do not depend on it.
    const withAssignee = await call('GET', `${A()}/conversations/meta?assignee_type=me&inbox_id=${mine.id}`, { token: acc.agent.token });
    expect(withAssignee.status).toBe(200);
    expect(withAssignee.body).toEqual(meta.body);
  });

  it('when parameters are unknown or malformed, then 400 with the Error body; a bot token is refused', async () => {
    for (const q of ['?status=closed', '?page=-1', '?assignee_type=nobody', '?inbox_id=abc', '?sort_by=random', '?colour=blue']) {
      const res = await call('GET', `${A()}/conversations${q}`, { token: acc.admin.token });
      expect(res.status).toBe(400);
      expectErrorBody(res.body);
    }
    const bot = await acc.addBot();
    const res = await call('GET', `${A()}/conversations`, { token: bot.token });
    expect(res.status).toBe(403);
    expectErrorBody(res.body, 'bot_forbidden');
  });

  it('when more than a page matches, then 25 come per page', async () => {
    const big = await seedAccount(stack);
    const inbox = await createApiInbox(call, big);
    for (let i = 0; i < 26; i++) await conversationFor(call, big, inbox);
    const p1 = await call('GET', `/api/v1/accounts/${big.accountId}/conversations`, { token: big.admin.token });
    const p2 = await call('GET', `/api/v1/accounts/${big.accountId}/conversations?page=2`, { token: big.admin.token });
    expect(p1.body.data.payload).toHaveLength(25);
    expect(p2.body.data.payload).toHaveLength(1);
    expect(p1.body.data.meta.all_count).toBe(26);
    expect(new Set([...idsOf(p1), ...idsOf(p2)]).size).toBe(26);
  });
});

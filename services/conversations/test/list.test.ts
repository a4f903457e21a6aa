import { addMember, createConversation, createInbox, expectError } from './fixtures';
import { startHarness, type Harness, type TestAccount } from './harness';

describe('GET /conversations (SPEC op 1, service level)', () => {
  let h: Harness;
  let acc: TestAccount;
  let inboxA: any;
  let inboxB: any;
  const ids: Record<string, number> = {};
  const base = () => `/api/v1/accounts/${acc.accountId}`;
  const list = async (query = '', as = acc.admin) => h.call('GET', `${base()}/conversations${query}`, { as });
  const idsOf = (res: any): number[] => res.body.data.payload.map((c: any) => c.id);

  // One account, built once: inbox A (the agent is a member) and B. Conversations, created in
  // this order so the newest activity comes last:
  //   a1 open, assigned to the agent, labels [billing]
  //   a2 open, unassigned, labels [vip], has an incoming "refund please"
  //   a3 resolved, assigned to the admin
  //   b1 open, assigned to the admin, labels [billing, vip], has an outgoing "refund issued"
  //   b2 pending, unassigned, priority urgent
  //   b3 snoozed, unassigned
  beforeAll(async () => {
    h = await startHarness();
    acc = await h.account();
    inboxA = await createInbox(h, acc, { name: 'A' });
    inboxB = await createInbox(h, acc, { name: 'B' });
    await addMember(h, acc, inboxA.id, acc.agentId);
    ids['a1'] = (await createConversation(h, acc, inboxA.id, { assignee_id: acc.agentId })).id;
    ids['a2'] = (await createConversation(h, acc, inboxA.id)).id;
    ids['a3'] = (await createConversation(h, acc, inboxA.id, { assignee_id: acc.adminId, status: 'resolved' })).id;
    ids['b1'] = (await createConversation(h, acc, inboxB.id, { assignee_id: acc.adminId })).id;
    ids['b2'] = (await createConversation(h, acc, inboxB.id, { status: 'pending' })).id;
    ids['b3'] = (await createConversation(h, acc, inboxB.id, { status: 'snoozed', snoozed_until: new Date(Date.now() + 3_600_000).toISOString() })).id;
    const post = (id: number, path: string, body: unknown) => h.call('POST', `${base()}/conversations/${id}/${path}`, { as: acc.admin, body });
    await post(ids['a1']!, 'labels', { labels: ['billing'] });
    await post(ids['a2']!, 'labels', { labels: ['vip'] });
    await post(ids['a2']!, 'messages', { content: 'I want a refund please', message_type: 'incoming' });
    await post(ids['b1']!, 'labels', { labels: ['billing', 'vip'] });
    await post(ids['b1']!, 'messages', { content: 'Your refund issued today' });
    await post(ids['b2']!, 'toggle_priority', { priority: 'urgent' });
    await post(ids['b3']!, 'messages', { content: 'a private refund note', private: true });
  });
  afterAll(() => h?.stop());

  it('when listed with no parameters, then open conversations come newest activity first with the counts', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    // Open: a1, a2, b1. b1 and a2 had messages after a1's label.
    expect(idsOf(res)).toEqual([ids['b1'], ids['a2'], ids['a1']]);
    expect(res.body.data.meta).toEqual({ mine_count: 1, assigned_count: 2, unassigned_count: 1, all_count: 3 });
    const b1 = res.body.data.payload[0];
    expect(b1.meta).toMatchObject({ channel: 'Channel::Api', hmac_verified: false, assignee: { id: acc.adminId }, assignee_type: 'User' });
    expect(b1.meta.sender.id).toEqual(expect.any(Number));
    expect(b1.messages).toHaveLength(1);
    expect(b1.messages[0].content).toBe('Your refund issued today');
    expect(b1.last_non_activity_message.content).toBe('Your refund issued today');
  });

  it('when filtered by status, then all, resolved, pending and snoozed select those', async () => {
    expect(idsOf(await list('?status=all')).sort()).toEqual(Object.values(ids).sort());
    expect(idsOf(await list('?status=resolved'))).toEqual([ids['a3']]);
    expect(idsOf(await list('?status=pending'))).toEqual([ids['b2']]);
    expect(idsOf(await list('?status=snoozed'))).toEqual([ids['b3']]);
    expect((await list('?status=all')).body.data.meta).toEqual({ mine_count: 2, assigned_count: 3, unassigned_count: 3, all_count: 6 });
  });

  it('when filtered by assignee type, then the page narrows but the counts stay', async () => {
    const me = await list('?assignee_type=me&status=all');
    expect(idsOf(me).sort()).toEqual([ids['a3'], ids['b1']].sort());
    expect(me.body.data.meta.all_count).toBe(6);
    expect(idsOf(await list('?assignee_type=unassigned&status=all')).sort()).toEqual([ids['a2'], ids['b2'], ids['b3']].sort());
    expect(idsOf(await list('?assignee_type=assigned'))).toEqual([ids['b1'], ids['a1']]);
    expect(idsOf(await list('?assignee_type=all'))).toHaveLength(3);
  });

  it('when filtered by inbox or labels (repeated or labels[]), then labels match any of them', async () => {
    expect(idsOf(await list(`?inbox_id=${inboxB.id}&status=all`)).sort()).toEqual([ids['b1'], ids['b2'], ids['b3']].sort());
    expect(idsOf(await list('?labels=billing')).sort()).toEqual([ids['a1'], ids['b1']].sort());
    expect(idsOf(await list('?labels[]=vip')).sort()).toEqual([ids['a2'], ids['b1']].sort());
    const both = await list('?labels=billing&labels=vip');
    expect(idsOf(both).sort()).toEqual([ids['a1'], ids['a2'], ids['b1']].sort());
    expect(both.body.data.meta.all_count).toBe(3);
  });

  it('when q is given, then conversations with a matching incoming or outgoing message (notes too, as Chatwoot) are found whatever their status', async () => {
    const res = await list('?q=REFUND');
    expect(idsOf(res).sort()).toEqual([ids['a2'], ids['b1'], ids['b3']].sort());
    expect(res.body.data.meta.all_count).toBe(3);
    expect(idsOf(await list('?q=nothing-like-this'))).toEqual([]);
    expect(idsOf(await list('?q=100%25'))).toEqual([]);
  });

  it('when sorted, then priority, creation and waiting orders apply', async () => {
    expect(idsOf(await list('?status=all&sort_by=priority_desc'))[0]).toBe(ids['b2']);
    expect(idsOf(await list('?status=all&sort_by=created_at_asc'))).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'b3'].map((k) => ids[k]));
    expect(idsOf(await list('?status=all&sort_by=created_at_desc'))).toEqual(['b3', 'b2', 'b1', 'a3', 'a2', 'a1'].map((k) => ids[k]));
    expect(idsOf(await list('?sort_by=last_activity_at_asc'))).toEqual([ids['a1'], ids['a2'], ids['b1']]);
  });

  it('when an agent lists, then only conversations of their inboxes are listed and counted', async () => {
    const res = await list('?status=all', acc.agent);
    expect(idsOf(res).sort()).toEqual([ids['a1'], ids['a2'], ids['a3']].sort());
    expect(res.body.data.meta).toEqual({ mine_count: 1, assigned_count: 2, unassigned_count: 1, all_count: 3 });
    expect(idsOf(await list(`?inbox_id=${inboxB.id}&status=all`, acc.agent))).toEqual([]);
    const meta = await h.call('GET', `${base()}/conversations/meta?status=all`, { as: acc.agent });
    expect(meta.body).toEqual({ meta: { mine_count: 1, assigned_count: 2, unassigned_count: 1, all_count: 3 } });
  });

  it('when parameters are unknown or malformed, then 400 with the Error body', async () => {
    for (const q of ['?status=closed', '?page=0', '?page=abc', '?inbox_id=x', '?sort_by=nonsense', '?assignee_type=them', '?foo=1', '?q=a&q=b', '?labels[x]=1']) {
      const res = await list(q);
      expectError(res, 400);
    }
    expect((await list('?foo=1')).body.errors[0]).toMatchObject({ code: 'unknown_parameter' });
  });

  it('when more than 25 match, then pages of 25 follow each other without overlap', async () => {
    const big = await h.account();
    const inbox = await createInbox(h, big);
    for (let i = 0; i < 27; i++) await createConversation(h, big, inbox.id);
    const p1 = await h.call('GET', `/api/v1/accounts/${big.accountId}/conversations`, { as: big.admin });
    const p2 = await h.call('GET', `/api/v1/accounts/${big.accountId}/conversations?page=2`, { as: big.admin });
    const p3 = await h.call('GET', `/api/v1/accounts/${big.accountId}/conversations?page=3`, { as: big.admin });
    expect(p1.body.data.payload).toHaveLength(25);
    expect(p2.body.data.payload).toHaveLength(2);
    expect(p3.body.data.payload).toHaveLength(0);
    expect(p1.body.data.meta.all_count).toBe(27);
    expect(new Set([...idsOf(p1), ...idsOf(p2)]).size).toBe(27);
  });

  it('when a conversation`s last message is an activity, then its last non-activity message is the one before; otherwise both are the last message', async () => {
    const own = await h.account();
    const inbox = await createInbox(h, own);
    const at = `/api/v1/accounts/${own.accountId}/conversations`;
    const post = (id: number, path: string, body: unknown) => h.call('POST', `${at}/${id}/${path}`, { as: own.admin, body });
    // resolvedAfterReply: a reply, then resolved (its last message is the activity);
    // replied: a reply only; bare: resolved with no other message; silent: no message at all.
    const resolvedAfterReply = (await createConversation(h, own, inbox.id)).id;
    const replied = (await createConversation(h, own, inbox.id)).id;
    const bare = (await createConversation(h, own, inbox.id)).id;
    const silent = (await createConversation(h, own, inbox.id)).id;
    await post(resolvedAfterReply, 'messages', { content: 'Sorted, closing this' });
    await post(resolvedAfterReply, 'toggle_status', { status: 'resolved' });
    await post(replied, 'messages', { content: 'Looking into it' });
    await post(bare, 'toggle_status', { status: 'resolved' });
    const page = (await h.call('GET', `${at}?status=all`, { as: own.admin })).body.data.payload;
    const byId = new Map(page.map((c: any) => [c.id, c]));
    const resolved: any = byId.get(resolvedAfterReply);
    expect(resolved.messages.map((m: any) => [m.message_type, m.content])).toEqual([[2, `Conversation was marked resolved by Agent ${own.adminId}`]]);
    expect(resolved.last_non_activity_message).toMatchObject({ content: 'Sorted, closing this', message_type: 1, conversation_id: resolvedAfterReply });
    const repliedOne: any = byId.get(replied);
    expect(repliedOne.messages.map((m: any) => m.content)).toEqual(['Looking into it']);
    expect(repliedOne.last_non_activity_message).toEqual(repliedOne.messages[0]);
    const bareOne: any = byId.get(bare);
    expect(bareOne.messages.map((m: any) => m.message_type)).toEqual([2]);
    expect(bareOne.last_non_activity_message).toBeNull();
    const silentOne: any = byId.get(silent);
    expect(silentOne.messages).toEqual([]);
    expect(silentOne.last_non_activity_message).toBeNull();
    // One conversation alone reads its extras the same way.
    const shown = (await h.call('GET', `${at}/${resolvedAfterReply}`, { as: own.admin })).body;
    expect(shown.last_non_activity_message).toEqual(resolved.last_non_activity_message);
    expect(shown.messages).toEqual(resolved.messages);
  });
});

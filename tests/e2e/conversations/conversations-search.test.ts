import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { createApiInbox, type ApiInbox } from '../../support/contacts';
import { conversationFor, publicContact } from '../../support/conversations';

/** GET /conversations/search (issue 15): the list's query, visibility and q, through the gateway. */
describe('conversation search, through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let mine: ApiInbox;
  let other: ApiInbox;
  const ids: Record<string, number> = {};
  const A = () => `/api/v1/accounts/${acc.accountId}`;
  const idsOf = (res: any): number[] => res.body.data.payload.map((c: any) => c.id);
  const search = (query: string, token = acc.admin.token) => call('GET', `${A()}/conversations/search?${query}`, { token });

  // mine (the agent is a member): parcel (message "Where is my parcel?"), named (contact "Zebediah Quill", resolved);
  // other: parcel2 (message "Parcel lost"), plain.
  beforeAll(async () => {
    stack = await startStack({ only: ['conversations', 'contacts'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    mine = await createApiInbox(call, acc, { name: 'Mine' });
    other = await createApiInbox(call, acc, { name: 'Other' });
    await call('POST', `${A()}/inbox_members`, { token: acc.admin.token, body: { inbox_id: mine.id, user_ids: [acc.agent.userId] } });
    ids['parcel'] = (await conversationFor(call, acc, mine, { message: { content: 'Where is my parcel?', message_type: 'incoming' } })).id;
    const zeb = await publicContact(call, mine, { name: 'Zebediah Quill' });
    ids['named'] = (await conversationFor(call, acc, mine, { contact_id: zeb.id, status: 'resolved' })).id;
    ids['parcel2'] = (await conversationFor(call, acc, other, { message: { content: 'Parcel lost', message_type: 'outgoing' } })).id;
    ids['plain'] = (await conversationFor(call, acc, other, { message: { content: 'Hello', message_type: 'incoming' } })).id;
  });
  afterAll(() => stack?.stop());

  it('when q names message content or a contact name, then the matching conversations come as the list gives them, with counts', async () => {
    const byMessage = await search('q=PARCEL');
    expect(byMessage.status).toBe(200);
    expect(idsOf(byMessage).sort()).toEqual([ids['parcel'], ids['parcel2']].sort());
    expect(byMessage.body.data.meta).toEqual({ mine_count: 0, assigned_count: 0, unassigned_count: 2, all_count: 2 });
    const list = await call('GET', `${A()}/conversations?q=PARCEL`, { token: acc.admin.token });
    expect(byMessage.body.data.payload).toEqual(list.body.data.payload);

    // A resolved one too: status is ignored when q is given, as the list does.
    const byName = await search('q=zebediah');
    expect(idsOf(byName)).toEqual([ids['named']]);
    expect(byName.body.data.payload[0].meta.sender).toMatchObject({ name: 'Zebediah Quill' });
    expect(idsOf(await search('q=nothing-like-this'))).toEqual([]);
    // The list's other parameters narrow it.
    expect(idsOf(await search(`q=parcel&inbox_id=${other.id}`))).toEqual([ids['parcel2']]);
  });

  it('when an agent searches, then only the conversations of their inboxes come', async () => {
    const res = await search('q=parcel', acc.agent.token);
    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([ids['parcel']]);
    expect(res.body.data.meta.all_count).toBe(1);
  });

  it('when team_id is no team of the account, then 404 with the Error body', async () => {
    const foreignAcc = await seedAccount(stack);
    const foreign = (await call('POST', `/api/v1/accounts/${foreignAcc.accountId}/teams`, { token: foreignAcc.admin.token, body: { name: 'Theirs' } })).body;
    for (const teamId of [foreign.id, 999_999]) {
      const res = await search(`q=parcel&team_id=${teamId}`);
      expect([teamId, res.status]).toEqual([teamId, 404]);
      expectErrorBody(res.body, 'not_found');
      expect(res.body.errors[0].field).toBe('team_id');
    }
    const team = (await call('POST', `${A()}/teams`, { token: acc.admin.token, body: { name: 'Billing' } })).body;
    const ok = await search(`q=parcel&team_id=${team.id}`);
    expect(ok.status).toBe(200);
    expect(idsOf(ok)).toEqual([]);
  });

  it('when the query is bad (no q, empty q, unknown or malformed parameter), then 400 with the Error body', async () => {
    for (const query of ['', 'q=', 'q=parcel&bogus=1', 'q=parcel&page=abc', `q=${'x'.repeat(201)}`]) {
      const res = await search(query);
      expect([query, res.status]).toEqual([query, 400]);
      expectErrorBody(res.body);
    }
  });
});

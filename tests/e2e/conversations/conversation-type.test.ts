import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { createApiInbox, type ApiInbox } from '../../support/contacts';
import { conversationFor } from '../../support/conversations';

/** The list's conversation_type=mention|participating through the gateway (Chatwoot's mentions and participants). */
describe('GET /conversations?conversation_type=mention|participating through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let inbox: ApiInbox;
  const A = () => `/api/v1/accounts/${acc.accountId}`;
  const list = async (q: string, token: string) => {
    const res = await call('GET', `${A()}/conversations${q}`, { token });
    if (res.status !== 200) throw new Error(`list answered ${res.status}: ${res.text}`);
    return res.body.data.payload.map((c: any) => c.id).sort((a: number, b: number) => a - b);
  };

  beforeAll(async () => {
    stack = await startStack({ only: ['conversations', 'contacts'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    inbox = await createApiInbox(call, acc);
    await call('POST', `${A()}/inbox_members`, { token: acc.admin.token, body: { inbox_id: inbox.id, user_ids: [acc.agent.userId] } });
  });
  afterAll(() => stack?.stop());

  it('when a private note @-mentions an agent, then the conversation is in their mention list (not in others\')', async () => {
    const mentioned = await conversationFor(call, acc, inbox);
    const plain = await conversationFor(call, acc, inbox);
    const note = await call('POST', `${A()}/conversations/${mentioned.id}/messages`, {
      token: acc.admin.token,
      body: { content: `Can you look? [@${acc.agent.name}](mention://user/${acc.agent.userId}/${encodeURIComponent(acc.agent.name)})`, private: true },
    });
    expect(note.status).toBe(200);
    // A public message with the same text is not a mention (Chatwoot reads notes only).
    await call('POST', `${A()}/conversations/${plain.id}/messages`, { token: acc.admin.token, body: { content: `mention://user/${acc.agent.userId}/x` } });
    expect(await list('?conversation_type=mention', acc.agent.token)).toEqual([mentioned.id]);
    expect(await list('?conversation_type=mention', acc.admin.token)).toEqual([]);
  });

  it('when an agent wrote in, was mentioned in or is assigned a conversation, then it is in their participating list', async () => {
    const other = await createApiInbox(call, acc, { name: 'Not the agent\'s' });
    const wrote = await conversationFor(call, acc, inbox);
    const assigned = await conversationFor(call, acc, inbox, { assignee_id: acc.agent.userId });
    const untouched = await conversationFor(call, acc, inbox);
    // Mentioned in a conversation of an inbox they are not a member of: participating lists it
    // anyway (Chatwoot's participating replaces the inbox scope).
    const elsewhere = await conversationFor(call, acc, other);
    await call('POST', `${A()}/conversations/${elsewhere.id}/messages`, { token: acc.admin.token, body: { content: `[@A](mention://user/${acc.agent.userId}/A)`, private: true } });
    expect((await call('POST', `${A()}/conversations/${wrote.id}/messages`, { token: acc.agent.token, body: { content: 'On it' } })).status).toBe(200);
    const mine = await list('?conversation_type=participating&status=all', acc.agent.token);
    expect(mine).toEqual(expect.arrayContaining([wrote.id, assigned.id, elsewhere.id]));
    expect(mine).not.toContain(untouched.id);
    // The admin wrote the notes: they participate in those, not in the agent's reply-only one.
    const admins = await list('?conversation_type=participating&status=all', acc.admin.token);
    expect(admins).toContain(elsewhere.id);
    expect(admins).not.toContain(wrote.id);
  });

  it('when conversation_type is unknown, then 400', async () => {
    const res = await call('GET', `${A()}/conversations?conversation_type=starred`, { token: acc.agent.token });
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 'invalid_parameter');
  });
});

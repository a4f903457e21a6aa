import { tapEvents, type EventTap } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { createApiInbox, type ApiInbox } from '../../support/contacts';
import { publicContact, publicConversationsPath } from '../../support/conversations';

/**
 * Issue 3 "done when": a whole support flow through the gateway, every service running:
 * inbox -> public contact -> public conversation -> incoming message -> agent reply ->
 * labels -> priority -> resolve -> reopened by the next incoming message.
 */
describe('a support conversation from first message to reopen, through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let inbox: ApiInbox;
  let tap: EventTap;

  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
    tap = await tapEvents(stack.env.namespace, ['conversation.*', 'message.*', 'assignee.changed']);
    acc = await seedAccount(stack);
    inbox = await createApiInbox(call, acc, { name: 'Website' });
    // The agent works this inbox.
    const member = await call('POST', `/api/v1/accounts/${acc.accountId}/inbox_members`, { token: acc.admin.token, body: { inbox_id: inbox.id, user_ids: [acc.agent.userId] } });
    expect(member.status).toBe(200);
  });
  afterAll(async () => {
    await tap?.close();
    await stack?.stop();
  });

  it('when a customer writes through the public API and an agent handles it, then every step answers as documented and is announced', async () => {
    const A = `/api/v1/accounts/${acc.accountId}`;
    const agent = { token: acc.agent.token };

    // The customer: a contact, a conversation and a first message, without credentials.
    const contact = await publicContact(call, inbox, { name: 'Jane Customer', email: `jane-${Date.now()}@example.com` });
    const pub = publicConversationsPath(inbox, contact.source_id);
    const opened = await call('POST', pub, { body: { custom_attributes: { order: 'A-1001' } } });
    expect(opened.status).toBe(200);
    const id: number = opened.body.id;
    expect(opened.body).toMatchObject({ inbox_id: inbox.id, status: 'open', messages: [], contact: { id: contact.id, name: 'Jane Customer' } });
    const incoming = await call('POST', `${pub}/${id}/messages`, { body: { content: 'My order never arrived' } });
    expect(incoming.status).toBe(200);
    expect(incoming.body).toMatchObject({ content: 'My order never arrived', message_type: 0, conversation_id: id });
    expect((await tap.next('conversation.created', (e) => e.data['id'] === id && e.account_id === acc.accountId)).actor).toMatchObject({ type: 'contact', id: contact.id });

    // The agent finds it in the list, with the contact as sender and the message as the last one.
    const list = await call('GET', `${A}/conversations?inbox_id=${inbox.id}`, agent);
    expect(list.status).toBe(200);
    const item = list.body.data.payload.find((c: any) => c.id === id);
    expect(item).toMatchObject({ status: 'open', meta: { sender: { id: contact.id, name: 'Jane Customer' }, channel: 'Channel::Api' }, custom_attributes: { order: 'A-1001' } });
    expect(item.messages[0].content).toBe('My order never arrived');
    expect(item.waiting_since).toBeGreaterThan(0);
    expect(list.body.data.meta.unassigned_count).toBeGreaterThanOrEqual(1);

    // The agent replies; the reply is the first response and ends the wait.
    const reply = await call('POST', `${A}/conversations/${id}/messages`, { ...agent, body: { content: 'Sorry about that, let me check.' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ message_type: 1, sender_type: 'User', sender_id: acc.agent.userId });
    const afterReply = (await call('GET', `${A}/conversations/${id}`, agent)).body;
    expect(afterReply.first_reply_created_at).toBeGreaterThan(0);
    expect(afterReply.waiting_since).toBe(0);

    // Labels (SPEC 6) and priority (SPEC 7).
    const labels = await call('POST', `${A}/conversations/${id}/labels`, { ...agent, body: { labels: ['delivery', 'refund'] } });
    expect(labels.body).toEqual({ payload: ['delivery', 'refund'] });
    expect((await call('POST', `${A}/conversations/${id}/toggle_priority`, { ...agent, body: { priority: 'high' } })).status).toBe(200);
    const prioritised = (await call('GET', `${A}/conversations/${id}`, agent)).body;
    expect(prioritised).toMatchObject({ labels: ['delivery', 'refund'], priority: 'high' });
    expect((await tap.next('conversation.labels_changed', (e) => e.data['id'] === id)).data['labels']).toEqual(['delivery', 'refund']);
    expect((await tap.next('conversation.priority_changed', (e) => e.data['id'] === id)).changes).toEqual({ priority: [null, 'high'] });

    // Resolved by the agent.
    const resolved = await call('POST', `${A}/conversations/${id}/toggle_status`, { ...agent, body: { status: 'resolved' } });
    expect(resolved.body.payload).toMatchObject({ success: true, conversation_id: id, current_status: 'resolved' });
    await tap.next('conversation.resolved', (e) => e.data['id'] === id);

    // The customer sees the chat (no notes, no activity) and writes again: reopened.
    const seen = await call('GET', `${pub}/${id}`);
    expect(seen.status).toBe(200);
    expect(seen.body.status).toBe('resolved');
    expect(seen.body.messages.map((m: any) => m.content)).toEqual(['My order never arrived', 'Sorry about that, let me check.']);
    await call('POST', `${pub}/${id}/messages`, { body: { content: 'Any news?' } });
    const reopened = await tap.next('conversation.opened', (e) => e.data['id'] === id);
    expect(reopened.changes).toEqual({ status: ['resolved', 'open'] });
    const back = (await call('GET', `${A}/conversations/${id}`, agent)).body;
    expect(back).toMatchObject({ status: 'open', labels: ['delivery', 'refund'], priority: 'high' });
    expect(back.waiting_since).toBeGreaterThan(0);

    // The agent's thread shows the activity along the way.
    const thread = await call('GET', `${A}/conversations/${id}/messages`, agent);
    const activity = thread.body.payload.filter((m: any) => m.message_type === 2).map((m: any) => m.content);
    expect(activity).toEqual(expect.arrayContaining([expect.stringContaining('added delivery, refund'), expect.stringContaining('set the priority to high'), expect.stringContaining('marked resolved'), 'System reopened the conversation due to a new incoming message.']));
    const created = tap.events.filter((e) => e.type === 'message.created' && e.data['conversation_id'] === id && e.data['message_type'] === 0);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(created[0]!.data['conversation']).toMatchObject({ id, inbox_id: inbox.id, contact_id: contact.id });
  });

  it('when the public path names a wrong inbox, contact or conversation, then 404 with the Error body', async () => {
    const contact = await publicContact(call, inbox);
    const pub = publicConversationsPath(inbox, contact.source_id);
    const id = (await call('POST', pub, { body: {} })).body.id;
    const stranger = await publicContact(call, inbox);
    for (const path of [
      `/public/api/v1/inboxes/unknownInbox123/contacts/${contact.source_id}/conversations/${id}`,
      `/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts/no-such-source/conversations/${id}`,
      `${publicConversationsPath(inbox, stranger.source_id)}/${id}`,
      `${pub}/987654`,
    ]) {
      const res = await call('GET', path);
      expect(res.status).toBe(404);
      expectErrorBody(res.body, 'not_found');
    }
  });
});

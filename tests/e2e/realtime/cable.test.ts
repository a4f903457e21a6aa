import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client } from '../../support/http';
import { createApiInbox, type ApiInbox } from '../../support/contacts';
import { publicContact, publicConversationsPath } from '../../support/conversations';
import { consumerPool, pubsubTokenOf, rawSocket, watch, type Watched } from '../../support/cable';

/**
 * Issue 14: the ActionCable `/cable` channel through the gateway, with the real
 * `@rails/actioncable` client: the protocol, the RoomChannel token checks, and who receives what.
 */
describe('the /cable channel through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let other: SeededAccount;
  let inbox: ApiInbox;
  const consumers = consumerPool(() => stack.gatewayUrl);
  const consumer = () => consumers.open();
  const pubsubOf = (token: string): Promise<string> => pubsubTokenOf(call, token);
  const A = () => `/api/v1/accounts/${acc.accountId}`;

  beforeAll(async () => {
    stack = await startStack({ service: { realtime: { REALTIME_PING_INTERVAL_MS: 300, REALTIME_MAX_SUBSCRIPTIONS: 3, REALTIME_MAX_FRAMES_PER_10S: 40 } } });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    other = await seedAccount(stack);
    inbox = await createApiInbox(call, acc);
    const member = await call('POST', `${A()}/inbox_members`, { token: acc.admin.token, body: { inbox_id: inbox.id, user_ids: [acc.agent.userId] } });
    expect(member.status).toBe(200);
  });
  afterAll(async () => {
    consumers.disconnectAll();
    await stack?.stop();
  });

  /** A contact with a conversation it opened through the public API, and its RoomChannel token. */
  async function contactConversation(box: ApiInbox = inbox): Promise<{ contactId: number; pubsub: string; id: number; pub: string; sourceId: string }> {
    const contact = (await publicContact(call, box)) as { id: number; source_id: string; pubsub_token: string };
    const pub = publicConversationsPath(box, contact.source_id);
    const opened = await call('POST', pub, { body: {} });
    expect(opened.status).toBe(200);
    return { contactId: contact.id, pubsub: contact.pubsub_token, id: opened.body.id, pub, sourceId: contact.source_id };
  }

  describe('protocol', () => {
    it('when a socket connects, then it gets welcome and a ping every interval, and a plain GET of /cable is 426', async () => {
      const s = await rawSocket(stack.gatewayUrl);
      expect(s.ws.protocol).toBe('actioncable-v1-json');
      expect(s.frames[0] ?? (await s.waitFor((f) => f.type === 'welcome'))).toEqual({ type: 'welcome' });
      const ping = await s.waitFor((f) => f.type === 'ping', 'a ping');
      expect(Math.abs(ping.message - Date.now() / 1000)).toBeLessThan(5);
      s.ws.close();
      const plain = await fetch(`${stack.gatewayUrl}/cable`);
      expect(plain.status).toBe(426);
      expect(((await plain.json()) as { errors: Array<{ code: string }> }).errors[0]?.code).toBe('upgrade_required');
    });

    it('when frames are malformed or name another channel, then they are ignored or rejected and the connection lives on', async () => {
      const s = await rawSocket(stack.gatewayUrl);
      s.send('not json');
      s.send({ command: 'launch', identifier: '{}' });
      s.send(Buffer.from([1, 2, 3]));
      const bad = JSON.stringify({ channel: 'NotificationsChannel', pubsub_token: 'x' });
      s.send({ command: 'subscribe', identifier: bad });
      expect(await s.waitFor((f) => f.identifier === bad)).toEqual({ identifier: bad, type: 'reject_subscription' });
      s.send({ command: 'subscribe', identifier: 'not json either' });
      expect(await s.waitFor((f) => f.identifier === 'not json either')).toMatchObject({ type: 'reject_subscription' });
      const admin = JSON.stringify({ channel: 'RoomChannel', pubsub_token: await pubsubOf(acc.admin.token), account_id: acc.accountId, user_id: acc.admin.userId });
      s.send({ command: 'subscribe', identifier: admin });
      expect(await s.waitFor((f) => f.identifier === admin && f.type)).toEqual({ identifier: admin, type: 'confirm_subscription' });
      s.ws.close();
    });

    it('when a connection asks for more subscriptions than allowed, then the extra ones are rejected', async () => {
      const s = await rawSocket(stack.gatewayUrl);
      const token = await pubsubOf(acc.admin.token);
      const ids = [1, 2, 3, 4].map((n) => JSON.stringify({ channel: 'RoomChannel', pubsub_token: token, account_id: acc.accountId, user_id: acc.admin.userId, n }));
      for (const identifier of ids) s.send({ command: 'subscribe', identifier });
      const answers = await Promise.all(ids.map((id) => s.waitFor((f) => f.identifier === id && f.type)));
      expect(answers.filter((a) => a.type === 'confirm_subscription')).toHaveLength(3);
      expect(answers.filter((a) => a.type === 'reject_subscription')).toHaveLength(1);
      s.ws.close();
    });

    it('when a client floods frames or sends one too big, then it is disconnected, and the server keeps serving', async () => {
      const flood = await rawSocket(stack.gatewayUrl);
      for (let i = 0; i < 60; i++) flood.send({ command: 'message', identifier: '{}', data: '{}' });
      expect(await flood.waitFor((f) => f.type === 'disconnect')).toEqual({ type: 'disconnect', reason: 'invalid_request', reconnect: false });
      await flood.closed;
      const big = await rawSocket(stack.gatewayUrl);
      big.send('x'.repeat(20_000));
      await big.closed;
      const fine = await rawSocket(stack.gatewayUrl);
      await fine.waitFor((f) => f.type === 'welcome');
      fine.ws.close();
    });
  });

  describe('RoomChannel checks', () => {
    it('when users and contacts subscribe with their own tokens, then they are confirmed; a bogus token, another account or another user is rejected', async () => {
      const c = consumer();
      const adminToken = await pubsubOf(acc.admin.token);
      const agentToken = await pubsubOf(acc.agent.token);
      const { pubsub } = await contactConversation();
      const ok = [
        watch(c, { pubsub_token: adminToken, account_id: acc.accountId, user_id: acc.admin.userId }),
        watch(c, { pubsub_token: pubsub }),
      ];
      const c2 = consumer();
      const refused = [
        watch(c2, { pubsub_token: 'bogus-token', account_id: acc.accountId, user_id: acc.admin.userId }),
        watch(c2, { pubsub_token: adminToken, account_id: other.accountId, user_id: acc.admin.userId }),
        watch(c2, { pubsub_token: adminToken, account_id: acc.accountId, user_id: acc.agent.userId }),
        watch(consumer(), { pubsub_token: agentToken, user_id: acc.agent.userId }),
        watch(consumer(), { pubsub_token: 'no-such-contact-token' }),
      ];
      for (const w of ok) await w.waitForState('confirmed');
      for (const w of refused) await w.waitForState('rejected');
      // A user subscription is told who is online in its account, itself included.
      const presence = await ok[0]!.waitFor((m) => m.event === 'presence.update');
      expect(presence.data).toMatchObject({ account_id: acc.accountId, users: { [String(acc.admin.userId)]: expect.any(String) }, contacts: expect.any(Object) });
    });
  });

  describe('who receives what', () => {
    let admin: Watched;
    let agent: Watched;
    let stranger: Watched;

    beforeAll(async () => {
      admin = watch(consumer(), { pubsub_token: await pubsubOf(acc.admin.token), account_id: acc.accountId, user_id: acc.admin.userId });
      agent = watch(consumer(), { pubsub_token: await pubsubOf(acc.agent.token), account_id: acc.accountId, user_id: acc.agent.userId });
      stranger = watch(consumer(), { pubsub_token: await pubsubOf(other.admin.token), account_id: other.accountId, user_id: other.admin.userId });
      await Promise.all([admin, agent, stranger].map((w) => w.waitForState('confirmed')));
    });

    it("when an agent replies and writes a private note, then the contact gets the reply as Chatwoot's push data and never the note", async () => {
      const conv = await contactConversation();
      const contact = watch(consumer(), { pubsub_token: conv.pubsub });
      await contact.waitForState('confirmed');
      const note = await call('POST', `${A()}/conversations/${conv.id}/messages`, { token: acc.agent.token, body: { content: 'internal: check the refund', private: true } });
      expect(note.status).toBe(200);
      const reply = await call('POST', `${A()}/conversations/${conv.id}/messages`, { token: acc.agent.token, body: { content: 'Hello from support' } });
      expect(reply.status).toBe(200);

      const got = await contact.waitFor((m) => m.event === 'message.created' && m.data.content === 'Hello from support', 'the reply');
      expect(got.id).toMatch(/^\d+-\d+$/);
      expect(got.data).toMatchObject({
        id: reply.body.id, content: 'Hello from support', account_id: acc.accountId, inbox_id: inbox.id, conversation_id: conv.id,
        message_type: 1, private: false, created_at: expect.any(Number), sender_type: 'User', sender_id: acc.agent.userId,
        sender: { id: acc.agent.userId, type: 'user', name: acc.agent.name },
        conversation: expect.objectContaining({ last_activity_at: expect.any(Number) }),
      });
      // The agents get both; the note was written first, so the reply proves the note had its chance.
      await agent.waitFor((m) => m.event === 'message.created' && m.data.id === reply.body.id);
      expect(agent.events().some((m) => m.event === 'message.created' && m.data.id === note.body.id && m.data.private === true)).toBe(true);
      expect(contact.events().some((m) => m.event === 'message.created' && m.data.id === note.body.id)).toBe(false);
      expect(contact.events().every((m) => m.data?.private !== true)).toBe(true);
    });

    it("when the contact writes, the conversation is resolved and people type, then the agents get the message, the status change and the typing, and another account gets nothing", async () => {
      const conv = await contactConversation();
      const contact = watch(consumer(), { pubsub_token: conv.pubsub });
      await contact.waitForState('confirmed');
      const incoming = await call('POST', `${conv.pub}/${conv.id}/messages`, { body: { content: 'Where is my order?' } });
      expect(incoming.status).toBe(200);
      const msg = await agent.waitFor((m) => m.event === 'message.created' && m.data.id === incoming.body.id, 'the incoming message');
      expect(msg.data).toMatchObject({ message_type: 0, conversation_id: conv.id, sender_type: 'Contact', sender: { id: conv.contactId, type: 'contact' } });
      await admin.waitFor((m) => m.event === 'message.created' && m.data.id === incoming.body.id);

      const resolved = await call('POST', `${A()}/conversations/${conv.id}/toggle_status`, { token: acc.agent.token, body: { status: 'resolved' } });
      expect(resolved.status).toBe(200);
      const status = await agent.waitFor((m) => m.event === 'conversation.status_changed' && m.data.id === conv.id, 'the status change');
      expect(status.data).toMatchObject({ id: conv.id, inbox_id: inbox.id, status: 'resolved', account_id: acc.accountId, meta: expect.objectContaining({ sender: expect.objectContaining({ id: conv.contactId, type: 'contact' }) }) });
      await contact.waitFor((m) => m.event === 'conversation.status_changed' && m.data.status === 'resolved');

      // Typing: the contact's reaches the agents (not the contact); the agent's reaches the contact and the other agents.
      expect((await call('POST', `${conv.pub}/${conv.id}/toggle_typing`, { body: { typing_status: 'on' } })).status).toBe(200);
      const typing = await agent.waitFor((m) => m.event === 'conversation.typing_on', 'contact typing');
      expect(typing.data).toMatchObject({ conversation: { id: conv.id }, user: { id: conv.contactId, type: 'contact' }, is_private: false, account_id: acc.accountId });
      expect((await call('POST', `${A()}/conversations/${conv.id}/toggle_typing_status`, { token: acc.agent.token, body: { typing_status: 'off', is_private: true } })).status).toBe(200);
      const off = await contact.waitFor((m) => m.event === 'conversation.typing_off', 'agent typing off');
      expect(off.data).toMatchObject({ conversation: { id: conv.id }, user: { id: acc.agent.userId, type: 'user' }, is_private: true });
      await admin.waitFor((m) => m.event === 'conversation.typing_off' && m.data.conversation.id === conv.id);
      expect(agent.events().some((m) => m.event === 'conversation.typing_off' && m.data.conversation.id === conv.id)).toBe(false);
      expect(contact.events().some((m) => m.event === 'conversation.typing_on')).toBe(false);

      // The other account's administrator saw none of it (its own account's events still arrive).
      const theirs = await createApiInbox(call, other);
      const ctc = await publicContact(call, theirs);
      await stranger.waitFor((m) => m.event === 'contact.created' && m.data.id === ctc.id, 'its own account event');
      expect(stranger.events().every((m) => m.data.account_id === other.accountId)).toBe(true);
    });

    it('when the contact reads the conversation, then conversation.read reaches the agents with the conversation\'s push data, and never the contact or another account', async () => {
      const conv = await contactConversation();
      const contact = watch(consumer(), { pubsub_token: conv.pubsub });
      await contact.waitForState('confirmed');
      expect((await call('POST', `${conv.pub}/${conv.id}/update_last_seen`, { body: {} })).status).toBe(200);
      const read = await agent.waitFor((m) => m.event === 'conversation.read' && m.data.id === conv.id, 'conversation.read');
      expect(read.id).toMatch(/^\d+-\d+$/);
      expect(read.data).toMatchObject({ id: conv.id, inbox_id: inbox.id, account_id: acc.accountId, status: 'open', contact_inbox: { source_id: conv.sourceId }, meta: expect.objectContaining({ sender: expect.objectContaining({ id: conv.contactId, type: 'contact' }) }) });
      await admin.waitFor((m) => m.event === 'conversation.read' && m.data.id === conv.id);
      // A later event on the contact's stream shows conversation.read had its chance there.
      const later = await call('POST', `${A()}/conversations/${conv.id}/messages`, { token: acc.agent.token, body: { content: 'Seen you read it' } });
      await contact.waitFor((m) => m.event === 'message.created' && m.data.id === later.body.id);
      expect(contact.events().some((m) => m.event === 'conversation.read')).toBe(false);
      expect(stranger.events().some((m) => m.event === 'conversation.read')).toBe(false);
    });

    it('when subscribers send update_presence again and again, then each gets presence.update for itself alone, every time, listing who is online', async () => {
      const conv = await contactConversation();
      const contact = watch(consumer(), { pubsub_token: conv.pubsub });
      await contact.waitForState('confirmed');
      const presences = (w: Watched) => w.received.filter((m) => m.event === 'presence.update');
      await contact.waitFor((m) => m.event === 'presence.update');
      const agentBefore = presences(agent).length;
      for (let i = 0; i < 3; i++) {
        const before = presences(admin).length;
        expect(admin.sub.perform('update_presence')).toBe(true);
        await admin.waitFor(() => presences(admin).length > before, `presence answer ${i + 1}`);
      }
      const last = presences(admin).at(-1)!;
      expect(last.data).toMatchObject({ account_id: acc.accountId, users: { [String(acc.admin.userId)]: expect.any(String) }, contacts: { [String(conv.contactId)]: 'online' } });
      expect(last.id).toBeUndefined();
      const contactBefore = presences(contact).length;
      expect(contact.sub.perform('update_presence')).toBe(true);
      await contact.waitFor(() => presences(contact).length > contactBefore, 'the contact presence answer');
      const mine = presences(contact).at(-1)!;
      expect(mine.data).toMatchObject({ account_id: acc.accountId, users: { [String(acc.admin.userId)]: expect.any(String) } });
      // Contacts are not told which contacts are online.
      expect(mine.data).not.toHaveProperty('contacts');
      // Nobody else got those answers.
      expect(presences(agent).length).toBe(agentBefore);
    });

    it('when an agent replies first, a colleague is mentioned in a note and the conversation is resolved, then agents get first.reply.created once, the mentioned agent alone gets conversation.mentioned, and the status change names its performer and carries the last message', async () => {
      const conv = await contactConversation();
      const contact = watch(consumer(), { pubsub_token: conv.pubsub });
      await contact.waitForState('confirmed');
      const post = async (token: string, body: Record<string, unknown>) => {
        const res = await call('POST', `${A()}/conversations/${conv.id}/messages`, { token, body });
        expect(res.status).toBe(200);
        return res.body.id as number;
      };
      const first = await post(acc.agent.token, { content: 'First answer' });
      const second = await post(acc.agent.token, { content: 'Second answer' });
      await post(acc.admin.token, { content: `Could you check this (mention://user/${acc.agent.userId}/${encodeURIComponent(acc.agent.name)})`, private: true });
      expect((await call('POST', `${A()}/conversations/${conv.id}/toggle_status`, { token: acc.agent.token, body: { status: 'resolved' } })).status).toBe(200);

      const reply = await contact.waitFor((m) => m.event === 'message.created' && m.data.id === first, 'the first reply');
      expect(reply.data).toMatchObject({ sender: { id: acc.agent.userId, type: 'user' }, performer: { id: acc.agent.userId, type: 'user', name: acc.agent.name }, conversation: { contact_inbox: { source_id: conv.sourceId } } });
      const firstReply = await agent.waitFor((m) => m.event === 'first.reply.created' && m.data.id === conv.id, 'first.reply.created');
      expect(firstReply.data).toMatchObject({ id: conv.id, inbox_id: inbox.id, account_id: acc.accountId, first_reply_created_at: expect.any(String) });
      const mention = await agent.waitFor((m) => m.event === 'conversation.mentioned' && m.data.id === conv.id, 'conversation.mentioned');
      expect(mention.data).toMatchObject({ id: conv.id, account_id: acc.accountId, performer: { id: acc.admin.userId, type: 'user' } });
      for (const w of [admin, agent]) {
        const status = await w.waitFor((m) => m.event === 'conversation.status_changed' && m.data.id === conv.id && m.data.status === 'resolved', 'the status change');
        expect(status.data.performer).toMatchObject({ id: acc.agent.userId, type: 'user', name: acc.agent.name, available_name: expect.any(String) });
        // The last chat message: not the private note, not the activity message the status change wrote.
        expect(status.data.messages).toEqual([expect.objectContaining({ id: second, content: 'Second answer', message_type: 1, sender: expect.objectContaining({ id: acc.agent.userId, type: 'user' }) })]);
      }
      await contact.waitFor((m) => m.event === 'conversation.status_changed' && m.data.status === 'resolved');
      // The status change came after the note and the replies in every stream: nothing else is on its way.
      expect(agent.events().filter((m) => m.event === 'first.reply.created' && m.data.id === conv.id)).toHaveLength(1);
      expect(admin.events().filter((m) => m.event === 'first.reply.created' && m.data.id === conv.id)).toHaveLength(1);
      expect(admin.events().some((m) => m.event === 'conversation.mentioned' && m.data.id === conv.id)).toBe(false);
      expect(contact.events().some((m) => m.event === 'first.reply.created' || m.event === 'conversation.mentioned')).toBe(false);
      expect(contact.events().some((m) => m.data?.private === true)).toBe(false);
    });

    it('when an agent is not a member of the inbox, then its conversations do not reach them, while administrators get everything', async () => {
      const hidden = await createApiInbox(call, acc, { name: 'Private' });
      const conv = await contactConversation(hidden);
      const incoming = await call('POST', `${conv.pub}/${conv.id}/messages`, { body: { content: 'only for admins' } });
      await admin.waitFor((m) => m.event === 'message.created' && m.data.id === incoming.body.id);
      // Everything the agent gets comes in stream order; a later event in its own inbox shows the hidden one was skipped.
      const visible = await contactConversation();
      await agent.waitFor((m) => m.event === 'conversation.created' && m.data.id === visible.id);
      expect(agent.events().some((m) => m.data?.inbox_id === hidden.id || m.data?.conversation?.inbox_id === hidden.id)).toBe(false);
      // Contact events go to every user of the account.
      await agent.waitFor((m) => m.event === 'contact.created' && m.data.id === conv.contactId);
    });
  });
});

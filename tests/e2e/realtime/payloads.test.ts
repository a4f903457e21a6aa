import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client } from '../../support/http';
import { createApiInbox, type ApiInbox } from '../../support/contacts';
import { publicContact, publicConversationsPath } from '../../support/conversations';
import { consumerPool, pubsubTokenOf, watch, type Watched } from '../../support/cable';

/**
 * Issue 14, payload gaps against Chatwoot's push data, with the real `@rails/actioncable` client
 * through the gateway: the unread count, the last message after an edit, `account.cache_invalidated`,
 * team mentions and contact inbox source ids.
 */
describe('/cable payloads as Chatwoot sends them', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let inbox: ApiInbox;
  let admin: Watched;
  let agent: Watched;
  const consumers = consumerPool(() => stack.gatewayUrl);
  const A = () => `/api/v1/accounts/${acc.accountId}`;

  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    inbox = await createApiInbox(call, acc);
    expect((await call('POST', `${A()}/inbox_members`, { token: acc.admin.token, body: { inbox_id: inbox.id, user_ids: [acc.agent.userId] } })).status).toBe(200);
    admin = watch(consumers.open(), { pubsub_token: await pubsubTokenOf(call, acc.admin.token), account_id: acc.accountId, user_id: acc.admin.userId });
    agent = watch(consumers.open(), { pubsub_token: await pubsubTokenOf(call, acc.agent.token), account_id: acc.accountId, user_id: acc.agent.userId });
    await Promise.all([admin.waitForState('confirmed'), agent.waitForState('confirmed')]);
  });
  afterAll(async () => {
    consumers.disconnectAll();
    await stack?.stop();
  });

  async function contactConversation(): Promise<{ contactId: number; pubsub: string; id: number; pub: string; sourceId: string }> {
    const contact = (await publicContact(call, inbox)) as { id: number; source_id: string; pubsub_token: string };
    const pub = publicConversationsPath(inbox, contact.source_id);
    const opened = await call('POST', pub, { body: {} });
    expect(opened.status).toBe(200);
    return { contactId: contact.id, pubsub: contact.pubsub_token, id: opened.body.id, pub, sourceId: contact.source_id };
  }

  it('when the contact writes and an agent reads the conversation, then unread_count counts the incoming messages after agent_last_seen_at, as the conversation API does', async () => {
    const conv = await contactConversation();
    const incoming = async (content: string) => {
      const res = await call('POST', `${conv.pub}/${conv.id}/messages`, { body: { content } });
      expect(res.status).toBe(200);
      return (await agent.waitFor((m) => m.event === 'message.created' && m.data.id === res.body.id, content)).data;
    };
    expect((await incoming('one')).conversation).toMatchObject({ unread_count: 1 });
    expect((await incoming('two')).conversation).toMatchObject({ unread_count: 2 });
    expect((await call('POST', `${A()}/conversations/${conv.id}/update_last_seen`, { token: acc.agent.token })).status).toBe(200);
    expect((await incoming('three')).conversation).toMatchObject({ unread_count: 1 });
    // The conversation's push data carries it too, with agent_last_seen_at, and matches the API's count.
    expect((await call('POST', `${A()}/conversations/${conv.id}/toggle_priority`, { token: acc.agent.token, body: { priority: 'high' } })).status).toBe(200);
    const updated = await agent.waitFor((m) => m.event === 'conversation.updated' && m.data.id === conv.id && m.data.priority === 'high', 'conversation.updated');
    const shown = await call('GET', `${A()}/conversations/${conv.id}`, { token: acc.agent.token });
    expect(updated.data).toMatchObject({ unread_count: 1, agent_last_seen_at: shown.body.agent_last_seen_at, messages: [expect.objectContaining({ content: 'three' })] });
    expect(updated.data.agent_last_seen_at).toBeGreaterThan(0);
    expect(shown.body.unread_count).toBe(1);
  });

  it('when the last message is edited, then later conversation events show the edited message, never the version before', async () => {
    const conv = await contactConversation();
    const reply = await call('POST', `${A()}/conversations/${conv.id}/messages`, { token: acc.agent.token, body: { content: 'Ths is a typo' } });
    expect(reply.status).toBe(200);
    for (const content of ['This is a typo', 'This is fixed']) {
      expect((await call('PATCH', `${A()}/conversations/${conv.id}/messages/${reply.body.id}`, { token: acc.agent.token, body: { content } })).status).toBe(200);
    }
    const edited = await agent.waitFor((m) => m.event === 'message.updated' && m.data.id === reply.body.id && m.data.content === 'This is fixed', 'the second edit');
    expect(edited.data).toMatchObject({ updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), previous_changes: { content: ['This is a typo', 'This is fixed'] } });
    expect((await call('POST', `${A()}/conversations/${conv.id}/toggle_status`, { token: acc.agent.token, body: { status: 'resolved' } })).status).toBe(200);
    const resolved = await agent.waitFor((m) => m.event === 'conversation.status_changed' && m.data.id === conv.id, 'the status change');
    expect(resolved.data.messages).toEqual([expect.objectContaining({ id: reply.body.id, content: 'This is fixed' })]);
  });

  it('when labels, teams and inboxes change, then every user of the account gets account.cache_invalidated with the new cache keys, and another account nothing', async () => {
    const other = await seedAccount(stack);
    const stranger = watch(consumers.open(), { pubsub_token: await pubsubTokenOf(call, other.admin.token), account_id: other.accountId, user_id: other.admin.userId });
    await stranger.waitForState('confirmed');
    const keysAfter = async (w: Watched, seen: number) => {
      await w.waitFor(() => w.events().filter((m) => m.event === 'account.cache_invalidated').length > seen, 'account.cache_invalidated');
      return w.events().filter((m) => m.event === 'account.cache_invalidated')[seen]!.data;
    };
    const seen = agent.events().filter((m) => m.event === 'account.cache_invalidated').length;
    const adminSeen = admin.events().filter((m) => m.event === 'account.cache_invalidated').length;
    expect((await call('POST', `${A()}/labels`, { token: acc.admin.token, body: { title: 'vip-customers' } })).status).toBe(200);
    const first = await keysAfter(agent, seen);
    expect(first).toEqual({ account_id: acc.accountId, cache_keys: { label: expect.stringMatching(/^\d{10}$/), inbox: expect.stringMatching(/^\d{10}$/), team: expect.stringMatching(/^\d{10}$/) } });
    expect(Number(first.cache_keys.label)).toBeGreaterThan(Date.now() / 1000 - 600);
    expect(await keysAfter(admin, adminSeen)).toEqual(first);

    expect((await call('POST', `${A()}/teams`, { token: acc.admin.token, body: { name: 'Billing' } })).status).toBe(200);
    const second = await keysAfter(agent, seen + 1);
    expect(second.cache_keys.label).toBe(first.cache_keys.label);
    expect(Number(second.cache_keys.team)).toBeGreaterThan(Number(first.cache_keys.team));
    // A second label change in the same second still gives a new key.
    expect((await call('POST', `${A()}/labels`, { token: acc.admin.token, body: { title: 'churn-risk' } })).status).toBe(200);
    const third = await keysAfter(agent, seen + 2);
    expect(Number(third.cache_keys.label)).toBeGreaterThan(Number(first.cache_keys.label));

    await createApiInbox(call, acc, { name: 'Another inbox' });
    const fourth = await keysAfter(agent, seen + 3);
    expect(Number(fourth.cache_keys.inbox)).toBeGreaterThan(Number(third.cache_keys.inbox));
    // The other account heard nothing of it (its own change arrives, so the stream was read).
    expect((await call('POST', `/api/v1/accounts/${other.accountId}/labels`, { token: other.admin.token, body: { title: 'theirs' } })).status).toBe(200);
    const theirs = await keysAfter(stranger, 0);
    expect(theirs.account_id).toBe(other.accountId);
    expect(stranger.events().filter((m) => m.event === 'account.cache_invalidated')).toHaveLength(1);
  });

  it('when a private note mentions a team, then each member of the team who may see the inbox gets conversation.mentioned, and nobody else', async () => {
    const conv = await contactConversation();
    const team = await call('POST', `${A()}/teams`, { token: acc.admin.token, body: { name: 'Escalations' } });
    expect(team.status).toBe(200);
    expect((await call('POST', `${A()}/teams/${team.body.id}/team_members`, { token: acc.admin.token, body: { user_ids: [acc.agent.userId] } })).status).toBe(200);
    const note = await call('POST', `${A()}/conversations/${conv.id}/messages`, {
      token: acc.admin.token, body: { content: `Please take a look (mention://team/${team.body.id}/Escalations)`, private: true },
    });
    expect(note.status).toBe(200);
    const mention = await agent.waitFor((m) => m.event === 'conversation.mentioned' && m.data.id === conv.id, 'conversation.mentioned');
    expect(mention.data).toMatchObject({ id: conv.id, account_id: acc.accountId, performer: { id: acc.admin.userId, type: 'user' } });
    // The admin (not a member) saw the note itself, and after it no mention.
    await admin.waitFor((m) => m.event === 'message.created' && m.data.id === note.body.id);
    const later = await call('POST', `${A()}/conversations/${conv.id}/messages`, { token: acc.admin.token, body: { content: 'a later note', private: true } });
    await admin.waitFor((m) => m.event === 'message.created' && m.data.id === later.body.id);
    await agent.waitFor((m) => m.event === 'message.created' && m.data.id === later.body.id);
    expect(admin.events().some((m) => m.event === 'conversation.mentioned' && m.data.id === conv.id)).toBe(false);
    expect(agent.events().filter((m) => m.event === 'conversation.mentioned' && m.data.id === conv.id)).toHaveLength(1);
  });

  it('when a contact inbox is older than the channel (no contact_inbox.created reached it), then its source_id is asked of the contacts service and shown', async () => {
    const conv = await contactConversation();
    // What a pair made before the realtime service first ran looks like: the channel never heard of
    // it (its contact_inbox.created is handled first, then forgotten).
    const pool = stack.services['realtime']!.deps.pool;
    for (let i = 0; (await pool.query('SELECT 1 FROM contact_inbox_sources WHERE source_id = $1', [conv.sourceId])).rowCount === 0; i++) {
      if (i > 300) throw new Error('contact_inbox.created never reached the channel');
      await new Promise((r) => setTimeout(r, 50));
    }
    await pool.query('DELETE FROM contact_inbox_sources');
    const reply = await call('POST', `${A()}/conversations/${conv.id}/messages`, { token: acc.agent.token, body: { content: 'Still there?' } });
    expect(reply.status).toBe(200);
    const got = await agent.waitFor((m) => m.event === 'message.created' && m.data.id === reply.body.id, 'the reply');
    expect(got.data.conversation.contact_inbox).toEqual({ source_id: conv.sourceId });
    const { rows } = await pool.query('SELECT source_id FROM contact_inbox_sources');
    expect(rows).toEqual([{ source_id: conv.sourceId }]);
  });
});

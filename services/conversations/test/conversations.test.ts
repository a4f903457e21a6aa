import { malformedEnvelope, waitFor } from '@parley/testkit';
import { agentData, envelope } from './bus';
import { addMember, createConversation, createInbox, expectError } from './fixtures';
import { startHarness, type Harness, type TestAccount } from './harness';

describe('conversations (service level)', () => {
  let h: Harness;
  let acc: TestAccount;
  let inbox: any;
  const base = () => `/api/v1/accounts/${acc.accountId}`;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.stop());
  beforeEach(async () => {
    acc = await h.account();
    inbox = await createInbox(h, acc);
  });

  describe('create (SPEC op 4)', () => {
    it('when a conversation is created with contact_id and inbox_id, then it gets the next display id, the contact as sender and conversation.created', async () => {
      const contact = h.stub.addContact(acc.accountId, { name: 'Jane Roe', email: 'jane@example.com' });
      const res = await h.call('POST', `${base()}/conversations`, {
        as: acc.admin,
        body: { inbox_id: inbox.id, contact_id: contact.id, additional_attributes: { browser_language: 'fr' }, custom_attributes: { plan: 'pro' } },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: 1, account_id: acc.accountId, inbox_id: inbox.id, status: 'open', priority: null, labels: [], messages: [], muted: false,
        additional_attributes: { browser_language: 'fr' }, custom_attributes: { plan: 'pro' }, snoozed_until: null, unread_count: 0,
        meta: { sender: { id: contact.id, name: 'Jane Roe', email: 'jane@example.com' }, channel: 'Channel::Api', assignee: null, hmac_verified: false },
      });
      expect(res.body.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.waiting_since).toBe(res.body.created_at);
      const second = await createConversation(h, acc, inbox.id);
      expect(second.id).toBe(2);
      const other = await h.account();
      const otherInbox = await createInbox(h, other);
      expect((await createConversation(h, other, otherInbox.id)).id).toBe(1);

      const [created] = await h.events(acc.accountId, 'conversation.created');
      expect(created.data).toMatchObject({ id: 1, display_id: 1, inbox_id: inbox.id, contact_id: contact.id, status: 'open', labels: [], additional_attributes: { browser_language: 'fr' } });
      expect(created.actor).toMatchObject({ type: 'user', id: acc.adminId });
      expect(h.stub.contactInboxes.some((ci) => ci.contact_id === contact.id && ci.inbox_id === inbox.id)).toBe(true);
    });

    it('when an initial message, an assignee and a status are given, then they are stored and announced in order', async () => {
      const contact = h.stub.addContact(acc.accountId);
      const res = await h.call('POST', `${base()}/conversations`, {
        as: acc.admin,
        body: { inbox_id: inbox.id, contact_id: contact.id, status: 'pending', assignee_id: acc.agentId, message: { content: 'Hello from support' } },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'pending', meta: { assignee: { id: acc.agentId, name: `Agent ${acc.agentId}` }, assignee_type: 'User' } });
      expect(res.body.messages).toHaveLength(1);
      expect(res.body.messages[0]).toMatchObject({ content: 'Hello from support', message_type: 1, sender_type: 'User', sender_id: acc.adminId, conversation_id: res.body.id });
      // The first human reply ends the wait and is the first reply.
      expect(res.body.waiting_since).toBe(0);
      expect(res.body.first_reply_created_at).toBeGreaterThan(0);
      const types = (await h.events(acc.accountId)).map((e) => e.type).filter((t) => t !== 'inbox.created');
      expect(types.slice(0, 2)).toEqual(['conversation.created', 'assignee.changed']);
      expect(types).toContain('message.created');
    });

    it('when source_id names an existing contact inbox, then the conversation belongs to its contact', async () => {
      const { contact, contactInbox } = h.stub.addContactInInbox(acc.accountId, inbox.id, { hmac_verified: true });
      const res = await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, source_id: contactInbox.source_id } });
      expect(res.status).toBe(200);
      expect(res.body.meta).toMatchObject({ sender: { id: contact.id }, hmac_verified: true });
      expectError(await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, source_id: 'nobody-here' } }), 404, 'not_found', 'source_id');
    });

    it('when the body is incomplete or wrong, then 4xx with the Error body and nothing is created', async () => {
      const contact = h.stub.addContact(acc.accountId);
      expectError(await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { contact_id: contact.id } }), 422, 'required', 'inbox_id');
      expectError(await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id } }), 422, 'required', 'contact_id');
      expectError(await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, contact_id: contact.id, status: 'closed' } }), 422, undefined, 'status');
      expectError(await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: 'abc', contact_id: contact.id } }), 422, undefined, 'inbox_id');
      expectError(
        await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, contact_id: contact.id, status: 'snoozed', snoozed_until: '2001-01-01T00:00:00Z' } }),
        422, 'invalid', 'snoozed_until',
      );
      expectError(await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: 2_000_000_000, contact_id: contact.id } }), 404, 'not_found', 'inbox_id');
      expectError(await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, contact_id: 2_000_000_000 } }), 404, 'not_found', 'contact_id');
      expectError(await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, contact_id: contact.id, message: { content: '' } } }), 422, 'blank');
      expectError(await h.call('POST', `${base()}/conversations`, { as: acc.admin, raw: '{"inbox_id": 1,' }), 400, 'malformed_json');
      expectError(await h.call('POST', `${base()}/conversations`, { as: acc.agent, body: { inbox_id: inbox.id, contact_id: contact.id } }), 403, 'not_inbox_member');
      const other = await h.account();
      const foreign = h.stub.addContact(other.accountId);
      expectError(await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, contact_id: foreign.id } }), 404, 'not_found');
      expect(await h.events(acc.accountId, 'conversation.created')).toHaveLength(0);
    });

    it('when the source id belongs to another contact of the inbox, then 422 from the contacts service is passed on', async () => {
      const { contactInbox } = h.stub.addContactInInbox(acc.accountId, inbox.id);
      const contact = h.stub.addContact(acc.accountId);
      expectError(await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, contact_id: contact.id, source_id: contactInbox.source_id } }), 422, undefined, 'source_id');
    });

    it('when the inbox locks contacts to a single conversation, then the existing one is answered', async () => {
      await h.call('PATCH', `${base()}/inboxes/${inbox.id}`, { as: acc.admin, body: { lock_to_single_conversation: true } });
      const contact = h.stub.addContact(acc.accountId);
      const first = await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, contact_id: contact.id } });
      const again = await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, contact_id: contact.id } });
      expect(again.body.id).toBe(first.body.id);
      expect(await h.events(acc.accountId, 'conversation.created')).toHaveLength(1);
    });

    it('when several requests open the single conversation of a locked inbox at once, then one is created and all answer it', async () => {
      await h.call('PATCH', `${base()}/inboxes/${inbox.id}`, { as: acc.admin, body: { lock_to_single_conversation: true } });
      const contact = h.stub.addContact(acc.accountId);
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, contact_id: contact.id } })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
      expect(new Set(answers.map((r) => r.body.id)).size).toBe(1);
      expect(await h.events(acc.accountId, 'conversation.created')).toHaveLength(1);
    });

    it('when the contact is blocked, then the new conversation starts resolved and muted', async () => {
      const contact = h.stub.addContact(acc.accountId, { blocked: true });
      const res = await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, contact_id: contact.id } });
      expect(res.body).toMatchObject({ status: 'resolved', muted: true });
    });
  });

  describe('show and access', () => {
    it('when an agent outside the inbox opens a conversation, then 403; a member or a team member sees it; another account 404', async () => {
      const conv = await createConversation(h, acc, inbox.id, { team_id: undefined });
      expectError(await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.agent }), 403, 'forbidden');
      await addMember(h, acc, inbox.id, acc.agentId);
      expect((await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.agent })).status).toBe(200);

      const teamMate = await h.addAgent(acc.accountId);
      const mate = { accountId: acc.accountId, role: 'agent' as const, actor: { type: 'user' as const, id: teamMate, name: 'Mate' } };
      const teamId = 7_000 + Math.floor(Math.random() * 1000);
      await h.bus.publish(
        envelope('team.created', acc.accountId, { id: teamId, name: 'Billing', description: null, allow_auto_assign: false, account_id: acc.accountId }),
        envelope('team_member.added', acc.accountId, { id: 1, team_id: teamId, user_id: teamMate }),
      );
      await waitFor(async () => (await h.svc.deps.pool.query('SELECT 1 FROM team_member_projections WHERE user_id = $1', [teamMate])).rowCount, { what: 'team member' });
      expectError(await h.call('GET', `${base()}/conversations/${conv.id}`, { as: mate }), 403);
      const assigned = await h.call('POST', `${base()}/conversations/${conv.id}/assignments`, { as: acc.admin, body: { team_id: teamId } });
      expect(assigned.body).toEqual({ id: teamId, name: 'Billing', description: null, allow_auto_assign: false, account_id: acc.accountId });
      const seen = await h.call('GET', `${base()}/conversations/${conv.id}`, { as: mate });
      expect(seen.status).toBe(200);
      expect(seen.body.meta.team).toEqual({ id: teamId, name: 'Billing', description: null, allow_auto_assign: false, account_id: acc.accountId, is_member: true });

      const other = await h.account();
      expectError(await h.call('GET', `/api/v1/accounts/${other.accountId}/conversations/${conv.id}`, { as: other.admin }), 404, 'not_found');
      expectError(await h.call('GET', `${base()}/conversations/99999`, { as: acc.admin }), 404, 'not_found');
      expectError(await h.call('GET', `${base()}/conversations/0x1`, { as: acc.admin }), 404);
    });

    it('when an agent deletes a conversation, then 403; an administrator deletes it with conversation.deleted', async () => {
      const conv = await createConversation(h, acc, inbox.id);
      await addMember(h, acc, inbox.id, acc.agentId);
      expectError(await h.call('DELETE', `${base()}/conversations/${conv.id}`, { as: acc.agent }), 403);
      expect((await h.call('DELETE', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body).toEqual({});
      expectError(await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin }), 404);
      expect((await h.events(acc.accountId, 'conversation.deleted'))[0].data.id).toBe(conv.id);
    });
  });

  describe('status, priority, assignment, labels, attributes, mute', () => {
    it('when toggle_status is called without a status, then open and resolved alternate with status events and activity messages', async () => {
      const conv = await createConversation(h, acc, inbox.id);
      const resolved = await h.call('POST', `${base()}/conversations/${conv.id}/toggle_status`, { as: acc.admin, body: {} });
      expect(resolved.body).toEqual({ meta: {}, payload: { success: true, conversation_id: conv.id, current_status: 'resolved', snoozed_until: null } });
      const types = (await h.events(acc.accountId)).map((e) => e.type);
      expect(types).toEqual(expect.arrayContaining(['conversation.status_changed', 'conversation.resolved', 'conversation.updated']));
      const updated = (await h.events(acc.accountId, 'conversation.updated')).at(-1);
      expect(updated.changes.status).toEqual(['open', 'resolved']);
      expect(updated.data.status).toBe('resolved');
      expect(updated.data.waiting_since).toBeNull();
      const reopened = await h.call('POST', `${base()}/conversations/${conv.id}/toggle_status`, { as: acc.admin });
      expect(reopened.body.payload.current_status).toBe('open');
      expect((await h.events(acc.accountId, 'conversation.opened'))).toHaveLength(1);
      const msgs = await h.call('GET', `${base()}/conversations/${conv.id}/messages`, { as: acc.admin });
      expect(msgs.body.payload.filter((m: any) => m.message_type === 2).map((m: any) => m.content)).toEqual([
        `Conversation was marked resolved by Agent ${acc.adminId}`,
        `Conversation was reopened by Agent ${acc.adminId}`,
      ]);
    });

    it('when a conversation is snoozed until a unix time, then it says so and the worker reopens it when the time comes', async () => {
      const conv = await createConversation(h, acc, inbox.id);
      // Far enough ahead that the toggle and the read below both answer before the worker reopens it,
      // on a slow machine too (+2 left as little as one second: the current second is floored away).
      const until = Math.floor(Date.now() / 1000) + 5;
      const res = await h.call('POST', `${base()}/conversations/${conv.id}/toggle_status`, { as: acc.admin, body: { status: 'snoozed', snoozed_until: until } });
      expect(res.body.payload).toEqual({ success: true, conversation_id: conv.id, current_status: 'snoozed', snoozed_until: until });
      expect((await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body).toMatchObject({ status: 'snoozed', snoozed_until: until });
      const back = await waitFor(async () => {
        const c = (await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body;
        return c.status === 'open' ? c : null;
      }, { what: 'snooze to end', timeoutMs: 20_000 });
      expect(back.snoozed_until).toBeNull();
      const opened = (await h.events(acc.accountId, 'conversation.opened')).at(-1);
      expect(opened.actor).toMatchObject({ type: 'system' });
    });

    it('when an agent reopens an unassigned conversation, then it is assigned to them', async () => {
      const conv = await createConversation(h, acc, inbox.id, { status: 'resolved' });
      await addMember(h, acc, inbox.id, acc.agentId);
      await h.call('POST', `${base()}/conversations/${conv.id}/toggle_status`, { as: acc.agent, body: { status: 'open' } });
      expect((await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body.meta.assignee.id).toBe(acc.agentId);
    });

    it('when toggle_status gets a bad status or snooze time, then 422', async () => {
      const conv = await createConversation(h, acc, inbox.id);
      expectError(await h.call('POST', `${base()}/conversations/${conv.id}/toggle_status`, { as: acc.admin, body: { status: 'closed' } }), 422, undefined, 'status');
      expectError(await h.call('POST', `${base()}/conversations/${conv.id}/toggle_status`, { as: acc.admin, body: { status: 'snoozed', snoozed_until: 'tomorrow' } }), 422, undefined, 'snoozed_until');
    });

    it('when toggle_priority is called by a user or a bot, then the priority follows, none clears it, and bad values are 422', async () => {
      const conv = await createConversation(h, acc, inbox.id);
      const res = await h.call('POST', `${base()}/conversations/${conv.id}/toggle_priority`, { as: acc.admin, body: { priority: 'high' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect((await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body.priority).toBe('high');
      const ev = (await h.events(acc.accountId, 'conversation.priority_changed'))[0];
      expect(ev.changes).toEqual({ priority: [null, 'high'] });
      const bot = { accountId: acc.accountId, role: null, actor: { type: 'agent_bot' as const, id: 77, name: 'Triage bot' } };
      expect((await h.call('POST', `${base()}/conversations/${conv.id}/toggle_priority`, { as: bot, body: { priority: 'urgent' } })).status).toBe(200);
      expect((await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body.priority).toBe('urgent');
      await h.call('POST', `${base()}/conversations/${conv.id}/toggle_priority`, { as: acc.admin, body: { priority: 'none' } });
      expect((await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body.priority).toBeNull();
      expectError(await h.call('POST', `${base()}/conversations/${conv.id}/toggle_priority`, { as: acc.admin, body: { priority: 'asap' } }), 422, undefined, 'priority');
      const activity = (await h.call('GET', `${base()}/conversations/${conv.id}/messages`, { as: acc.admin })).body.payload.filter((m: any) => m.message_type === 2);
      expect(activity.map((m: any) => m.content)).toEqual([
        `Agent ${acc.adminId} set the priority to high`,
        'Triage bot changed the priority from high to urgent',
        `Agent ${acc.adminId} removed the priority`,
      ]);
    });

    it('when an agent is assigned and unassigned, then the answer is the agent (or null) and assignee.changed is written', async () => {
      const conv = await createConversation(h, acc, inbox.id);
      const res = await h.call('POST', `${base()}/conversations/${conv.id}/assignments`, { as: acc.admin, body: { assignee_id: acc.agentId } });
      expect(res.body).toMatchObject({ id: acc.agentId, name: `Agent ${acc.agentId}`, role: 'agent', account_id: acc.accountId });
      expect((await h.events(acc.accountId, 'assignee.changed'))[0].changes).toEqual({ assignee_id: [null, acc.agentId] });
      const un = await h.call('POST', `${base()}/conversations/${conv.id}/assignments`, { as: acc.admin, body: { assignee_id: null } });
      expect(un.status).toBe(200);
      expect(un.body).toBeNull();
      expect((await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body.meta.assignee).toBeNull();
      expectError(await h.call('POST', `${base()}/conversations/${conv.id}/assignments`, { as: acc.admin, body: {} }), 422, 'required');
    });

    it('when labels are posted, then they replace the list, are read back, and labels_changed is written', async () => {
      const conv = await createConversation(h, acc, inbox.id);
      const first = await h.call('POST', `${base()}/conversations/${conv.id}/labels`, { as: acc.admin, body: { labels: ['billing', 'vip', 'billing'] } });
      expect(first.body).toEqual({ payload: ['billing', 'vip'] });
      const second = await h.call('POST', `${base()}/conversations/${conv.id}/labels`, { as: acc.admin, body: { labels: ['support'] } });
      expect(second.body).toEqual({ payload: ['support'] });
      expect((await h.call('GET', `${base()}/conversations/${conv.id}/labels`, { as: acc.admin })).body).toEqual({ payload: ['support'] });
      const evs = await h.events(acc.accountId, 'conversation.labels_changed');
      expect(evs.map((e) => e.changes.labels)).toEqual([[[], ['billing', 'vip']], [['billing', 'vip'], ['support']]]);
      expect((await h.call('POST', `${base()}/conversations/${conv.id}/labels`, { as: acc.admin, body: {} })).body).toEqual({ payload: [] });
      expectError(await h.call('POST', `${base()}/conversations/${conv.id}/labels`, { as: acc.admin, body: { labels: 'billing' } }), 422, undefined, 'labels');
      expectError(await h.call('POST', `${base()}/conversations/${conv.id}/labels`, { as: acc.admin, body: { labels: [42] } }), 422, undefined, 'labels.0');
    });

    it('when one change writes two activity messages, then they follow the change in order, at its time, each with its message.created after the events of the change', async () => {
      // The update and the activity messages are one statement (updateConversationWithActivities).
      const conv = await createConversation(h, acc, inbox.id);
      await h.call('POST', `${base()}/conversations/${conv.id}/labels`, { as: acc.admin, body: { labels: ['billing', 'vip'] } });
      const res = await h.call('POST', `${base()}/conversations/${conv.id}/labels`, { as: acc.admin, body: { labels: ['vip', 'support'] } });
      expect(res.body).toEqual({ payload: ['vip', 'support'] });
      const { rows } = await h.svc.deps.pool.query(
        `SELECT m.id, m.content, m.created_at, c.last_activity_at FROM messages m JOIN conversations c ON c.id = m.conversation_id
          WHERE m.account_id = $1 AND c.display_id = $2 AND m.message_type = 2 ORDER BY m.id`,
        [acc.accountId, conv.id],
      );
      expect(rows.map((r) => r.content)).toEqual([`Agent ${acc.adminId} added billing, vip`, `Agent ${acc.adminId} added support`, `Agent ${acc.adminId} removed billing`]);
      const [, added, removed] = rows;
      expect(added.created_at.getTime()).toBe(removed.created_at.getTime());
      expect(removed.last_activity_at.getTime()).toBe(removed.created_at.getTime());
      const change = (await h.events(acc.accountId, 'conversation.labels_changed')).at(-1);
      const ofRequest = (await h.events(acc.accountId)).filter((e) => e.request_id === change.request_id);
      expect(ofRequest.map((e) => e.type)).toEqual(['conversation.labels_changed', 'conversation.updated', 'message.created', 'message.created']);
      expect(ofRequest.slice(2).map((e) => [e.data.id, e.data.content])).toEqual([added, removed].map((r) => [Number(r.id), r.content]));
      expect(ofRequest[2].data.conversation).toEqual(ofRequest[1].data);
      expect(ofRequest[1].data.last_activity_at).toBe(Math.floor(removed.created_at.getTime() / 1000));
    });

    it('when labels, the assignee or the team change, or a conversation is made assigned, then each of their events and activity messages has a conversation.updated (or .created) of the same snapshot beside it', async () => {
      // Consumers rely on it: the reports queue binds only conversation.created and .updated for snapshots.
      const teamId = 8_000 + Math.floor(Math.random() * 1000);
      await h.bus.publish(envelope('team.created', acc.accountId, { id: teamId, name: 'Sales', description: null, allow_auto_assign: false, account_id: acc.accountId }));
      await waitFor(async () => (await h.call('POST', `${base()}/conversations/${(await createConversation(h, acc, inbox.id)).id}/assignments`, { as: acc.admin, body: { team_id: teamId } })).status === 200, { what: 'the team known' });
      const made = await createConversation(h, acc, inbox.id, { assignee_id: acc.agentId, team_id: teamId });
      const conv = await createConversation(h, acc, inbox.id);
      for (const body of [{ assignee_id: acc.agentId }, { team_id: teamId }, { assignee_id: null }]) {
        expect((await h.call('POST', `${base()}/conversations/${conv.id}/assignments`, { as: acc.admin, body })).status).toBe(200);
      }
      expect((await h.call('POST', `${base()}/conversations/${conv.id}/labels`, { as: acc.admin, body: { labels: ['billing'] } })).status).toBe(200);
      const all = await h.events(acc.accountId);
      const special = all.filter((e) => ['conversation.labels_changed', 'assignee.changed', 'team.changed'].includes(e.type));
      expect(special.filter((e) => e.data.id === made.id).map((e) => e.type).sort()).toEqual(['assignee.changed', 'team.changed']);
      expect(special.filter((e) => e.data.id === conv.id).map((e) => e.type)).toEqual(['assignee.changed', 'team.changed', 'assignee.changed', 'conversation.labels_changed']);
      for (const e of special) {
        const beside = all.filter((u) => ['conversation.updated', 'conversation.created'].includes(u.type) && u.request_id === e.request_id && u.data.id === e.data.id);
        expect(beside).toHaveLength(1);
        expect(beside[0].data).toEqual(e.data);
      }
      // So does each activity message ("Agent X added billing"): its conversation is a conversation.updated's snapshot.
      const activities = all.filter((m) => m.type === 'message.created' && m.data.message_type === 2);
      expect(activities.filter((m) => m.data.conversation.id === conv.id)).toHaveLength(4);
      for (const m of activities) {
        const beside = all.filter((u) => u.type === 'conversation.updated' && u.request_id === m.request_id && u.data.id === m.data.conversation.id);
        expect(beside.map((u) => u.data)).toEqual([m.data.conversation]);
      }
    });

    it('when custom attributes are posted, then they replace the old ones', async () => {
      const conv = await createConversation(h, acc, inbox.id, { custom_attributes: { a: 1 } });
      const res = await h.call('POST', `${base()}/conversations/${conv.id}/custom_attributes`, { as: acc.admin, body: { custom_attributes: { b: 'two' } } });
      expect(res.body).toEqual({ custom_attributes: { b: 'two' } });
      expect((await h.events(acc.accountId, 'conversation.updated')).at(-1).changes.custom_attributes).toEqual([{ a: 1 }, { b: 'two' }]);
      expectError(await h.call('POST', `${base()}/conversations/${conv.id}/custom_attributes`, { as: acc.admin, body: { custom_attributes: [1] } }), 422, undefined, 'custom_attributes');
    });

    it('when a conversation is muted, then it is resolved and muted; unmute lifts only the mute', async () => {
      const conv = await createConversation(h, acc, inbox.id);
      expect((await h.call('POST', `${base()}/conversations/${conv.id}/mute`, { as: acc.admin })).body).toEqual({});
      expect((await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body).toMatchObject({ muted: true, status: 'resolved' });
      await h.call('POST', `${base()}/conversations/${conv.id}/unmute`, { as: acc.admin });
      expect((await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body).toMatchObject({ muted: false, status: 'resolved' });
    });

    it('when the assignee reads the conversation, then agent and assignee last-seen times are set; unread moves them back', async () => {
      const conv = await createConversation(h, acc, inbox.id, { assignee_id: acc.adminId });
      await h.call('POST', `${base()}/conversations/${conv.id}/messages`, { as: acc.admin, body: { content: 'from the customer', message_type: 'incoming' } });
      const seen = await h.call('POST', `${base()}/conversations/${conv.id}/update_last_seen`, { as: acc.admin });
      expect(seen.body.agent_last_seen_at).toBeGreaterThan(0);
      expect(seen.body.assignee_last_seen_at).toBe(seen.body.agent_last_seen_at);
      expect(seen.body.unread_count).toBe(0);
      const unread = await h.call('POST', `${base()}/conversations/${conv.id}/unread`, { as: acc.admin });
      expect(unread.body.unread_count).toBe(1);
    });

    it('when many incoming messages arrive, then the list and the conversation count at most 10 unread, and after the agent reads it only the incoming ones since', async () => {
      const conv = await createConversation(h, acc, inbox.id);
      const post = (content: string, message_type: string) => h.call('POST', `${base()}/conversations/${conv.id}/messages`, { as: acc.admin, body: { content, message_type } });
      for (let i = 0; i < 12; i++) await post(`customer ${i}`, 'incoming');
      const listed = async () => (await h.call('GET', `${base()}/conversations`, { as: acc.admin })).body.data.payload.find((c: { id: number }) => c.id === conv.id);
      const shown = async () => (await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body;
      expect((await listed()).unread_count).toBe(10);
      expect((await shown()).unread_count).toBe(10);
      await h.call('POST', `${base()}/conversations/${conv.id}/update_last_seen`, { as: acc.admin });
      await new Promise((r) => setTimeout(r, 5));
      await post('reply', 'outgoing');
      await post('customer again', 'incoming');
      await post('and again', 'incoming');
      expect((await listed()).unread_count).toBe(2);
      expect((await shown()).unread_count).toBe(2);
    });
  });

  describe('cascades', () => {
    it('when the contact is deleted, then its conversations go with conversation.deleted caused by that event', async () => {
      const contact = h.stub.addContact(acc.accountId);
      const a = await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, contact_id: contact.id } });
      const keep = await createConversation(h, acc, inbox.id);
      const ev = envelope('contact.deleted', acc.accountId, { ...contact });
      await h.bus.publish(ev);
      await waitFor(async () => (await h.call('GET', `${base()}/conversations/${a.body.id}`, { as: acc.admin })).status === 404, { what: 'conversation removed' });
      expect((await h.call('GET', `${base()}/conversations/${keep.id}`, { as: acc.admin })).status).toBe(200);
      const deleted = await h.events(acc.accountId, 'conversation.deleted');
      expect(deleted).toHaveLength(1);
      expect(deleted[0]).toMatchObject({ causation_id: ev.id, actor: { type: 'user', id: 1 }, data: { id: a.body.id } });
    });

    it('when an agent is removed from the account, then their conversations are unassigned', async () => {
      const conv = await createConversation(h, acc, inbox.id, { assignee_id: acc.agentId });
      const ev = envelope('agent.removed', acc.accountId, agentData(acc.accountId, acc.agentId));
      await h.bus.publish(ev);
      await waitFor(async () => (await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body.meta.assignee === null, { what: 'unassigned' });
      const changed = (await h.events(acc.accountId, 'assignee.changed')).at(-1);
      expect(changed).toMatchObject({ causation_id: ev.id, changes: { assignee_id: [acc.agentId, null] } });
      // Gone from the account: cannot be assigned again, but earlier messages keep their author.
      expectError(await h.call('POST', `${base()}/conversations/${conv.id}/assignments`, { as: acc.admin, body: { assignee_id: acc.agentId } }), 422, 'not_found', 'assignee_id');
    });

    it('when an agent who wrote messages is removed, then the messages still name them', async () => {
      const conv = await createConversation(h, acc, inbox.id);
      await addMember(h, acc, inbox.id, acc.agentId);
      await h.call('POST', `${base()}/conversations/${conv.id}/messages`, { as: acc.agent, body: { content: 'signed by me' } });
      await h.bus.publish(envelope('agent.removed', acc.accountId, agentData(acc.accountId, acc.agentId)));
      await waitFor(async () => (await h.svc.deps.pool.query(`SELECT 1 FROM projections WHERE kind = 'agent' AND id = $1 AND data->>'removed' = 'true'`, [acc.agentId])).rowCount, { what: 'agent marked removed' });
      const msgs = (await h.call('GET', `${base()}/conversations/${conv.id}/messages`, { as: acc.admin })).body.payload;
      expect(msgs.find((m: any) => m.content === 'signed by me').sender).toMatchObject({ id: acc.agentId, name: `Agent ${acc.agentId}` });
    });

    it('when the same event is delivered twice, then the cascade happens once', async () => {
      const conv = await createConversation(h, acc, inbox.id, { assignee_id: acc.agentId });
      const ev = envelope('agent.removed', acc.accountId, agentData(acc.accountId, acc.agentId));
      await h.bus.publish(ev, ev);
      await waitFor(async () => (await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body.meta.assignee === null, { what: 'unassigned' });
      await waitFor(async () => (await h.svc.deps.pool.query('SELECT 1 FROM processed_events WHERE event_id = $1', [ev.id])).rowCount, { what: 'processed' });
      expect((await h.events(acc.accountId, 'assignee.changed')).filter((e) => e.causation_id === ev.id)).toHaveLength(1);
    });

    it('when a contact is updated or blocked, then the conversations show the new sender and muted', async () => {
      const contact = h.stub.addContact(acc.accountId, { name: 'Old Name' });
      const conv = (await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: { inbox_id: inbox.id, contact_id: contact.id } })).body;
      expect(conv.meta.sender.name).toBe('Old Name');
      await h.bus.publish(envelope('contact.updated', acc.accountId, { ...contact, name: 'New Name', blocked: true }));
      const seen = await waitFor(async () => {
        const c = (await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body;
        return c.meta.sender.name === 'New Name' ? c : null;
      }, { what: 'contact projection updated' });
      expect(seen.muted).toBe(true);
      expect(seen.meta.sender.blocked).toBe(true);
    });

    it('when a team is deleted, then its conversations lose the team', async () => {
      const teamId = 8_000 + Math.floor(Math.random() * 1000);
      const team = { id: teamId, name: 'Night shift', description: null, allow_auto_assign: false, account_id: acc.accountId };
      await h.bus.publish(envelope('team.created', acc.accountId, team));
      await waitFor(async () => (await h.svc.deps.pool.query(`SELECT 1 FROM projections WHERE kind = 'team' AND id = $1`, [teamId])).rowCount, { what: 'team projected' });
      const conv = await createConversation(h, acc, inbox.id, { team_id: teamId });
      expect(conv.meta.team).toMatchObject({ id: teamId, name: 'Night shift' });
      await h.bus.publish(envelope('team.deleted', acc.accountId, team));
      await waitFor(async () => (await h.call('GET', `${base()}/conversations/${conv.id}`, { as: acc.admin })).body.meta.team === undefined, { what: 'team cleared' });
      expect((await h.events(acc.accountId, 'team.changed')).at(-1).changes).toEqual({ team_id: [teamId, null] });
    });

    it('when a malformed identity event arrives, then it is dead-lettered', async () => {
      const ev = malformedEnvelope('agent.removed', acc.accountId, { id: 'not-a-number' });
      await h.bus.publish(ev);
      await waitFor(async () => (await h.bus.messageCount('conversations.projections.dead')) > 0, { what: 'dead letter' });
    });
  });
});

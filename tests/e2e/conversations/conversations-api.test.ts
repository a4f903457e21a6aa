import { waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { createApiInbox, sendForm, type ApiInbox } from '../../support/contacts';
import { conversationFor, publicContact } from '../../support/conversations';

/** Inboxes, conversations, messages, labels and canned responses through the gateway, with real identity and contacts. */
describe('conversations service through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let inbox: ApiInbox;
  const A = () => `/api/v1/accounts/${acc.accountId}`;
  const admin = () => ({ token: acc.admin.token });

  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
  });
  afterAll(() => stack?.stop());
  beforeEach(async () => {
    acc = await seedAccount(stack);
    inbox = await createApiInbox(call, acc);
  });

  describe('inboxes', () => {
    it('when an administrator manages inboxes and members, then agents see only theirs and never the HMAC token', async () => {
      expect(inbox.hmac_token).toEqual(expect.any(String));
      const updated = await call('PATCH', `${A()}/inboxes/${inbox.id}`, { ...admin(), body: { name: 'Web chat', channel: { webhook_url: 'https://example.com/hook' } } });
      expect(updated.body).toMatchObject({ name: 'Web chat', webhook_url: 'https://example.com/hook' });
      expect((await call('GET', `${A()}/inboxes`, { token: acc.agent.token })).body.payload).toEqual([]);
      const added = await call('POST', `${A()}/inbox_members`, { ...admin(), body: { inbox_id: inbox.id, user_ids: [acc.agent.userId] } });
      expect(added.body.payload).toEqual([expect.objectContaining({ id: acc.agent.userId, name: acc.agent.name, role: 'agent' })]);
      const seen = await call('GET', `${A()}/inboxes/${inbox.id}`, { token: acc.agent.token });
      expect(seen.status).toBe(200);
      expect(seen.body.hmac_token).toBeUndefined();
      const stranger = await call('POST', `${A()}/inbox_members`, { ...admin(), body: { inbox_id: inbox.id, user_ids: [987_654_321] } });
      expect(stranger.status).toBe(422);
      expectErrorBody(stranger.body, 'not_found');
      const denied = await call('POST', `${A()}/inboxes`, { token: acc.agent.token, body: { name: 'Mine' } });
      expect(denied.status).toBe(403);
      expectErrorBody(denied.body, 'forbidden');
      const malformed = await call('POST', `${A()}/inboxes`, { ...admin(), raw: '{"name":' });
      expect(malformed.status).toBe(400);
      expectErrorBody(malformed.body, 'malformed_json');
      expect((await call('DELETE', `${A()}/inboxes/${inbox.id}`, admin())).body).toEqual({});
      expect((await call('GET', `/public/api/v1/inboxes/${inbox.inbox_identifier}`)).status).toBe(404);
    });
  });

  describe('conversations', () => {
    it('when SPEC op 4 is called with contact_id and inbox_id, then the answer has id, account_id and inbox_id and the initial message', async () => {
      const contact = await publicContact(call, inbox, { name: 'Ana' });
      const res = await call('POST', `${A()}/conversations`, { ...admin(), body: { inbox_id: inbox.id, contact_id: contact.id, status: 'pending', message: { content: 'Welcome!' } } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: expect.any(Number), account_id: acc.accountId, inbox_id: inbox.id, status: 'pending', meta: { sender: { id: contact.id, name: 'Ana' } } });
      expect(res.body.messages[0]).toMatchObject({ content: 'Welcome!', message_type: 1, sender: { id: acc.admin.userId, type: 'user' } });
      const bySource = await call('POST', `${A()}/conversations`, { ...admin(), body: { inbox_id: inbox.id, source_id: contact.source_id } });
      expect(bySource.body.meta.sender.id).toBe(contact.id);
      for (const [body, status] of [
        [{ contact_id: contact.id }, 422],
        [{ inbox_id: inbox.id }, 422],
        [{ inbox_id: inbox.id, contact_id: 999_999_999 }, 404],
        [{ inbox_id: inbox.id, source_id: 'nobody' }, 404],
        [{ inbox_id: inbox.id, contact_id: contact.id, status: 'finished' }, 422],
        [{ inbox_id: inbox.id, contact_id: contact.id, assignee_id: 999_999_999 }, 422],
      ] as const) {
        const bad = await call('POST', `${A()}/conversations`, { ...admin(), body });
        expect(bad.status).toBe(status);
        expectErrorBody(bad.body);
      }
    });

    it('when an agent bot changes priority (SPEC 7) and replies, then both are accepted and the bot is the sender; bots cannot label', async () => {
      const conv = await conversationFor(call, acc, inbox);
      const bot = await acc.addBot();
      const prio = await call('POST', `${A()}/conversations/${conv.id}/toggle_priority`, { token: bot.token, body: { priority: 'medium' } });
      expect(prio.status).toBe(200);
      expect((await call('GET', `${A()}/conversations/${conv.id}`, admin())).body.priority).toBe('medium');
      const msg = await call('POST', `${A()}/conversations/${conv.id}/messages`, { token: bot.token, body: { content: 'I am a bot' } });
      expect(msg.body).toMatchObject({ sender_type: 'AgentBot', sender_id: bot.botId, sender: { id: bot.botId, type: 'agent_bot' } });
      expect(msg.body.sender.name).toMatch(/^Bot /);
      const none = await call('POST', `${A()}/conversations/${conv.id}/toggle_priority`, { token: bot.token, body: { priority: 'none' } });
      expect(none.status).toBe(200);
      expect((await call('GET', `${A()}/conversations/${conv.id}`, admin())).body.priority).toBeNull();
      const labels = await call('POST', `${A()}/conversations/${conv.id}/labels`, { token: bot.token, body: { labels: ['x'] } });
      expect(labels.status).toBe(403);
      expectErrorBody(labels.body, 'bot_forbidden');
      const bad = await call('POST', `${A()}/conversations/${conv.id}/toggle_priority`, { ...admin(), body: { priority: 'critical' } });
      expect(bad.status).toBe(422);
      expectErrorBody(bad.body);
    });

    it('when a conversation is assigned to a team, then a team member who is not in the inbox can open it', async () => {
      const conv = await conversationFor(call, acc, inbox);
      const team = await call('POST', `${A()}/teams`, { ...admin(), body: { name: 'Escalations' } });
      expect(team.status).toBe(200);
      await call('POST', `${A()}/teams/${team.body.id}/team_members`, { ...admin(), body: { user_ids: [acc.agent.userId] } });
      expect((await call('GET', `${A()}/conversations/${conv.id}`, { token: acc.agent.token })).status).toBe(403);
      const assigned = await call('POST', `${A()}/conversations/${conv.id}/assignments`, { ...admin(), body: { team_id: team.body.id } });
      expect(assigned.body).toMatchObject({ id: team.body.id, name: 'Escalations', account_id: acc.accountId });
      const seen = await waitFor(async () => {
        const r = await call('GET', `${A()}/conversations/${conv.id}`, { token: acc.agent.token });
        return r.status === 200 ? r : null;
      }, { what: 'team membership to reach the conversations service' });
      expect(seen.body.meta.team).toMatchObject({ id: team.body.id, name: 'Escalations', is_member: true });
    });

    it('when an agent is removed from the account (SPEC 12), then their conversations are unassigned', async () => {
      const conv = await conversationFor(call, acc, inbox, { assignee_id: acc.agent.userId });
      expect(conv.meta.assignee.id).toBe(acc.agent.userId);
      expect((await call('DELETE', `${A()}/agents/${acc.agent.userId}`, admin())).status).toBe(200);
      await waitFor(async () => (await call('GET', `${A()}/conversations/${conv.id}`, admin())).body.meta.assignee === null, { what: 'unassigned after agent removal' });
    });

    it('when a conversation is snoozed through the gateway, then the answer says until when', async () => {
      const conv = await conversationFor(call, acc, inbox);
      const until = Math.floor(Date.now() / 1000) + 3600;
      const res = await call('POST', `${A()}/conversations/${conv.id}/toggle_status`, { ...admin(), body: { status: 'snoozed', snoozed_until: until } });
      expect(res.body.payload).toEqual({ success: true, conversation_id: conv.id, current_status: 'snoozed', snoozed_until: until });
      expect((await call('GET', `${A()}/conversations?status=snoozed`, admin())).body.data.payload.map((c: any) => c.id)).toEqual([conv.id]);
    });
  });

  describe('messages', () => {
    it('when an agent sends a multipart message with a file, then it is stored as an attachment', async () => {
      const conv = await conversationFor(call, acc, inbox);
      const form = new FormData();
      form.append('content', 'Here is the invoice');
      form.append('attachments[]', new Blob([Buffer.from('%PDF-1.4')], { type: 'application/pdf' }), 'invoice.pdf');
      const res = await sendForm(stack.gatewayUrl, 'POST', `${A()}/conversations/${conv.id}/messages`, form, acc.admin.token);
      expect(res.status).toBe(200);
      expect(res.body.attachments).toEqual([expect.objectContaining({ file_type: 'file', extension: 'pdf', file_size: 8, fallback_title: 'invoice.pdf' })]);
      const file = await fetch(stack.gatewayUrl + res.body.attachments[0].data_url, { headers: { api_access_token: acc.admin.token } });
      expect(file.status).toBe(200);
      expect(await file.text()).toBe('%PDF-1.4');
    });

    it('when messages are listed, updated and deleted, then the thread follows', async () => {
      const conv = await conversationFor(call, acc, inbox);
      const m = (await call('POST', `${A()}/conversations/${conv.id}/messages`, { ...admin(), body: { content: 'Draft', private: true } })).body;
      expect(m.private).toBe(true);
      expect((await call('PATCH', `${A()}/conversations/${conv.id}/messages/${m.id}`, { ...admin(), body: { content: 'Final' } })).body.content).toBe('Final');
      expect((await call('DELETE', `${A()}/conversations/${conv.id}/messages/${m.id}`, admin())).body.content_attributes).toEqual({ deleted: true });
      const list = await call('GET', `${A()}/conversations/${conv.id}/messages`, admin());
      expect(list.body.payload.map((x: any) => x.content)).toEqual(['This message was deleted']);
      const bad = await call('GET', `${A()}/conversations/${conv.id}/messages?before=soon`, admin());
      expect(bad.status).toBe(400);
      expectErrorBody(bad.body);
    });
  });

  describe('labels and canned responses', () => {
    it('when an administrator manages labels, then agents read them but cannot write', async () => {
      const label = await call('POST', `${A()}/labels`, { ...admin(), body: { title: 'Refund', color: '#00aa00' } });
      expect(label.body).toMatchObject({ title: 'refund', color: '#00aa00', show_on_sidebar: true });
      expect((await call('GET', `${A()}/labels`, { token: acc.agent.token })).body.payload.map((l: any) => l.title)).toEqual(['refund']);
      const dup = await call('POST', `${A()}/labels`, { ...admin(), body: { title: 'refund' } });
      expect(dup.status).toBe(409);
      expectErrorBody(dup.body, 'taken');
      const agentWrite = await call('PATCH', `${A()}/labels/${label.body.id}`, { token: acc.agent.token, body: { color: '#000000' } });
      expect(agentWrite.status).toBe(403);
      expect((await call('DELETE', `${A()}/labels/${label.body.id}`, admin())).body).toEqual({});
    });

    it('when an agent creates and deletes a canned response (SPEC 11), then each answers; another account cannot touch it', async () => {
      const created = await call('POST', `${A()}/canned_responses`, { token: acc.agent.token, body: { canned_response: { short_code: 'hello', content: 'Hello there!' } } });
      expect(created.body).toMatchObject({ short_code: 'hello', content: 'Hello there!', account_id: acc.accountId });
      expect((await call('GET', `${A()}/canned_responses?search=hel`, { token: acc.agent.token })).body.map((c: any) => c.id)).toEqual([created.body.id]);
      const other = await seedAccount(stack);
      const foreign = await call('DELETE', `/api/v1/accounts/${other.accountId}/canned_responses/${created.body.id}`, { token: other.admin.token });
      expect(foreign.status).toBe(404);
      expectErrorBody(foreign.body, 'not_found');
      const del = await call('DELETE', `${A()}/canned_responses/${created.body.id}`, { token: acc.agent.token });
      expect(del.status).toBe(200);
      expect(del.body).toEqual({});
      expect((await call('GET', `${A()}/canned_responses`, { token: acc.agent.token })).body).toEqual([]);
    });
  });
});

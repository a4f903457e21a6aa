import { uniq } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { createApiInbox, PNG_1X1, sendForm, type ApiInbox } from '../../support/contacts';
import { publicContact, publicConversationsPath } from '../../support/conversations';
import { expectFields, expectType } from '../../support/spec-fields';

/**
 * SPEC operations 1, 4, 6, 7, 11 and 14 (and the rest of the public client API) through the
 * gateway: every field SPEC lists for each answer, with its type, and the error answers.
 */

// ---- type checks (SPEC's type words: tests/support/spec-fields.ts) ----------------------------

const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

/** SPEC "Message (account API)". */
function expectAccountMessage(m: any): void {
  expectFields(m, {
    id: 'number', account_id: 'number', inbox_id: 'number', conversation_id: 'number', message_type: 'integer', created_at: 'integer',
    private: 'boolean', status: 'string|null', source_id: 'string|null', content_type: 'string|null', content_attributes: 'object',
    sender_type: 'string|null', sender_id: 'number|null', external_source_ids: 'object', additional_attributes: 'object',
    processed_message_content: 'string|null', sentiment: 'object|null', conversation: 'object|null', attachment: 'object|null',
  });
  expect([0, 1, 2, 3]).toContain(m.message_type);
  expect(typeof m.updated_at === 'number' || typeof m.updated_at === 'string').toBe(true);
  if (m.status !== null) expect(['sent', 'delivered', 'read', 'failed']).toContain(m.status);
  if (m.content_type !== null) {
    expect(['text', 'input_text', 'input_textarea', 'input_email', 'input_select', 'cards', 'form', 'article', 'incoming_email', 'input_csat', 'integrations', 'sticker', 'voice_call']).toContain(m.content_type);
  }
  if (m.sender_type !== null) expect(m.sender).toEqual(expect.objectContaining({ id: m.sender_id }));
  if (m.content !== null) expectType(m, 'content', 'string');
}

/** SPEC "User" as a conversation's `meta.assignee` (credentials and private settings are never shown to others). */
function expectAssignee(u: any): void {
  expectFields(u, { id: 'number', account_id: 'number', available_name: 'string', avatar_url: 'string', confirmed: 'boolean', display_name: 'string|null', email: 'string', name: 'string', provider: 'string', role: 'string' });
  expect(['agent', 'administrator']).toContain(u.role);
  for (const secret of ['access_token', 'pubsub_token', 'hmac_identifier', 'ui_settings', 'accounts']) expect(u).not.toHaveProperty(secret);
}

/** SPEC "Conversation (account API)" with the list's `meta`. */
function expectAccountConversation(c: any): void {
  expectFields(c, {
    id: 'number', account_id: 'number', uuid: 'string', inbox_id: 'number', messages: 'array', additional_attributes: 'object', custom_attributes: 'object',
    agent_last_seen_at: 'number', assignee_last_seen_at: 'number', contact_last_seen_at: 'number', can_reply: 'boolean', labels: 'array', muted: 'boolean',
    snoozed_until: 'number|null', status: 'string', created_at: 'number', updated_at: 'number', timestamp: 'number', first_reply_created_at: 'number|null',
    unread_count: 'number', last_non_activity_message: 'object|null', last_activity_at: 'number', priority: 'string|null', waiting_since: 'number|null',
    sla_policy_id: 'number|null', applied_sla: 'object', sla_events: 'array', meta: 'object',
  });
  expect(['open', 'resolved', 'pending', 'snoozed']).toContain(c.status);
  if (c.priority !== null) expect(['urgent', 'high', 'medium', 'low']).toContain(c.priority);
  for (const l of c.labels) expect(typeof l).toBe('string');
  for (const e of c.sla_events) expect(isObject(e)).toBe(true);
  // SPEC: `timestamp` is the creation time.
  expect(c.timestamp).toBe(c.created_at);
  for (const m of c.messages) expectAccountMessage(m);
  if (c.last_non_activity_message) {
    expectAccountMessage(c.last_non_activity_message);
    expect(c.last_non_activity_message.message_type).not.toBe(2);
  }
  expectFields(c.meta, { sender: 'object', channel: 'string', hmac_verified: 'boolean' });
  expectFields(c.meta.sender, {
    additional_attributes: 'object', availability_status: 'string', email: 'string|null', id: 'number', name: 'string', phone_number: 'string|null',
    blocked: 'boolean', identifier: 'string|null', thumbnail: 'string|null', custom_attributes: 'object', last_activity_at: 'number', created_at: 'number',
  });
  if (c.meta.assignee !== null) expectAssignee(c.meta.assignee);
}

/** SPEC "Public attachment". */
function expectPublicAttachment(a: any): void {
  expectFields(a, {
    id: 'number', message_id: 'number', account_id: 'number', file_size: 'number', width: 'number|null', height: 'number|null', file_type: 'string',
    extension: 'string|null', data_url: 'string', thumb_url: 'string', fallback_title: 'string|null', transcribed_text: 'string|null',
    coordinates_lat: 'number|null', coordinates_long: 'number|null', meta: 'object',
  });
}

/** SPEC "Public Message" (and its sender: the contact's public fields, or an agent's public profile). */
function expectPublicMessage(m: any): void {
  expectFields(m, { id: 'number', content: 'string|null', message_type: 'number', content_type: 'string', content_attributes: 'object', created_at: 'number', conversation_id: 'number', attachments: 'array' });
  for (const a of m.attachments) expectPublicAttachment(a);
  if (m.sender !== undefined) {
    expectFields(m.sender, { id: 'number', name: 'string', avatar_url: 'string', thumbnail: 'string', available_name: 'string', availability_status: 'string', type: 'string' });
    if (m.sender.type === 'contact') {
      expectFields(m.sender, {
        email: 'string|null', phone_number: 'string|null', identifier: 'string|null', created_at: 'string', blocked: 'boolean', additional_attributes: 'object', custom_attributes: 'object',
      });
    }
  }
}

/** SPEC "Public full contact". */
function expectPublicContact(c: any): void {
  expectFields(c, {
    id: 'number', account_id: 'number', company_id: 'number|null', name: 'string|null', email: 'string|null', phone_number: 'string|null', identifier: 'string|null',
    contact_type: 'string|null', country_code: 'string|null', last_name: 'string|null', middle_name: 'string|null', location: 'string|null',
    last_activity_at: 'string|null', created_at: 'string', updated_at: 'string', blocked: 'boolean', additional_attributes: 'object', custom_attributes: 'object', label_list: 'array',
  });
}

/** SPEC "Conversation (public API)". */
function expectPublicConversation(c: any): void {
  expectFields(c, { id: 'number', uuid: 'string', inbox_id: 'number', contact_last_seen_at: 'number', agent_last_seen_at: 'number', status: 'string', messages: 'array', contact: 'object' });
  expect(['open', 'resolved', 'pending', 'snoozed']).toContain(c.status);
  for (const m of c.messages) expectPublicMessage(m);
  expectPublicContact(c.contact);
}

// ---- the operations ------------------------------------------------------------------------

describe('SPEC conversations operations through the gateway (1, 4, 6, 7, 11, 14 and the public client API)', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let inbox: ApiInbox;
  let teamId: number;
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
    await call('POST', `${A()}/inbox_members`, { ...admin(), body: { inbox_id: inbox.id, user_ids: [acc.agent.userId] } });
    const team = await call('POST', `${A()}/teams`, { ...admin(), body: { name: uniq('Team') } });
    teamId = team.body.id;
  });

  /** A contact with every field set, through the public contact API. */
  const fullContact = () =>
    publicContact(call, inbox, { name: 'Ada Lovelace', email: `${uniq('ada')}@example.com`, phone_number: '+14155550123', identifier: uniq('ada'), custom_attributes: { plan: 'gold' } });

  describe('op 4: create conversation', () => {
    it('when every SPEC body field is given, then the answer has id, account_id and inbox_id as numbers and the fields are stored', async () => {
      const contact = await fullContact();
      const res = await call('POST', `${A()}/conversations`, {
        ...admin(),
        body: {
          source_id: contact.source_id, inbox_id: inbox.id, contact_id: contact.id, additional_attributes: { browser_language: 'en' }, custom_attributes: { order: 7 },
          status: 'pending', assignee_id: acc.agent.userId, team_id: teamId, snoozed_until: new Date(Date.now() + 3_600_000).toISOString(), message: { content: 'Hello Ada' },
        },
      });
      expect(res.status).toBe(200);
      expectFields(res.body, { id: 'number', account_id: 'number', inbox_id: 'number' });
      expect(res.body).toMatchObject({ account_id: acc.accountId, inbox_id: inbox.id, status: 'pending', additional_attributes: { browser_language: 'en' }, custom_attributes: { order: 7 } });
      expectAccountConversation(res.body);
      expect(res.body.meta.assignee.id).toBe(acc.agent.userId);
      expect(res.body.messages.map((m: any) => m.content)).toEqual(['Hello Ada']);
      const shown = await call('GET', `${A()}/conversations/${res.body.id}`, admin());
      expect(shown.body.meta).toMatchObject({ sender: { id: contact.id }, assignee: { id: acc.agent.userId } });
      expect(shown.body.meta.team?.id).toBe(teamId);

      const snoozed = await call('POST', `${A()}/conversations`, {
        ...admin(),
        body: { inbox_id: inbox.id, contact_id: contact.id, status: 'snoozed', snoozed_until: '2099-01-01T00:00:00Z' },
      });
      expect(snoozed.body.snoozed_until).toBe(Date.parse('2099-01-01T00:00:00Z') / 1000);
    });

    it('when the body or the caller is wrong, then 4xx with the Error body', async () => {
      const contact = await publicContact(call, inbox);
      const other = await seedAccount(stack);
      const foreignInbox = await createApiInbox(call, other);
      const cases: Array<[string, Record<string, unknown>, number, string]> = [
        ['no inbox', { contact_id: contact.id }, 422, 'required'],
        ['wrong type', { inbox_id: 'first', contact_id: contact.id }, 422, 'invalid_union'],
        ['unknown contact', { inbox_id: inbox.id, contact_id: 999_999_999 }, 404, 'not_found'],
        ['another account\'s inbox', { inbox_id: foreignInbox.id, contact_id: contact.id }, 404, 'not_found'],
        ['bad status', { inbox_id: inbox.id, contact_id: contact.id, status: 'closed' }, 422, 'invalid_value'],
      ];
      for (const [what, body, status, code] of cases) {
        const res = await call('POST', `${A()}/conversations`, { ...admin(), body });
        expect([what, res.status]).toEqual([what, status]);
        expectErrorBody(res.body, code);
      }
      const malformed = await call('POST', `${A()}/conversations`, { ...admin(), raw: '{"inbox_id":' });
      expect(malformed.status).toBe(400);
      expectErrorBody(malformed.body, 'malformed_json');
      const unknownToken = await call('POST', `${A()}/conversations`, { token: 'not-a-token', body: { inbox_id: inbox.id, contact_id: contact.id } });
      expect(unknownToken.status).toBe(401);
      expectErrorBody(unknownToken.body);
      const outsider = await call('POST', `${A()}/conversations`, { token: other.admin.token, body: { inbox_id: inbox.id, contact_id: contact.id } });
      expect(outsider.status).toBe(403);
      expectErrorBody(outsider.body);
    });
  });

  describe('op 1: list conversations', () => {
    it('when an administrator lists, then data.meta has four numeric counts and every item carries every SPEC field with its type', async () => {
      const contact = await fullContact();
      const created = await call('POST', `${A()}/conversations`, {
        ...admin(),
        body: { inbox_id: inbox.id, contact_id: contact.id, assignee_id: acc.agent.userId, message: { content: 'Where is my order?', message_type: 'incoming' } },
      });
      const id = created.body.id;
      await call('POST', `${A()}/conversations/${id}/messages`, { token: acc.agent.token, body: { content: 'Looking into it' } });
      await call('POST', `${A()}/conversations/${id}/messages`, { token: acc.agent.token, body: { content: 'internal', private: true } });
      const form = new FormData();
      form.append('content', 'the label');
      form.append('attachments[]', new Blob([PNG_1X1], { type: 'image/png' }), 'label.png');
      expect((await sendForm(stack.gatewayUrl, 'POST', `${A()}/conversations/${id}/messages`, form, acc.agent.token)).status).toBe(200);
      await call('POST', `${A()}/conversations/${id}/labels`, { ...admin(), body: { labels: ['vip'] } });
      await call('POST', `${A()}/conversations/${id}/toggle_priority`, { ...admin(), body: { priority: 'high' } });
      await call('POST', `${A()}/conversations`, { ...admin(), body: { inbox_id: inbox.id, contact_id: contact.id } });

      const res = await call('GET', `${A()}/conversations`, admin());
      expect(res.status).toBe(200);
      expectFields(res.body.data.meta, { mine_count: 'number', unassigned_count: 'number', assigned_count: 'number', all_count: 'number' });
      expect(res.body.data.meta).toEqual({ mine_count: 0, unassigned_count: 1, assigned_count: 1, all_count: 2 });
      expect(res.body.data.payload).toHaveLength(2);
      for (const c of res.body.data.payload) expectAccountConversation(c);

      const item = res.body.data.payload.find((c: any) => c.id === id);
      expect(item).toMatchObject({ labels: ['vip'], priority: 'high', meta: { channel: 'Channel::Api', hmac_verified: false, assignee: { id: acc.agent.userId, role: 'agent' } } });
      expect(item.meta.sender).toMatchObject({ id: contact.id, name: 'Ada Lovelace', phone_number: '+14155550123', custom_attributes: { plan: 'gold' }, blocked: false });
      expect(item.first_reply_created_at).toBeGreaterThan(0);
      // The newest message (the priority activity) is the last one; the last non-activity one is the attachment.
      expect(item.messages).toHaveLength(1);
      expect(item.messages[0].message_type).toBe(2);
      const attached = item.last_non_activity_message;
      expect(attached).toMatchObject({ content: 'the label', sender_type: 'User', sender_id: acc.agent.userId });
      expect(attached.attachment).toMatchObject({ file_type: 'image', extension: 'png', message_id: attached.id });
      expect(attached.attachments).toEqual([attached.attachment]);
      expect(attached.attachment.width).toBe(1);
      expect(attached.attachment.height).toBe(1);
      expectPublicAttachment(attached.attachment);
    });

    it('when the query is malformed, then 400 with the Error body; an outsider and a bot are refused', async () => {
      for (const q of ['?status=closed', '?page=0', '?assignee_type=everyone', '?team_id=x', '?labels[a]=b', '?sort_by=oldest', '?pages=2']) {
        const res = await call('GET', `${A()}/conversations${q}`, admin());
        expect([q, res.status]).toEqual([q, 400]);
        expectErrorBody(res.body);
      }
      const unknownToken = await call('GET', `${A()}/conversations`, { token: 'nope' });
      expect(unknownToken.status).toBe(401);
      expectErrorBody(unknownToken.body);
      const bot = await acc.addBot();
      const botList = await call('GET', `${A()}/conversations`, { token: bot.token });
      expect(botList.status).toBe(403);
      expectErrorBody(botList.body, 'bot_forbidden');
    });
  });

  describe('op 6: conversation labels', () => {
    it('when labels are posted, then the list replaces the old one and {payload: [string]} answers both POST and GET', async () => {
      const contact = await publicContact(call, inbox);
      const id = (await call('POST', `${A()}/conversations`, { ...admin(), body: { inbox_id: inbox.id, contact_id: contact.id } })).body.id;
      const first = await call('POST', `${A()}/conversations/${id}/labels`, { token: acc.agent.token, body: { labels: ['billing', 'vip'] } });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ payload: ['billing', 'vip'] });
      const second = await call('POST', `${A()}/conversations/${id}/labels`, { token: acc.agent.token, body: { labels: ['refund'] } });
      expect(second.body).toEqual({ payload: ['refund'] });
      expect((await call('GET', `${A()}/conversations/${id}/labels`, { token: acc.agent.token })).body).toEqual({ payload: ['refund'] });
      expect((await call('POST', `${A()}/conversations/${id}/labels`, { token: acc.agent.token, body: { labels: [] } })).body).toEqual({ payload: [] });
    });

    it('when the conversation is unknown, not visible, or the labels are not strings, then 4xx with the Error body', async () => {
      const contact = await publicContact(call, inbox);
      const hidden = await createApiInbox(call, acc, { name: 'Hidden' });
      const hiddenContact = await publicContact(call, hidden);
      const hiddenId = (await call('POST', `${A()}/conversations`, { ...admin(), body: { inbox_id: hidden.id, contact_id: hiddenContact.id } })).body.id;
      const id = (await call('POST', `${A()}/conversations`, { ...admin(), body: { inbox_id: inbox.id, contact_id: contact.id } })).body.id;
      const unknown = await call('POST', `${A()}/conversations/987654/labels`, { ...admin(), body: { labels: ['x'] } });
      expect(unknown.status).toBe(404);
      expectErrorBody(unknown.body, 'not_found');
      const forbidden = await call('POST', `${A()}/conversations/${hiddenId}/labels`, { token: acc.agent.token, body: { labels: ['x'] } });
      expect(forbidden.status).toBe(403);
      expectErrorBody(forbidden.body);
      const bad = await call('POST', `${A()}/conversations/${id}/labels`, { ...admin(), body: { labels: [1, 2] } });
      expect(bad.status).toBe(422);
      expectErrorBody(bad.body);
      expect(bad.body.errors[0].field).toBe('labels.0');
    });
  });

  describe('op 7: toggle priority', () => {
    it('when each SPEC value is sent by a user or an agent bot, then it is stored and `none` clears it', async () => {
      const contact = await publicContact(call, inbox);
      const id = (await call('POST', `${A()}/conversations`, { ...admin(), body: { inbox_id: inbox.id, contact_id: contact.id } })).body.id;
      const bot = await acc.addBot();
      for (const [priority, token] of [['urgent', acc.agent.token], ['high', bot.token], ['medium', acc.admin.token], ['low', bot.token]] as const) {
        const res = await call('POST', `${A()}/conversations/${id}/toggle_priority`, { token, body: { priority } });
        expect(res.status).toBe(200);
        expect((await call('GET', `${A()}/conversations/${id}`, admin())).body.priority).toBe(priority);
      }
      expect((await call('POST', `${A()}/conversations/${id}/toggle_priority`, { token: bot.token, body: { priority: 'none' } })).status).toBe(200);
      expect((await call('GET', `${A()}/conversations/${id}`, admin())).body.priority).toBeNull();
    });

    it('when the value or the conversation is wrong, then 4xx with the Error body', async () => {
      const contact = await publicContact(call, inbox);
      const id = (await call('POST', `${A()}/conversations`, { ...admin(), body: { inbox_id: inbox.id, contact_id: contact.id } })).body.id;
      const bad = await call('POST', `${A()}/conversations/${id}/toggle_priority`, { ...admin(), body: { priority: 'asap' } });
      expect(bad.status).toBe(422);
      expectErrorBody(bad.body);
      expect(bad.body.errors[0].field).toBe('priority');
      const unknown = await call('POST', `${A()}/conversations/987654/toggle_priority`, { ...admin(), body: { priority: 'low' } });
      expect(unknown.status).toBe(404);
      expectErrorBody(unknown.body, 'not_found');
      const other = await seedAccount(stack);
      const foreign = await call('POST', `/api/v1/accounts/${other.accountId}/conversations/${id}/toggle_priority`, { token: other.admin.token, body: { priority: 'low' } });
      expect(foreign.status).toBe(404);
      expectErrorBody(foreign.body, 'not_found');
    });
  });

  describe('op 11: delete canned response', () => {
    it('when an agent deletes a canned response, then 200 {} and it is gone; unknown or foreign ids are 404', async () => {
      const created = await call('POST', `${A()}/canned_responses`, { token: acc.agent.token, body: { short_code: 'thanks', content: 'Thank you!' } });
      expect(created.status).toBe(200);
      const other = await seedAccount(stack);
      const foreign = await call('DELETE', `/api/v1/accounts/${other.accountId}/canned_responses/${created.body.id}`, { token: other.agent.token });
      expect(foreign.status).toBe(404);
      expectErrorBody(foreign.body, 'not_found');
      const del = await call('DELETE', `${A()}/canned_responses/${created.body.id}`, { token: acc.agent.token });
      expect(del.status).toBe(200);
      expect(del.body).toEqual({});
      const again = await call('DELETE', `${A()}/canned_responses/${created.body.id}`, { token: acc.agent.token });
      expect(again.status).toBe(404);
      expectErrorBody(again.body, 'not_found');
      const bot = await acc.addBot();
      const byBot = await call('DELETE', `${A()}/canned_responses/${created.body.id}`, { token: bot.token });
      expect(byBot.status).toBe(403);
      expectErrorBody(byBot.body, 'bot_forbidden');
    });
  });

  describe('op 14 and the public client API', () => {
    it('when a contact reads its conversation, then every SPEC public field is there and notes and activity are hidden', async () => {
      const contact = await fullContact();
      const pub = publicConversationsPath(inbox, contact.source_id);
      const opened = await call('POST', pub, { body: { custom_attributes: { topic: 'billing' } } });
      expect(opened.status).toBe(200);
      expectPublicConversation(opened.body);
      const id = opened.body.id;
      const form = new FormData();
      form.append('content', 'a photo');
      form.append('attachments[]', new Blob([PNG_1X1], { type: 'image/png' }), 'photo.png');
      const incoming = await sendForm(stack.gatewayUrl, 'POST', `${pub}/${id}/messages`, form);
      expect(incoming.status).toBe(200);
      expectPublicMessage(incoming.body);
      await call('POST', `${A()}/conversations/${id}/messages`, { token: acc.agent.token, body: { content: 'We are on it' } });
      await call('POST', `${A()}/conversations/${id}/messages`, { token: acc.agent.token, body: { content: 'secret note', private: true } });
      await call('POST', `${A()}/conversations/${id}/toggle_priority`, { ...admin(), body: { priority: 'low' } });

      const res = await call('GET', `${pub}/${id}`);
      expect(res.status).toBe(200);
      expectPublicConversation(res.body);
      expect(res.body).toMatchObject({ id, inbox_id: inbox.id, status: 'open', contact: { id: contact.id, account_id: acc.accountId, name: 'Ada Lovelace', custom_attributes: { plan: 'gold' } } });
      expect(res.body.messages.map((m: any) => m.content)).toEqual(['a photo', 'We are on it']);
      const [photo, reply] = res.body.messages;
      expect(photo).toMatchObject({ message_type: 0, sender: { id: contact.id, type: 'contact', name: 'Ada Lovelace' } });
      expect(photo.attachments).toEqual([expect.objectContaining({ file_type: 'image', extension: 'png', width: 1, height: 1 })]);
      expect(reply).toMatchObject({ message_type: 1, sender: { id: acc.agent.userId, type: 'user', name: acc.agent.name } });
      // An agent's e-mail address is not shown to contacts.
      expect(reply.sender).not.toHaveProperty('email');
      const file = await fetch(stack.gatewayUrl + photo.attachments[0].data_url);
      expect(file.status).toBe(200);
      expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG_1X1);
    });

    it('when the inbox, contact or conversation does not match, then 404 with the Error body', async () => {
      const contact = await publicContact(call, inbox);
      const other = await publicContact(call, inbox);
      const pub = publicConversationsPath(inbox, contact.source_id);
      const id = (await call('POST', pub, { body: {} })).body.id;
      const otherInbox = await createApiInbox(call, acc, { name: 'Elsewhere' });
      for (const path of [
        `/public/api/v1/inboxes/nosuchinbox/contacts/${contact.source_id}/conversations/${id}`,
        `${publicConversationsPath(otherInbox, contact.source_id)}/${id}`,
        `${publicConversationsPath(inbox, 'no-such-contact')}/${id}`,
        `${publicConversationsPath(inbox, other.source_id)}/${id}`,
        `${pub}/${id + 1000}`,
        `${pub}/abc`,
      ]) {
        const res = await call('GET', path);
        expect([path, res.status]).toEqual([path, 404]);
        expectErrorBody(res.body, 'not_found');
      }
    });

    it('when a client uses the rest of the public API, then inbox, list, messages, status, typing and read receipts answer as documented', async () => {
      const contact = await fullContact();
      const pub = publicConversationsPath(inbox, contact.source_id);
      const shownInbox = await call('GET', `/public/api/v1/inboxes/${inbox.inbox_identifier}`);
      expectFields(shownInbox.body, { identifier: 'string', identity_validation_enabled: 'boolean', name: 'string', timezone: 'string', working_hours: 'array', working_hours_enabled: 'boolean', csat_survey_enabled: 'boolean', greeting_enabled: 'boolean' });
      const id = (await call('POST', pub, { body: {} })).body.id;
      const sent = await call('POST', `${pub}/${id}/messages`, { body: { content: 'first', echo_id: 'e1' } });
      expect(sent.status).toBe(200);
      expectPublicMessage(sent.body);
      const list = await call('GET', pub);
      expect(list.status).toBe(200);
      expect(list.body.map((c: any) => c.id)).toEqual([id]);
      for (const c of list.body) expectPublicConversation(c);
      const messages = await call('GET', `${pub}/${id}/messages`);
      expect(messages.body.map((m: any) => m.content)).toEqual(['first']);
      for (const m of messages.body) expectPublicMessage(m);
      const form = await call('POST', `${A()}/conversations/${id}/messages`, { token: acc.agent.token, body: { content: 'Pick one', content_type: 'input_select', content_attributes: { items: [{ title: 'A', value: 'a' }] } } });
      const answered = await call('PATCH', `${pub}/${id}/messages/${form.body.id}`, { body: { submitted_values: [{ title: 'A', value: 'a' }] } });
      expect(answered.status).toBe(200);
      expectPublicMessage(answered.body);
      expect(answered.body.content_attributes.submitted_values).toEqual([{ title: 'A', value: 'a' }]);
      expect((await call('POST', `${pub}/${id}/toggle_typing`, { body: { typing_status: 'on' } })).body).toEqual({});
      expect((await call('POST', `${pub}/${id}/update_last_seen`)).body).toEqual({});
      expect((await call('GET', `${pub}/${id}`)).body.contact_last_seen_at).toBeGreaterThan(0);
      const resolved = await call('POST', `${pub}/${id}/toggle_status`);
      expect(resolved.status).toBe(200);
      expectPublicConversation(resolved.body);
      expect(resolved.body.status).toBe('resolved');

      for (const [method, path, body] of [
        ['POST', `${pub}/${id}/toggle_typing`, { typing_status: 'maybe' }],
        ['POST', `${pub}/${id}/messages`, { content: 42 }],
        ['POST', `${pub}/${id}/messages`, {}],
        ['POST', pub, { custom_attributes: 'x' }],
      ] as const) {
        const res = await call(method, path, { body });
        expect([path, res.status]).toEqual([path, 422]);
        expectErrorBody(res.body, undefined);
      }
      const badQuery = await call('GET', `${pub}/${id}/messages?before=yesterday`);
      expect(badQuery.status).toBe(400);
      expectErrorBody(badQuery.body);
    });
  });
});

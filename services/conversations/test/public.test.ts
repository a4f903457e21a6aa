import { createInbox, expectError } from './fixtures';
import { startHarness, type Harness, type TestAccount } from './harness';

describe('public client API (service level)', () => {
  let h: Harness;
  let acc: TestAccount;
  let inbox: any;
  const anon = { actor: { type: 'anonymous' as const, id: null }, role: null };
  const pub = (method: string, path: string, body?: unknown) => h.call(method, `/public/api/v1/inboxes${path}`, { as: anon, body });

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.stop());
  beforeEach(async () => {
    acc = await h.account();
    inbox = await createInbox(h, acc);
  });

  function visitor(fields: Record<string, unknown> = {}) {
    const { contact, contactInbox } = h.stub.addContactInInbox(acc.accountId, inbox.id, { name: 'jane visitor', ...fields });
    return { contact, sourceId: contactInbox.source_id, path: `/${inbox.inbox_identifier}/contacts/${contactInbox.source_id}/conversations` };
  }

  it('when a contact opens a conversation and writes, then SPEC op 14 shows it with the chat messages only', async () => {
    const v = visitor({ custom_attributes: { tier: 'gold' } });
    const created = await pub('POST', v.path, { custom_attributes: { page: '/pricing' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ id: 1, inbox_id: inbox.id, status: 'open', messages: [], contact_last_seen_at: 0, agent_last_seen_at: 0 });
    expect(created.body.contact).toMatchObject({ id: v.contact.id, account_id: acc.accountId, name: 'jane visitor', blocked: false, custom_attributes: { tier: 'gold' }, label_list: [] });
    const conv = created.body.id;
    expect((await h.events(acc.accountId, 'conversation.created'))[0]).toMatchObject({ actor: { type: 'contact', id: v.contact.id }, data: { custom_attributes: { page: '/pricing' } } });

    const msg = await pub('POST', `${v.path}/${conv}/messages`, { content: 'Hello, I need help', echo_id: 'x1' });
    expect(msg.status).toBe(200);
    expect(msg.body).toMatchObject({ content: 'Hello, I need help', message_type: 0, content_type: 'text', conversation_id: conv, attachments: [], sender: { id: v.contact.id, type: 'contact' } });
    const base = `/api/v1/accounts/${acc.accountId}/conversations/${conv}`;
    await h.call('POST', `${base}/messages`, { as: acc.admin, body: { content: 'an internal note', private: true } });
    await h.call('POST', `${base}/messages`, { as: acc.admin, body: { content: 'Sure, what is wrong?' } });
    await h.call('POST', `${base}/toggle_priority`, { as: acc.admin, body: { priority: 'low' } });

    const shown = await pub('GET', `${v.path}/${conv}`);
    expect(shown.status).toBe(200);
    expect(shown.body.messages.map((m: any) => [m.message_type, m.content])).toEqual([
      [0, 'Hello, I need help'],
      [1, 'Sure, what is wrong?'],
    ]);
    expect(shown.body.messages[1].sender).toMatchObject({ id: acc.adminId, type: 'user' });
    const listed = await pub('GET', `${v.path}/${conv}/messages`);
    expect(listed.body.map((m: any) => m.content)).toEqual(['Hello, I need help', 'Sure, what is wrong?']);
    const all = await pub('GET', v.path);
    expect(all.body.map((c: any) => c.id)).toEqual([conv]);
  });

  it('when the inbox, the contact or the conversation is wrong, then 404 with the Error body', async () => {
    const v = visitor();
    const conv = (await pub('POST', v.path, {})).body.id;
    const other = visitor();
    expectError(await pub('GET', `/nope${v.path.slice(v.path.indexOf('/contacts'))}/${conv}`), 404, 'not_found', 'inbox_identifier');
    // The inbox is read with the conversation, in the write's locking statement: no inbox is still the inbox's 404, and writes nothing.
    const before = (await h.svc.deps.pool.query('SELECT count(*)::int AS n FROM messages WHERE account_id = $1', [acc.accountId])).rows[0].n;
    expectError(await pub('POST', `/nope${v.path.slice(v.path.indexOf('/contacts'))}/${conv}/messages`, { content: 'lost' }), 404, 'not_found', 'inbox_identifier');
    expect((await h.svc.deps.pool.query('SELECT count(*)::int AS n FROM messages WHERE account_id = $1', [acc.accountId])).rows[0].n).toBe(before);
    // A real inbox with no such conversation on the path: the contact's 404 or the conversation's, as before.
    expectError(await pub('POST', `${v.path}/999/messages`, { content: 'nowhere' }), 404, 'not_found', 'conversation_id');
    expectError(await pub('POST', `/${inbox.inbox_identifier}/contacts/not-a-source/conversations/${conv}/messages`, { content: 'who?' }), 404, 'not_found', 'contact_identifier');
    expectError(await pub('GET', `/${inbox.inbox_identifier}/contacts/not-a-source/conversations/${conv}`), 404, 'not_found');
    expectError(await pub('GET', `${other.path}/${conv}`), 404, 'not_found');
    expectError(await pub('POST', `${other.path}/${conv}/messages`, { content: 'not mine' }), 404, 'not_found');
    expectError(await pub('GET', `${v.path}/999`), 404, 'not_found');
    expectError(await pub('GET', `${v.path}/abc`), 404);
    const otherInbox = await createInbox(h, acc, { name: 'Other' });
    expectError(await pub('GET', `/${otherInbox.inbox_identifier}/contacts/${v.sourceId}/conversations/${conv}`), 404, 'not_found');
  });

  it('when the contact is HMAC-verified, then it sees its conversations of every inbox', async () => {
    const other = await createInbox(h, acc, { name: 'Other' });
    const { contact, contactInbox } = h.stub.addContactInInbox(acc.accountId, inbox.id, { hmac_verified: true });
    const elsewhere = await h.call('POST', `/api/v1/accounts/${acc.accountId}/conversations`, { as: acc.admin, body: { inbox_id: other.id, contact_id: contact.id } });
    const res = await pub('GET', `/${inbox.inbox_identifier}/contacts/${contactInbox.source_id}/conversations/${elsewhere.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body.inbox_id).toBe(other.id);
    const plain = h.stub.addContactInInbox(acc.accountId, inbox.id);
    const hidden = await h.call('POST', `/api/v1/accounts/${acc.accountId}/conversations`, { as: acc.admin, body: { inbox_id: other.id, contact_id: plain.contact.id } });
    expectError(await pub('GET', `/${inbox.inbox_identifier}/contacts/${plain.contactInbox.source_id}/conversations/${hidden.body.id}`), 404);
    // Writing takes the same scope (the conversation is locked by it in the transaction's first round trip).
    const wrote = await pub('POST', `/${inbox.inbox_identifier}/contacts/${contactInbox.source_id}/conversations/${elsewhere.body.id}/messages`, { content: 'from the other inbox' });
    expect(wrote.status).toBe(200);
    expect(wrote.body).toMatchObject({ content: 'from the other inbox', message_type: 0, conversation_id: elsewhere.body.id });
    expectError(await pub('POST', `/${inbox.inbox_identifier}/contacts/${plain.contactInbox.source_id}/conversations/${hidden.body.id}/messages`, { content: 'not mine' }), 404, 'not_found');
    expectError(await pub('POST', `/${inbox.inbox_identifier}/contacts/${plain.contactInbox.source_id}/conversations/${hidden.body.id}/toggle_status`), 404, 'not_found');
  });

  it('when the contact toggles the status, then it only resolves, with an activity naming the contact', async () => {
    const v = visitor();
    const conv = (await pub('POST', v.path, {})).body.id;
    const res = await pub('POST', `${v.path}/${conv}/toggle_status`);
    expect(res.body.status).toBe('resolved');
    expect((await pub('POST', `${v.path}/${conv}/toggle_status`)).body.status).toBe('resolved');
    const activity = (await h.call('GET', `/api/v1/accounts/${acc.accountId}/conversations/${conv}/messages`, { as: acc.admin })).body.payload.filter((m: any) => m.message_type === 2);
    expect(activity.map((m: any) => m.content)).toEqual(['Conversation was resolved by Jane visitor']);
    expect(res.body.messages).toEqual([]);
    // A new message from the contact reopens it.
    await pub('POST', `${v.path}/${conv}/messages`, { content: 'one more thing' });
    expect((await pub('GET', `${v.path}/${conv}`)).body.status).toBe('open');
  });

  it('when the contact types and reads, then typing events, contact_last_seen_at and read receipts follow', async () => {
    const v = visitor();
    const conv = (await pub('POST', v.path, {})).body.id;
    const reply = await h.call('POST', `/api/v1/accounts/${acc.accountId}/conversations/${conv}/messages`, { as: acc.admin, body: { content: 'Hi' } });
    expect((await pub('POST', `${v.path}/${conv}/toggle_typing`, { typing_status: 'on' })).body).toEqual({});
    await pub('POST', `${v.path}/${conv}/toggle_typing`, { typing_status: 'off' });
    expectError(await pub('POST', `${v.path}/${conv}/toggle_typing`, { typing_status: 'maybe' }), 422, undefined, 'typing_status');
    expect((await h.events(acc.accountId, 'conversation.typing_on', 'conversation.typing_off')).map((e) => e.type)).toEqual(['conversation.typing_on', 'conversation.typing_off']);
    expect((await pub('POST', `${v.path}/${conv}/update_last_seen`)).body).toEqual({});
    expect((await pub('GET', `${v.path}/${conv}`)).body.contact_last_seen_at).toBeGreaterThan(0);
    const msgs = (await h.call('GET', `/api/v1/accounts/${acc.accountId}/conversations/${conv}/messages`, { as: acc.admin })).body.payload;
    expect(msgs.find((m: any) => m.id === reply.body.id).status).toBe('read');
    expect(await h.events(acc.accountId, 'conversation.read')).toHaveLength(1);
    // Each message the contact has now read is announced (webhooks send message_updated), once.
    const note = await h.call('POST', `/api/v1/accounts/${acc.accountId}/conversations/${conv}/messages`, { as: acc.admin, body: { content: 'internal', private: true } });
    const second = await h.call('POST', `/api/v1/accounts/${acc.accountId}/conversations/${conv}/messages`, { as: acc.admin, body: { content: 'Anything else?' } });
    await pub('POST', `${v.path}/${conv}/update_last_seen`);
    const updates = await h.events(acc.accountId, 'message.updated');
    expect(updates.map((e) => [e.data.id, e.changes])).toEqual([
      [reply.body.id, { status: ['sent', 'read'] }],
      [second.body.id, { status: ['sent', 'read'] }],
    ]);
    expect(updates[0]).toMatchObject({ actor: { type: 'contact', id: v.contact.id }, data: { status: 'read', conversation: { id: conv } } });
    expect(updates.some((e) => e.data.id === note.body.id)).toBe(false);
  });

  it('when a form message is answered, then submitted_values are stored; bad bodies are 422', async () => {
    const v = visitor();
    const conv = (await pub('POST', v.path, {})).body.id;
    const form = await h.call('POST', `/api/v1/accounts/${acc.accountId}/conversations/${conv}/messages`, {
      as: acc.admin,
      body: { content: 'Pick one', content_type: 'input_select', content_attributes: { items: [{ title: 'A', value: 'a' }] } },
    });
    const res = await pub('PATCH', `${v.path}/${conv}/messages/${form.body.id}`, { submitted_values: [{ title: 'A', value: 'a' }] });
    expect(res.status).toBe(200);
    expect(res.body.content_attributes).toEqual({ items: [{ title: 'A', value: 'a' }], submitted_values: [{ title: 'A', value: 'a' }] });
    expectError(await pub('PATCH', `${v.path}/${conv}/messages/${form.body.id}`, {}), 422, undefined, 'submitted_values');
    expectError(await pub('POST', `${v.path}/${conv}/messages`, {}), 422, 'blank', 'content');
    expectError(await pub('POST', `${v.path}/${conv}/messages`, { content: 5 }), 422, undefined, 'content');
  });

  it('when the contact sends a file, then it is an attachment the contact can fetch back', async () => {
    const v = visitor();
    const conv = (await pub('POST', v.path, {})).body.id;
    const form = new FormData();
    form.append('content', 'screenshot');
    form.append('attachments[]', new Blob([Buffer.from('PNGDATA')], { type: 'image/png' }), 'shot.png');
    const res = await h.call('POST', `/public/api/v1/inboxes${v.path}/${conv}/messages`, { as: anon, form });
    expect(res.status).toBe(200);
    expect(res.body.attachments).toHaveLength(1);
    const att = res.body.attachments[0];
    expect(att).toMatchObject({ file_type: 'image', extension: 'png', file_size: 7 });
    expect(att.data_url).toBe(`/public/api/v1/inboxes${v.path}/${conv}/messages/${res.body.id}/attachments/${att.id}`);
    const file = await h.call('GET', att.data_url, { as: anon });
    expect(file.status).toBe(200);
    expect(file.text).toBe('PNGDATA');
  });

  describe('a request about the conversation of the path\'s own contact inbox', () => {
    it('when the contacts service fails, then it is still answered from the conversation row and the contact\'s copy, without asking it', async () => {
      const v = visitor();
      const conv = (await pub('POST', v.path, {})).body.id;
      const asked = h.stub.lookups.contact_inboxes;
      h.stub.failing.add('contact_inboxes');
      try {
        const msg = await pub('POST', `${v.path}/${conv}/messages`, { content: 'still here' });
        expect(msg.status).toBe(200);
        expect(msg.body).toMatchObject({ content: 'still here', message_type: 0, conversation_id: conv, sender: { id: v.contact.id, type: 'contact', name: 'jane visitor' } });
        expect((await h.events(acc.accountId, 'message.created')).at(-1)).toMatchObject({ actor: { type: 'contact', id: v.contact.id }, data: { sender_id: v.contact.id, sender_type: 'Contact' } });
        expect((await pub('GET', `${v.path}/${conv}`)).body.messages.map((m: any) => m.content)).toEqual(['still here']);
        expect((await pub('GET', `${v.path}/${conv}/messages`)).body.map((m: any) => m.content)).toEqual(['still here']);
        expect((await pub('POST', `${v.path}/${conv}/toggle_typing`, { typing_status: 'on' })).status).toBe(200);
        expect((await pub('POST', `${v.path}/${conv}/update_last_seen`)).status).toBe(200);
        expect((await pub('POST', `${v.path}/${conv}/toggle_status`)).body.status).toBe('resolved');
        expect(h.stub.lookups.contact_inboxes).toBe(asked);
        // What the row cannot vouch for still asks the contacts service (failing: 503, not a guess).
        const other = visitor();
        expectError(await pub('GET', `${other.path}/${conv}`), 503);
        expect(h.stub.lookups.contact_inboxes).toBe(asked + 1);
      } finally {
        h.stub.failing.delete('contact_inboxes');
      }
      expectError(await pub('GET', `${visitor().path}/${conv}`), 404, 'not_found');
    });

    it('when the contact has no copy here, then a read reads it through and a write asks for the pair, each once, and the copy is kept', async () => {
      const v = visitor();
      const conv = (await pub('POST', v.path, {})).body.id;
      const dropCopy = () => h.svc.deps.pool.query(`DELETE FROM projections WHERE kind = 'contact' AND account_id = $1 AND id = $2`, [acc.accountId, v.contact.id]);
      await dropCopy();
      h.stub.contacts.set(`${acc.accountId}:${v.contact.id}`, { ...v.contact, name: 'Jane Renamed' });
      const contacts = h.stub.lookups.contacts;
      const pairs = h.stub.lookups.contact_inboxes;
      expect((await pub('GET', `${v.path}/${conv}`)).body.contact).toMatchObject({ id: v.contact.id, name: 'Jane Renamed' });
      expect([h.stub.lookups.contacts, h.stub.lookups.contact_inboxes]).toEqual([contacts + 1, pairs]);
      expect((await pub('POST', `${v.path}/${conv}/messages`, { content: 'hello again' })).body.sender).toMatchObject({ id: v.contact.id, name: 'Jane Renamed' });
      expect([h.stub.lookups.contacts, h.stub.lookups.contact_inboxes]).toEqual([contacts + 1, pairs]);
      // A write never waits on the contacts service with the conversation locked: no copy, the full way.
      await dropCopy();
      expect((await pub('POST', `${v.path}/${conv}/messages`, { content: 'and again' })).status).toBe(200);
      expect([h.stub.lookups.contacts, h.stub.lookups.contact_inboxes]).toEqual([contacts + 1, pairs + 1]);
      expect((await pub('POST', `${v.path}/${conv}/messages`, { content: 'and once more' })).status).toBe(200);
      expect([h.stub.lookups.contacts, h.stub.lookups.contact_inboxes]).toEqual([contacts + 1, pairs + 1]);
    });

    it('when the contact\'s copy is a tombstone, then the contacts service decides: its pair, or 404 once it is gone', async () => {
      const v = visitor();
      const conv = (await pub('POST', v.path, {})).body.id;
      await h.svc.deps.pool.query(`UPDATE projections SET data = NULL WHERE kind = 'contact' AND account_id = $1 AND id = $2`, [acc.accountId, v.contact.id]);
      const pairs = h.stub.lookups.contact_inboxes;
      expect((await pub('POST', `${v.path}/${conv}/messages`, { content: 'are you there?' })).status).toBe(200);
      expect(h.stub.lookups.contact_inboxes).toBe(pairs + 1);
      h.stub.contactInboxes.splice(h.stub.contactInboxes.findIndex((ci) => ci.source_id === v.sourceId), 1);
      h.stub.contacts.delete(`${acc.accountId}:${v.contact.id}`);
      await h.svc.deps.pool.query(`UPDATE projections SET data = NULL WHERE kind = 'contact' AND account_id = $1 AND id = $2`, [acc.accountId, v.contact.id]);
      expectError(await pub('POST', `${v.path}/${conv}/messages`, { content: 'hello?' }), 404, 'not_found');
      expectError(await pub('GET', `${v.path}/${conv}`), 404, 'not_found');
    });

    it('when the source id holds quotes and backslashes, then it is matched as it is', async () => {
      const odd = `o'brien\\"; DROP TABLE conversations; --`;
      const v = visitor({ source_id: odd });
      const path = `/${inbox.inbox_identifier}/contacts/${encodeURIComponent(odd)}/conversations`;
      const conv = (await pub('POST', path, {})).body.id;
      const pairs = h.stub.lookups.contact_inboxes;
      expect((await pub('POST', `${path}/${conv}/messages`, { content: 'odd but mine' })).status).toBe(200);
      expect((await pub('GET', `${path}/${conv}`)).body.messages.map((m: any) => m.content)).toEqual(['odd but mine']);
      expect(h.stub.lookups.contact_inboxes).toBe(pairs);
      expect(v.sourceId).toBe(odd);
    });
  });
});

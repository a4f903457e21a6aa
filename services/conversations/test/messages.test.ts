import { asCaller } from '@parley/testkit';
import { CONVERSATION_COLUMNS, INBOX_COLUMNS, MESSAGE_COLUMNS } from '../src/common/rows';
import { createConversation, createInbox, expectError } from './fixtures';
import { startHarness, type Harness, type TestAccount } from './harness';

describe('messages (service level)', () => {
  let h: Harness;
  let acc: TestAccount;
  let inbox: any;
  const base = () => `/api/v1/accounts/${acc.accountId}`;
  const show = async (id: number) => (await h.call('GET', `${base()}/conversations/${id}`, { as: acc.admin })).body;
  const send = (id: number, body: Record<string, unknown>, as = acc.admin) => h.call('POST', `${base()}/conversations/${id}/messages`, { as, body });

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.stop());
  beforeEach(async () => {
    acc = await h.account();
    inbox = await createInbox(h, acc);
  });

  it('when the messages, conversations and inboxes tables are read by their prepared statements, then MESSAGE_COLUMNS, CONVERSATION_COLUMNS and INBOX_COLUMNS name columns the tables have (the compiler holds them to the row types)', async () => {
    const { rows } = await h.svc.deps.pool.query<{ name: string }>(
      `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'messages' ORDER BY ordinal_position`,
    );
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(MESSAGE_COLUMNS.split(', ')));
    const conv = await h.svc.deps.pool.query<{ name: string }>(
      `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'conversations' ORDER BY ordinal_position`,
    );
    expect(conv.rows.map((r) => r.name)).toEqual(expect.arrayContaining(CONVERSATION_COLUMNS.split(', ')));
    const inboxes = await h.svc.deps.pool.query<{ name: string }>(
      `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'inboxes' ORDER BY ordinal_position`,
    );
    expect(inboxes.rows.map((r) => r.name)).toEqual(expect.arrayContaining(INBOX_COLUMNS.split(', ')));
  });

  it('when an agent replies, then the message is outgoing from them and message.created carries the conversation snapshot', async () => {
    const conv = await createConversation(h, acc, inbox.id, { custom_attributes: { plan: 'pro' } });
    const res = await send(conv.id, { content: 'Hi there', echo_id: 'e-1', content_attributes: { in_reply_to: null } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      content: 'Hi there', message_type: 1, private: false, status: 'sent', content_type: 'text', conversation_id: conv.id, inbox_id: inbox.id,
      sender_type: 'User', sender_id: acc.adminId, echo_id: 'e-1', sender: { id: acc.adminId, type: 'user', name: `Agent ${acc.adminId}` },
    });
    const [ev] = await h.events(acc.accountId, 'message.created');
    expect(ev.data).toMatchObject({ id: res.body.id, conversation_id: conv.id, message_type: 1, content: 'Hi there', private: false, conversation: { id: conv.id, status: 'open', custom_attributes: { plan: 'pro' } } });
    // docs/contracts.md MessageSnapshot, key for key, with the ConversationSnapshot inside.
    expect(Object.keys(ev.data).sort()).toEqual(
      ['id', 'account_id', 'inbox_id', 'conversation_id', 'message_type', 'content', 'content_type', 'content_attributes', 'private', 'status', 'sender_type', 'sender_id', 'source_id', 'created_at', 'updated_at', 'conversation'].sort(),
    );
    expect(Object.keys(ev.data.conversation).sort()).toEqual(
      [
        'id', 'display_id', 'uuid', 'account_id', 'inbox_id', 'status', 'priority', 'labels', 'assignee_id', 'team_id', 'contact_id', 'contact_inbox_id', 'snoozed_until',
        'custom_attributes', 'additional_attributes', 'muted', 'waiting_since', 'first_reply_created_at', 'last_activity_at', 'created_at',
        'agent_last_seen_at', 'contact_last_seen_at',
      ].sort(),
    );
    expect(ev.data).toMatchObject({ account_id: acc.accountId, inbox_id: inbox.id, content_type: 'text', status: 'sent', sender_type: 'User', sender_id: acc.adminId, source_id: null, created_at: res.body.created_at });
  });

  it('when an agent first replies to a waiting conversation, then the row stored (written with the commit) is the one its events carry, to the millisecond', async () => {
    const conv = await createConversation(h, acc, inbox.id);
    const res = await send(conv.id, { content: 'first reply' });
    expect(res.status).toBe(200);
    const { rows } = await h.svc.deps.pool.query(
      'SELECT last_activity_at, waiting_since, first_reply_created_at, updated_at, status FROM conversations WHERE account_id = $1 AND display_id = $2',
      [acc.accountId, conv.id],
    );
    const row = rows[0];
    const [msg] = await h.events(acc.accountId, 'message.created');
    const [updated] = (await h.events(acc.accountId, 'conversation.updated')).slice(-1);
    expect(row.waiting_since).toBeNull();
    expect(row.first_reply_created_at).not.toBeNull();
    expect(row.last_activity_at.getTime()).toBe(row.first_reply_created_at.getTime());
    expect(msg.data.conversation).toMatchObject({ waiting_since: null, first_reply_created_at: Math.floor(row.first_reply_created_at.getTime() / 1000), last_activity_at: Math.floor(row.last_activity_at.getTime() / 1000) });
    expect(updated.changes).toMatchObject({ waiting_since: [conv.waiting_since, null], first_reply_created_at: [null, msg.data.conversation.first_reply_created_at] });
    // The answer is the conversation as stored: a second reply sees the first one's times.
    const again = await send(conv.id, { content: 'second reply' });
    expect(again.status).toBe(200);
    const after = (await h.svc.deps.pool.query('SELECT last_activity_at, first_reply_created_at, updated_at FROM conversations WHERE account_id = $1 AND display_id = $2', [acc.accountId, conv.id])).rows[0];
    expect(after.first_reply_created_at.getTime()).toBe(row.first_reply_created_at.getTime());
    expect(after.last_activity_at.getTime()).toBeGreaterThanOrEqual(row.last_activity_at.getTime());
    expect(after.updated_at.getTime()).toBeGreaterThanOrEqual(row.updated_at.getTime());
  });

  it('when messages come and go, then waiting_since and first_reply_created_at follow Chatwoot', async () => {
    const conv = await createConversation(h, acc, inbox.id);
    expect(conv.waiting_since).toBeGreaterThan(0);
    await send(conv.id, { content: 'an internal note', private: true });
    expect((await show(conv.id)).waiting_since).toBe(conv.waiting_since);
    await send(conv.id, { content: 'first reply' });
    const replied = await show(conv.id);
    expect(replied.waiting_since).toBe(0);
    expect(replied.first_reply_created_at).toBeGreaterThan(0);
    await send(conv.id, { content: 'customer again', message_type: 'incoming' });
    const waiting = await show(conv.id);
    expect(waiting.waiting_since).toBeGreaterThan(0);
    expect(waiting.first_reply_created_at).toBe(replied.first_reply_created_at);
    expect(waiting.messages[0]).toMatchObject({ content: 'customer again', message_type: 0, sender_type: 'Contact', sender: { type: 'contact', id: waiting.meta.sender.id } });
    expect(waiting.unread_count).toBe(1);
  });

  it('when an incoming message reaches a resolved or snoozed conversation, then it reopens; a muted one stays resolved', async () => {
    const resolved = await createConversation(h, acc, inbox.id, { status: 'resolved' });
    await send(resolved.id, { content: 'still broken', message_type: 0 });
    expect((await show(resolved.id)).status).toBe('open');
    const reopened = (await h.events(acc.accountId, 'conversation.opened')).at(-1);
    expect(reopened.changes).toEqual({ status: ['resolved', 'open'] });

    const snoozed = await createConversation(h, acc, inbox.id, { status: 'snoozed', snoozed_until: new Date(Date.now() + 3_600_000).toISOString() });
    await send(snoozed.id, { content: 'hello?', message_type: 'incoming' });
    expect(await show(snoozed.id)).toMatchObject({ status: 'open', snoozed_until: null });

    const muted = await createConversation(h, acc, inbox.id);
    await h.call('POST', `${base()}/conversations/${muted.id}/mute`, { as: acc.admin });
    await send(muted.id, { content: 'spam', message_type: 'incoming' });
    expect((await show(muted.id)).status).toBe('resolved');
  });

  it('when messages are listed, then the newest 20 come oldest first; before and after page through them', async () => {
    const conv = await createConversation(h, acc, inbox.id);
    const sent: number[] = [];
    for (let i = 1; i <= 25; i++) sent.push((await send(conv.id, { content: `m${i}`, message_type: i % 2 ? 'incoming' : 'outgoing' })).body.id);
    const page = await h.call('GET', `${base()}/conversations/${conv.id}/messages`, { as: acc.admin });
    expect(page.status).toBe(200);
    expect(page.body.payload.map((m: any) => m.content)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i + 6}`));
    expect(page.body.meta).toMatchObject({ labels: [], agent_last_seen_at: 0, assignee_last_seen_at: 0, contact: { id: conv.meta.sender.id } });
    const older = await h.call('GET', `${base()}/conversations/${conv.id}/messages?before=${sent[5]}`, { as: acc.admin });
    expect(older.body.payload.map((m: any) => m.content)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    const newer = await h.call('GET', `${base()}/conversations/${conv.id}/messages?after=${sent[22]}`, { as: acc.admin });
    expect(newer.body.payload.map((m: any) => m.content)).toEqual(['m24', 'm25']);
    expectError(await h.call('GET', `${base()}/conversations/${conv.id}/messages?before=x`, { as: acc.admin }), 400);
    expectError(await h.call('GET', `${base()}/conversations/${conv.id}/messages?page=2`, { as: acc.admin }), 400, 'unknown_parameter');
  });

  it('when a message is updated or deleted, then it changes softly with message.updated', async () => {
    const conv = await createConversation(h, acc, inbox.id);
    const m = (await send(conv.id, { content: 'typo' })).body;
    const upd = await h.call('PATCH', `${base()}/conversations/${conv.id}/messages/${m.id}`, { as: acc.admin, body: { content: 'fixed', status: 'delivered' } });
    expect(upd.body).toMatchObject({ id: m.id, content: 'fixed', status: 'delivered' });
    const del = await h.call('DELETE', `${base()}/conversations/${conv.id}/messages/${m.id}`, { as: acc.admin });
    expect(del.body).toMatchObject({ id: m.id, content: 'This message was deleted', content_attributes: { deleted: true } });
    const evs = await h.events(acc.accountId, 'message.updated');
    expect(evs.map((e) => e.changes.content)).toEqual([['typo', 'fixed'], ['fixed', 'This message was deleted']]);
    expectError(await h.call('PATCH', `${base()}/conversations/${conv.id}/messages/${m.id}`, { as: acc.admin, body: { content: 'again' } }), 422, 'deleted');
    expectError(await h.call('PATCH', `${base()}/conversations/${conv.id}/messages/${m.id}`, { as: acc.admin, body: {} }), 422);
    expectError(await h.call('DELETE', `${base()}/conversations/${conv.id}/messages/999999999`, { as: acc.admin }), 404, 'not_found');
  });

  it('when an interactive message is deleted, then what it offered goes too: plain text, only `deleted` left in its attributes', async () => {
    const conv = await createConversation(h, acc, inbox.id);
    const m = (await send(conv.id, { content: 'Pick a plan', content_type: 'input_select', content_attributes: { items: [{ title: 'Gold', value: 'gold' }] } })).body;
    const del = await h.call('DELETE', `${base()}/conversations/${conv.id}/messages/${m.id}`, { as: acc.admin });
    expect(del.body).toMatchObject({ content: 'This message was deleted', content_type: 'text', content_attributes: { deleted: true } });
    expect(del.body.content_attributes).toEqual({ deleted: true });
    const [ev] = await h.events(acc.accountId, 'message.updated');
    expect(ev.data).toMatchObject({ content_type: 'text', content_attributes: { deleted: true } });
    expect(ev.changes.content_type).toEqual(['input_select', 'text']);
  });

  it('when the body is wrong, then 422 naming the field', async () => {
    const conv = await createConversation(h, acc, inbox.id);
    expectError(await send(conv.id, {}), 422, 'blank', 'content');
    expectError(await send(conv.id, { content: 'x', message_type: 'shout' }), 422, undefined, 'message_type');
    expectError(await send(conv.id, { content: 'x', content_type: 'hologram' }), 422, undefined, 'content_type');
    expectError(await send(conv.id, { content: 'x'.repeat(150_001) }), 422, undefined, 'content');
    expectError(await send(conv.id, { content: 'x', private: 'maybe' }), 422, undefined, 'private');
  });

  it('when a multipart body carries files, then they are stored as attachments and can be downloaded', async () => {
    const conv = await createConversation(h, acc, inbox.id);
    const form = new FormData();
    form.append('content', 'see attached');
    form.append('private', 'false');
    form.append('attachments[]', new Blob([Buffer.from('hello file')], { type: 'text/plain' }), 'notes.txt');
    form.append('attachments[]', new Blob([Buffer.from([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'pic.png');
    const res = await h.call('POST', `${base()}/conversations/${conv.id}/messages`, { as: acc.admin, form });
    expect(res.status).toBe(200);
    expect(res.body.content).toBe('see attached');
    expect(res.body.attachments).toHaveLength(2);
    expect(res.body.attachments[0]).toMatchObject({ file_type: 'file', extension: 'txt', file_size: 10, fallback_title: 'notes.txt', message_id: res.body.id, account_id: acc.accountId });
    expect(res.body.attachments[1]).toMatchObject({ file_type: 'image', extension: 'png' });
    const file = await fetch(h.svc.url + res.body.attachments[0].data_url, { headers: asCaller(acc.admin) });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toContain('text/plain');
    expect(await file.text()).toBe('hello file');

    const onlyFile = new FormData();
    onlyFile.append('attachments[]', new Blob(['x'], { type: 'application/pdf' }), 'a.pdf');
    expect((await h.call('POST', `${base()}/conversations/${conv.id}/messages`, { as: acc.admin, form: onlyFile })).status).toBe(200);
    const wrongField = new FormData();
    wrongField.append('content', 'x');
    wrongField.append('avatar', new Blob(['x']), 'a.bin');
    expectError(await h.call('POST', `${base()}/conversations/${conv.id}/messages`, { as: acc.admin, form: wrongField }), 422, 'unexpected_file');
  });

  it('when an attachment is larger than allowed, then 413', async () => {
    const small = await startHarness({ ATTACHMENT_MAX_BYTES: 16 });
    try {
      const a = await small.account();
      const i = await createInbox(small, a);
      const conv = await createConversation(small, a, i.id);
      const form = new FormData();
      form.append('attachments[]', new Blob([Buffer.alloc(64)], { type: 'image/png' }), 'big.png');
      expectError(await small.call('POST', `/api/v1/accounts/${a.accountId}/conversations/${conv.id}/messages`, { as: a.admin, form }), 413, 'payload_too_large');
    } finally {
      await small.stop();
    }
  });
});

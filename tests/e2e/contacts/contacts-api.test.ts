import { uniq, waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { createApiInbox, PNG_1X1, sendForm } from '../../support/contacts';

describe('contacts through the gateway (account API, SPEC 9 and 13)', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;

  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
  });
  afterAll(() => stack?.stop());

  const contacts = (a: SeededAccount = acc) => `/api/v1/accounts/${a.accountId}/contacts`;

  async function create(body: Record<string, unknown>, a: SeededAccount = acc) {
    const res = await call('POST', contacts(a), { token: a.agent.token, body });
    expect({ status: res.status, text: res.text }).toMatchObject({ status: 200 });
    return res.body.payload.contact;
  }

  it('when an agent lists, sorts and pages, then 15 resolved contacts a page with current_page as a string and a stable order', async () => {
    const a = await seedAccount(stack);
    const made = [];
    for (let i = 0; i < 18; i++) made.push(await create({ name: `Person ${String.fromCharCode(97 + (i % 6))}`, email: `p${i}@${uniq('d')}.test` }, a));
    await create({ name: 'Anonymous visitor' }, a);
    const p1 = await call('GET', `${contacts(a)}?sort=-name`, { token: a.agent.token });
    expect(p1.status).toBe(200);
    expect(p1.body.meta).toEqual({ count: 18, current_page: '1' });
    expect(p1.body.payload).toHaveLength(15);
    const p2 = await call('GET', `${contacts(a)}?sort=-name&page=2`, { token: a.agent.token });
    expect(p2.body.meta).toEqual({ count: 18, current_page: '2' });
    const order = [...p1.body.payload, ...p2.body.payload].map((c: any) => c.id);
    const expected = [...made].sort((x, y) => y.name.localeCompare(x.name) || y.id - x.id).map((c) => c.id);
    expect(order).toEqual(expected);
    const first = p1.body.payload[0];
    expect(Object.keys(first).sort()).toEqual(
      ['additional_attributes', 'availability_status', 'blocked', 'contact_inboxes', 'created_at', 'custom_attributes', 'email', 'id', 'identifier', 'last_activity_at', 'name', 'phone_number', 'thumbnail'].sort(),
    );
    const byEmail = await call('GET', `${contacts(a)}?sort=email`, { token: a.agent.token });
    const emails = byEmail.body.payload.map((c: any) => c.email);
    expect(emails).toEqual([...emails].sort());
  });

  it('when a contact has a contact inbox, then the list shows it with the inbox summary', async () => {
    const inbox = await createApiInbox(call, acc, { name: 'Chat widget' });
    const res = await call('POST', contacts(), { token: acc.admin.token, body: { name: 'Inboxed', email: `${uniq('i')}@acme.test`, inbox_id: inbox.id } });
    expect(res.status).toBe(200);
    const { contact, contact_inbox } = res.body.payload;
    expect(contact_inbox).toMatchObject({ source_id: expect.any(String), inbox: { id: inbox.id, name: 'Chat widget', channel_type: 'Channel::Api' } });
    const list = await call('GET', `${contacts()}?sort=name`, { token: acc.agent.token });
    const listed = list.body.payload.find((c: any) => c.id === contact.id);
    expect(listed.contact_inboxes).toEqual([{ source_id: contact_inbox.source_id, inbox: { id: inbox.id, avatar_url: '', channel_id: inbox.id, name: 'Chat widget', channel_type: 'Channel::Api', provider: '' } }]);
  });

  it('when contacts are searched, filtered, labelled and updated, then the answers follow the request', async () => {
    const tag = uniq('find');
    const c = await create({ name: `Zed ${tag}`, phone_number: '+442071838750' });
    const found = await call('GET', `${contacts()}/search?q=${tag}`, { token: acc.agent.token });
    expect(found.body.payload.map((x: any) => x.id)).toEqual([c.id]);
    expect((await call('POST', `${contacts()}/${c.id}/labels`, { token: acc.agent.token, body: { labels: ['vip'] } })).body).toEqual({ payload: ['vip'] });
    const filtered = await call('POST', `${contacts()}/filter`, {
      token: acc.agent.token,
      body: { payload: [{ attribute_key: 'labels', filter_operator: 'equal_to', values: ['vip'], query_operator: 'and' }, { attribute_key: 'name', filter_operator: 'contains', values: [tag] }] },
    });
    expect(filtered.body.payload.map((x: any) => x.id)).toEqual([c.id]);
    const updated = await call('PATCH', `${contacts()}/${c.id}`, { token: acc.agent.token, body: { email: `${tag}@acme.test`, custom_attributes: { tier: 'gold' } } });
    expect(updated.body.payload).toMatchObject({ id: c.id, email: `${tag}@acme.test`, custom_attributes: { tier: 'gold' } });
    expect((await call('GET', `${contacts()}/${c.id}`, { token: acc.agent.token })).body.payload.email).toBe(`${tag}@acme.test`);
  });

  it('when an agent deletes a contact, then 403; when an administrator does, then {} and the contact is gone', async () => {
    const c = await create({ email: `${uniq('del')}@acme.test` });
    const denied = await call('DELETE', `${contacts()}/${c.id}`, { token: acc.agent.token });
    expect(denied.status).toBe(403);
    expectErrorBody(denied.body, 'forbidden');
    const res = await call('DELETE', `${contacts()}/${c.id}`, { token: acc.admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const gone = await call('GET', `${contacts()}/${c.id}`, { token: acc.admin.token });
    expect(gone.status).toBe(404);
    expectErrorBody(gone.body, 'not_found');
    expect((await call('DELETE', `${contacts()}/${c.id}`, { token: acc.admin.token })).status).toBe(404);
  });

  it('when an administrator deletes a contact with conversations, then its conversations disappear and others stay', async () => {
    const inbox = await createApiInbox(call, acc, { name: 'Cascade' });
    const open = async (name: string) => {
      const created = await call('POST', contacts(), { token: acc.admin.token, body: { name, email: `${uniq('cas')}@acme.test`, inbox_id: inbox.id } });
      const { contact, contact_inbox } = created.body.payload;
      const conv = await call('POST', `/api/v1/accounts/${acc.accountId}/conversations`, { token: acc.admin.token, body: { inbox_id: inbox.id, contact_id: contact.id, source_id: contact_inbox.source_id } });
      expect({ status: conv.status, text: conv.text }).toMatchObject({ status: 200 });
      return { contactId: contact.id as number, conversationId: conv.body.id as number };
    };
    const leaving = await open('Leaving');
    const staying = await open('Staying');
    const conversation = (id: number) => call('GET', `/api/v1/accounts/${acc.accountId}/conversations/${id}`, { token: acc.admin.token });
    expect((await conversation(leaving.conversationId)).status).toBe(200);
    const del = await call('DELETE', `${contacts()}/${leaving.contactId}`, { token: acc.admin.token });
    expect(del.status).toBe(200);
    await waitFor(async () => (await conversation(leaving.conversationId)).status === 404, { what: "the deleted contact's conversation to go" });
    expectErrorBody((await conversation(leaving.conversationId)).body, 'not_found');
    expect((await conversation(staying.conversationId)).status).toBe(200);
  });

  it('when another account\'s contact is asked for, then 404; no token is 401; a bot is 403', async () => {
    const other = await seedAccount(stack);
    const theirs = await create({ email: `${uniq('t')}@acme.test` }, other);
    const res = await call('GET', `${contacts()}/${theirs.id}`, { token: acc.admin.token });
    expect(res.status).toBe(404);
    expectErrorBody(res.body, 'not_found');
    const del = await call('DELETE', `${contacts()}/${theirs.id}`, { token: acc.admin.token });
    expect(del.status).toBe(404);
    const anon = await call('GET', contacts());
    expect(anon.status).toBe(401);
    expectErrorBody(anon.body);
    const bot = await acc.addBot();
    const asBot = await call('GET', contacts(), { token: bot.token });
    expect(asBot.status).toBe(403);
    expectErrorBody(asBot.body);
  });

  it('when input is bad, then 4xx with the Error body naming the field', async () => {
    const email = `${uniq('dup')}@acme.test`;
    await create({ email, identifier: `${email}-id` });
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', contacts(), { email: 'not-an-email' }, 422, 'email'],
      ['POST', contacts(), { phone_number: '0044 20 7183 8750' }, 422, 'phone_number'],
      ['POST', contacts(), { name: 'n'.repeat(256) }, 422, 'name'],
      ['POST', contacts(), { custom_attributes: { nested: { no: true } } }, 422, 'custom_attributes.nested'],
      ['POST', contacts(), { email: email.toUpperCase() }, 409, 'email'],
      ['POST', contacts(), { identifier: `${email}-id` }, 409, 'identifier'],
      ['POST', contacts(), { inbox_id: 987654321 }, 422, 'inbox_id'],
      ['POST', `${contacts()}/filter`, { payload: [{ attribute_key: 'email', filter_operator: 'resembles', values: ['x'] }] }, 422, 'payload.0.filter_operator'],
      ['POST', `${contacts()}/1/labels`, { labels: 'vip' }, 422, 'labels'],
    ];
    for (const [method, path, body, status, field] of cases) {
      const res = await call(method, path, { token: acc.agent.token, body });
      expect({ path, body, status: res.status }).toEqual({ path, body, status });
      expectErrorBody(res.body);
      expect(res.body.errors.map((e: any) => e.field)).toContain(field);
    }
    const malformed = await call('POST', contacts(), { token: acc.agent.token, raw: '{"name":' });
    expect(malformed.status).toBe(400);
    expectErrorBody(malformed.body, 'malformed_json');
    for (const q of ['?sort=age', '?page=0', '?page=abc']) {
      const res = await call('GET', `${contacts()}${q}`, { token: acc.agent.token });
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
      expectErrorBody(res.body);
    }
    const noQ = await call('GET', `${contacts()}/search`, { token: acc.agent.token });
    expect(noQ.status).toBe(400);
    expectErrorBody(noQ.body);
  });

  it('when an avatar is uploaded as multipart through the gateway, then the thumbnail URL serves the image', async () => {
    const form = new FormData();
    form.set('name', 'Face');
    form.set('email', `${uniq('face')}@acme.test`);
    form.set('avatar', new Blob([PNG_1X1], { type: 'image/png' }), 'face.png');
    const res = await sendForm(stack.gatewayUrl, 'POST', contacts(), form, acc.agent.token);
    expect(res.status).toBe(200);
    const thumbnail: string = res.body.payload.contact.thumbnail;
    expect(thumbnail).toContain('/public/api/v1/contact_avatars/');
    const img = await fetch(stack.gatewayUrl + new URL(thumbnail).pathname);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await img.arrayBuffer()).equals(PNG_1X1)).toBe(true);
    const bad = new FormData();
    bad.set('avatar', new Blob(['%PDF-1.4 not an image'], { type: 'image/png' }), 'x.png');
    const refused = await sendForm(stack.gatewayUrl, 'POST', contacts(), bad, acc.agent.token);
    expect(refused.status).toBe(422);
    expectErrorBody(refused.body, 'invalid_type');
  });
});
